"""What a filter's total needs, one range of ids at a time: the ids matching it and its counts, over
the rows from one id to another, so a large index builds them in chunks (by `Backlog`, a thread of the
index) while its first window answers from the first matches alone (`first_rows`).

A chunk is a range of ids (the primary key, and the text index's rowid), so each reads only its rows;
the index's lock is taken per chunk, and a read waits one chunk at most."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Hashable
from typing import Any

from proxy.store.traffic_query import TEXT_CONDITION

CHUNK = 20_000  # ids a step reads: about 30 ms of a text filter's ids and 100 ms of counts at 1,000,000
Key = tuple[str, tuple[Any, ...]]  # a compiled filter: its condition and parameters
# The rules that have findings, each found from the last by one seek in the findings' key.
RULES_SKIPPED = (
    "named(rule) AS (SELECT min(rule) FROM findings UNION ALL "
    "SELECT (SELECT min(rule) FROM findings WHERE rule > named.rule) FROM named WHERE named.rule IS NOT NULL)"
)


def _text_split(key: Key) -> tuple[str, tuple[Any, ...], str | None]:
    """The condition less its text part, its parameters, and the text phrase (None: no text part)."""
    where, parameters = key
    if not where.endswith(TEXT_CONDITION):
        return where, parameters, None
    rest = where[: -len(TEXT_CONDITION)].removesuffix(" AND ")
    return rest or "1", parameters[:-1], parameters[-1]


def ids_between(db: sqlite3.Connection, key: Key, since: int, until: int) -> sqlite3.Cursor:
    """The ids in (since, until] matching the filter, in order; a text filter is driven by the text
    index (its rowids come in order)."""
    where, parameters, phrase = _text_split(key)
    if phrase is None:
        return db.execute(
            f"SELECT id FROM exchanges WHERE id > ? AND id <= ? AND ({where}) ORDER BY id",
            (since, until, *parameters),
        )
    return db.execute(
        "SELECT exchanges.id FROM bodies JOIN exchanges ON exchanges.id = bodies.rowid "
        f"WHERE bodies MATCH ? AND bodies.rowid > ? AND bodies.rowid <= ? AND ({where}) "
        "ORDER BY bodies.rowid",
        (phrase, since, until, *parameters),
    )


def first_rows(db: sqlite3.Connection, columns: str, key: Key, offset: int, limit: int) -> sqlite3.Cursor:
    """The matching rows from `offset`, at most `limit`, in id order: the scan stops at the last one
    wanted (no list of every match, no count)."""
    where, parameters, phrase = _text_split(key)
    if phrase is None:
        return db.execute(
            f"SELECT {columns} FROM exchanges WHERE {where} ORDER BY id LIMIT ? OFFSET ?",
            (*parameters, limit, offset),
        )
    named = ", ".join(f"exchanges.{column.strip()}" for column in columns.split(","))
    return db.execute(
        f"SELECT {named} FROM bodies JOIN exchanges ON exchanges.id = bodies.rowid "
        f"WHERE bodies MATCH ? AND ({where}) ORDER BY bodies.rowid LIMIT ? OFFSET ?",
        (phrase, *parameters, limit, offset),
    )


def counts_between(db: sqlite3.Connection, key: Key, since: int, until: int) -> dict[str, Any]:
    """The counts (`TrafficIndex.counts`) of the matching rows with an id in (since, until]."""
    where, parameters, phrase = _text_split(key)
    where, parameters = f"id > ? AND id <= ? AND ({where})", (since, until, *parameters)
    if phrase is not None:  # the text index asked over the same range only
        where += " AND id IN (SELECT rowid FROM bodies WHERE bodies MATCH ? AND rowid > ? AND rowid <= ?)"
        parameters = (*parameters, phrase, since, until)
    total, errors, warnings, infos = db.execute(
        "SELECT count(*), coalesce(sum(errors > 0), 0), coalesce(sum(warnings > 0), 0), "
        f"coalesce(sum(infos > 0), 0) FROM exchanges WHERE {where}",
        parameters,
    ).fetchone()
    # The findings' key is (rule, exchange): each rule's findings in the range are found by a seek, the
    # rules by skipping from one to the next, so a chunk reads its own findings, not all of them.
    rules = db.execute(
        f"WITH RECURSIVE {RULES_SKIPPED} SELECT findings.rule, count(*) FROM named JOIN findings "
        "ON findings.rule = named.rule AND findings.exchange > ? AND findings.exchange <= ? "
        f"WHERE findings.exchange IN (SELECT id FROM exchanges WHERE {where}) "
        "GROUP BY findings.rule ORDER BY findings.rule",
        (since, until, *parameters),
    )
    endpoints = db.execute(
        f"SELECT endpoint, count(*) FROM exchanges WHERE endpoint IS NOT NULL AND ({where}) "
        "GROUP BY endpoint ORDER BY endpoint",
        parameters,
    )
    return {
        "total": total,
        "rules": dict(rules.fetchall()),
        "severities": {"error": errors, "warning": warnings, "info": infos},
        "endpoints": dict(endpoints.fetchall()),
    }


def summed(first: dict[str, Any], second: dict[str, Any]) -> dict[str, Any]:
    """Two documents of counts over disjoint rows, added."""

    def added(one: dict[str, int], other: dict[str, int]) -> dict[str, int]:
        return {name: one.get(name, 0) + other.get(name, 0) for name in sorted({*one, *other})}

    return {
        "total": first["total"] + second["total"],
        "rules": added(first["rules"], second["rules"]),
        "severities": {
            name: first["severities"][name] + second["severities"][name] for name in first["severities"]
        },
        "endpoints": added(first["endpoints"], second["endpoints"]),
    }


class Backlog:
    """A thread that finishes what readers left to be built (a filter's ids, its counts) by calling
    `step(job)` (one chunk; True when the job is done) until done, the job wanted last first. At most
    `most` jobs wait (the oldest dropped: its filter is no longer looked at); a job whose step fails is
    dropped (the reader asking again meets the failure)."""

    def __init__(self, step: Callable[[Hashable], bool], most: int) -> None:
        self._step, self._most = step, most
        self._jobs: list[Hashable] = []  # the last wanted last
        self._changed = threading.Condition()
        self._stopped = False
        self._thread: threading.Thread | None = None

    def want(self, job: Hashable) -> None:
        with self._changed:
            if self._stopped:
                return
            if job in self._jobs:
                self._jobs.remove(job)
            self._jobs.append(job)
            del self._jobs[: -self._most]
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="commerce-proxy-ui-totals", daemon=True
                )
                self._thread.start()
            self._changed.notify()

    def idle(self, timeout: float) -> bool:
        """Wait until no job is left (at most `timeout` seconds); whether none is."""
        with self._changed:
            return self._changed.wait_for(lambda: not self._jobs or self._stopped, timeout)

    def stop(self) -> None:
        """Stop between two steps and wait for the thread."""
        with self._changed:
            self._stopped = True
            self._jobs.clear()
            self._changed.notify_all()
            thread = self._thread
        if thread is not None:
            thread.join()

    def _run(self) -> None:
        while True:
            with self._changed:
                self._changed.wait_for(lambda: bool(self._jobs) or self._stopped)
                if self._stopped:
                    return
                job = self._jobs[-1]
            try:
                done = self._step(job)
            except Exception:  # a closed or failing index: the reader asking again meets it
                done = True
            with self._changed:
                if done and job in self._jobs:
                    self._jobs.remove(job)
                self._changed.notify_all()
