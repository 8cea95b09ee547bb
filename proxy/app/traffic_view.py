"""The use case the web UI calls: the traffic as windows of rows, counts, one exchange's detail and the
rows added since a cursor, over the index (`store/traffic_index.py`).

Offline (`commerce-proxy ui PATH...`) the sources are checked with the checker `check` uses, redacted,
and indexed once; the index is cached by the sources' identity, so reopening them is instant. Live
(`record`, `spy`, `replay`) the view is fed by `proxy/app/live_traffic.py`.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import queue
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from proxy.app.project_rules import shown_baseline
from proxy.app.traffic_rows import detail_document, entry_of
from proxy.app.traffic_sources import sources_of
from proxy.app.two_core_index import index_stream
from proxy.core.contract.findings import IDS as CONTRACT_RULE_IDS
from proxy.core.model.exchange import Exchange
from proxy.core.redaction.book import KNOWN
from proxy.core.redaction.policy import RedactionPolicy
from proxy.core.redaction.redact import redact_exchange
from proxy.core.rules.config import Baseline
from proxy.core.rules.engine import Checker
from proxy.core.rules.findings import Finding
from proxy.core.rules.ruleset import RuleSet
from proxy.core.ui.query import Query, cassette_named, rule_named
from proxy.store.rule_files import RulesInForce
from proxy.store.traffic_cache import (
    cache_entry,
    copy_to_cache,
    file_states,
    keep_as_cache,
    open_cached,
)
from proxy.store.traffic_entries import Answered, Entry, Prepared
from proxy.store.traffic_index import TrafficIndex, temporary_index
from proxy.version import __version__

__all__ = ["Answered", "TrafficView", "offline_view"]

LIMIT_MOST = 500  # rows in one window or one batch of changes
NO_BASELINE = Baseline()
# Exchanges from which an offline view with `text_later` shows its rows before its bodies' text is
# searchable (`store/traffic_text.py`); below, the text is indexed first (a few seconds at most).
TEXT_LATER_FROM = 50_000


class TrafficView:
    """The traffic one UI shows. Reads come from the server's loop; a live view's writes from its
    indexing thread; one lock keeps them apart."""

    def __init__(self, mode: str, index: TrafficIndex, sources: Sequence[str]) -> None:
        self.mode = mode  # "record" | "spy" | "replay" | "offline"
        self.sources = list(sources)
        self.state: list[list[int]] | None = None  # offline: its files' `file_states` when indexed
        self.cassettes = list(sources)  # the names rows give as `cassette` (a live view: its own)
        self.rules: frozenset[str] | None = None  # the rules in force (`rules_of`): a rule filter names one
        self.left_out: Callable[[], int] = _none  # answers served that the view will never list (replay)
        self._index = index
        self._lock = threading.Lock()
        self._waiters: set[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = set()

    @property
    def cursor(self) -> int:
        """The id of the last exchange indexed (0: none yet)."""
        return self._index.cursor

    def info(self) -> dict[str, Any]:
        cursor = self.cursor
        return {
            "mode": self.mode,
            "sources": self.sources,
            "exchanges": cursor,
            "cursor": cursor,
            "left_out": self.left_out(),
        }

    def window(self, query: Query, offset: int, limit: int, wait: bool = False) -> dict[str, Any]:
        """The rows matching `query` from `offset`, at most `limit` (at most LIMIT_MOST), how many
        match in all (`total`; None while a large filter's total is being counted, unless `wait`),
        and how many are known to match at least (`at_least`, the total when it is known)."""
        limit = max(0, min(limit, LIMIT_MOST))
        offset = max(0, offset)
        query = self._resolved(query)
        total: int | None
        with self._lock:
            cursor = self.cursor
            if wait:
                at_least, rows = self._index.window(query, offset, limit)
                total = at_least
            else:
                total, at_least, rows = self._index.window_now(query, offset, limit)
        return {
            "total": total,
            "at_least": at_least,
            "offset": offset,
            "limit": limit,
            "cursor": cursor,
            "exchanges": rows,
        }

    def counts(self, query: Query) -> dict[str, Any]:
        """How many exchanges match, and per rule, severity and endpoint how many of them; each None
        while a large filter is being counted (asked again, they come)."""
        query = self._resolved(query)
        with self._lock:
            found = self._index.counts_now(query)
        return found if found is not None else dict.fromkeys(("total", "rules", "severities", "endpoints"))

    def _resolved(self, query: Query) -> Query:
        """The query with its cassette as rows name it (`cassette_named`), its rule one in force."""
        if query.rule is not None and self.rules is not None:
            rule_named(query.rule, self.rules)
        if query.cassette is None:
            return query
        return dataclasses.replace(query, cassette=cassette_named(query.cassette, self.cassettes))

    def exchange(self, number: int) -> dict[str, Any] | None:
        """One exchange's detail document, or None when there is no such id."""
        with self._lock:
            found = self._index.exchange(number)
        return None if found is None else detail_document(*found)

    def stored(self, number: int) -> tuple[dict[str, Any], dict[str, Any]] | None:
        """One exchange's row and the document its index keeps (the UI's actions rebuild it from
        that), or None when there is no such id."""
        with self._lock:
            return self._index.exchange(number)

    def replace_with(self, other: TrafficView) -> None:
        """Show `other`'s exchanges from now on (an offline source was edited and indexed again: ids
        after it may have moved); this view's old index is closed."""
        with self._lock:
            old, self._index, self.sources = self._index, other._index, other.sources
            self.state = other.state
        old.close()
        self.wake()

    def changes(self, cursor: int, limit: int = LIMIT_MOST, wait: bool = True) -> dict[str, Any] | None:
        """The rows added after `cursor` (0: from the start), at most `limit`, and the cursor to ask
        from next; None, without `wait`, when another thread holds the view."""
        with self._held(wait) as held:
            if not held:
                return None
            rows = self._index.after(max(0, cursor), max(0, min(limit, LIMIT_MOST)))
        return {"cursor": rows[-1]["id"] if rows else max(cursor, 0), "exchanges": rows}

    async def wait(self, cursor: int, timeout: float) -> int:
        """Wait until exchanges past `cursor` are indexed, or `timeout` seconds; the cursor then."""
        if self.cursor != cursor:
            return self.cursor
        loop = asyncio.get_running_loop()
        waiter = (loop, loop.create_future())
        with self._lock:
            self._waiters.add(waiter)
        try:
            if self.cursor == cursor:  # not moved while it was being registered
                await asyncio.wait({waiter[1]}, timeout=timeout)
        finally:
            with self._lock:
                self._waiters.discard(waiter)
        return self.cursor

    def close(self) -> None:
        """Release the index (a live one's temporary file is removed)."""
        with self._lock:
            self._index.close()

    @property
    def adds_are_light(self) -> bool:
        """Whether adding a batch is light work (`TrafficIndex.adds_are_light`)."""
        return self._index.adds_are_light

    def _add(self, items: list[Prepared], wait: bool = True) -> bool:
        """Index entries (`prepared`) and wake whoever waits for them; without `wait`, only if the view
        and its index are free now (whether it did)."""
        if not items:
            return True
        with self._held(wait) as held:
            if not held:
                return False
            self._index.add_prepared(items)
        self.wake()
        return True

    def wake(self) -> None:
        """Wake whoever waits for rows (`wait`): rows came, or the server stops."""
        with self._lock:
            waiters = list(self._waiters)
        for loop, future in waiters:
            with contextlib.suppress(RuntimeError):  # its loop has closed
                loop.call_soon_threadsafe(_settle, future)

    @contextlib.contextmanager
    def _held(self, wait: bool) -> Iterator[bool]:
        """The view held for the block; without `wait`, only if it and its index are free now (the
        server's loop never waits for a reader's step, a writer's batch or a fill's chunk)."""
        if not self._lock.acquire(blocking=wait):
            yield False
            return
        try:
            if wait:
                yield True
            else:
                with self._index.free() as free:
                    yield free
        finally:
            self._lock.release()


def _none() -> int:
    """Nothing left out: every exchange of an offline view, record's and spy's is listed."""
    return 0


def _settle(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class Endpoints:
    """The operation each request hits, named as the rules' reports name it."""

    def __init__(self, ruleset: RuleSet) -> None:
        self._checker = Checker(ruleset)
        self._known: dict[tuple[str, str], str] = {}

    def __call__(self, method: str, path: str) -> str:
        key = (method, path)
        found = self._known.get(key)
        if found is None:
            hit = self._checker.ruleset.index.lookup(method, path)
            found = self._checker.operation(method, path, hit)
            if len(self._known) > 50_000:  # bounded: a session sees unboundedly many entry paths
                self._known.clear()
            self._known[key] = found
        return found


def scrubbed(findings: Sequence[Finding]) -> list[Finding]:
    """Findings with every secret the book knows scrubbed from what they quote."""
    if not KNOWN.values:
        return list(findings)
    from dataclasses import replace

    return [
        replace(
            finding,
            message=KNOWN.scrub(finding.message),
            where=KNOWN.scrub(finding.where),
            expected=KNOWN.scrub(finding.expected),
            found=KNOWN.scrub(finding.found),
            target=KNOWN.scrub(finding.target),
            path=KNOWN.scrub(finding.path),
        )
        for finding in findings
    ]


def offline_view(
    paths: Sequence[Path], in_force: RulesInForce, *, cache: bool = True, text_later: bool = False
) -> TrafficView:
    """The view of cassettes, folders of cassettes, journals and HAR files: each redacted with the
    project's policy, checked with the checker `check` uses, then indexed; from the cache when it has
    them. With `text_later`, a large set's bodies' text is indexed after its rows, by a thread of its
    own, text filters refused (`StillIndexing`) until then; the cache is written when it is done."""
    sources = sources_of(paths)
    names = [str(source.path) for source in sources]
    identity = [file for source in sources for file in source.identity()]
    state = file_states(identity)  # taken before reading: a change while indexing is seen next time
    accepted = shown_baseline(in_force)
    where = cache_entry(identity, _salt(in_force, accepted)) if cache else None
    cached = open_cached(where) if where is not None else None
    if cached is not None:
        return _offline(cached, names, state, in_force)
    index = temporary_index()
    if text_later:
        index.defer_text()
    adding = BackgroundAdds(index.add_prepared)
    try:
        endpoints = Endpoints(in_force.ruleset)
        policy = in_force.project.redaction
        for source in sources:
            name = str(source.path)
            checker = Checker(in_force.ruleset, in_force.project.config, cassette=name)

            def build(exchange: Exchange, number: int, checker: Checker = checker, name: str = name) -> Entry:
                # Redacted first, then checked, as a live session checks what it recorded: the
                # secrets of a cassette written by hand never reach a finding, and the exchange's
                # secrets are looked for once (the search is most of the cost).
                shown = redact_exchange(exchange, policy)
                findings = checker.check(shown, number)
                # An exchange no rule judged: the check named its operation already (a path shape
                # is most of the cost of naming one whose path holds an id).
                verdict = checker.verdict
                named = endpoints if verdict is None else lambda method, path: verdict.group
                return _entry(shown, findings, None, named, name, number, accepted=accepted)

            # A large cached cassette is indexed on two cores, as `check` checks it.
            path = source.path if source.kind == "cassette" else None
            index_stream(checker, path, source.exchanges(), build, policy, adding.add)
        adding.finish()
        if index.cursor >= TEXT_LATER_FROM:
            keep = index  # the cache written from the fill's thread, this index kept in use
            index.fill_text(lambda: where is not None and copy_to_cache(keep, where), at_once=False)
            return _offline(index, names, state, in_force)
        index.fill_text(lambda: None, at_once=True)
    except BaseException:
        adding.finish(failed=True)
        index.close()
        raise
    if where is not None:
        index = keep_as_cache(index, where)
    return _offline(index, names, state, in_force)


def _offline(
    index: TrafficIndex, names: list[str], state: list[list[int]] | None, in_force: RulesInForce
) -> TrafficView:
    view = TrafficView("offline", index, names)
    view.rules = rules_of(in_force)
    view.state = state
    return view


def offline_state(view: TrafficView) -> list[list[int]] | None:
    """The state of an offline view's files now (compared with `view.state`: changed since indexed)."""
    sources = sources_of([Path(name) for name in view.sources])
    return file_states([file for source in sources for file in source.identity()])


class BackgroundAdds:
    """Batches added to an index by a thread of their own: SQLite (the FTS tokenizing most) runs
    without the interpreter's lock, so an offline build uses a second core while this thread redacts
    and checks the next batch. At most `waiting` batches wait (two: an offline build goes at the pace
    of its adds). `add_to`: what adds a batch (an index's `add_prepared`; a live view's `_add`, which
    wakes its pages)."""

    def __init__(self, add_to: Callable[[list[Prepared]], object], waiting: int = 2) -> None:
        self._add_to = add_to
        self._queue: queue.Queue[list[Prepared] | None] = queue.Queue(maxsize=waiting)
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="commerce-proxy-ui-build", daemon=True)
        self._thread.start()

    def add(self, batch: list[Prepared]) -> None:
        if self._error is not None:
            raise self._error
        if batch:
            self._queue.put(batch)

    def finish(self, failed: bool = False) -> None:
        """Wait for every batch to be added (the first error the thread met is raised here)."""
        if failed:
            with contextlib.suppress(queue.Empty):
                while True:
                    self._queue.get_nowait()
        self._queue.put(None)
        self._thread.join()
        if self._error is not None and not failed:
            raise self._error

    @property
    def busy(self) -> bool:
        """Whether a batch handed over is not yet added."""
        return self._queue.unfinished_tasks > 0

    def settle(self) -> None:
        """Wait until every batch handed over is added (the first error the thread met is raised)."""
        self._queue.join()
        if self._error is not None:
            raise self._error

    def _run(self) -> None:
        while (batch := self._queue.get()) is not None:
            if self._error is None:
                try:
                    self._add_to(batch)
                except BaseException as error:  # raised in the building thread by `add` or `finish`
                    self._error = error
            self._queue.task_done()


def _entry(
    exchange: Exchange,
    findings: Sequence[Finding],
    policy: RedactionPolicy | None,
    endpoints: Callable[[str, str], str],
    cassette: str | None,
    number: int | None,
    answered: Answered | None = None,
    accepted: Baseline = NO_BASELINE,
) -> Entry:
    """One exchange redacted (when a policy is given: it was not yet) as the index keeps it, with the
    findings `check` would report of it (none the project's baseline accepts)."""
    shown = redact_exchange(exchange, policy) if policy is not None else exchange
    request = shown.request
    if accepted.keys:
        findings = [finding for finding in findings if not accepted.accepts(finding)]
    return entry_of(
        shown,
        scrubbed(findings),
        cassette=cassette,
        index=number if cassette is not None else None,  # an index is a place in a cassette (not spy's)
        endpoint=endpoints(request.method, request.path),
        answered=answered,
    )


def rules_of(in_force: RulesInForce) -> frozenset[str]:
    """Every rule a finding of these rules can name: the rule set's and the published contract's."""
    return frozenset(rule.id for rule in in_force.ruleset.rules) | frozenset(CONTRACT_RULE_IDS)


def _salt(in_force: RulesInForce, accepted: Baseline) -> str:
    """What an offline index depends on besides its sources: this version, the rules, the config and
    the findings its baseline accepts."""
    rules = [(rule.id, rule.severity, rule.check, repr(rule.params)) for rule in in_force.ruleset.rules]
    config = (repr(in_force.project.config), repr(in_force.project.redaction), sorted(accepted.keys))
    text = repr((__version__, rules, *config))
    return hashlib.sha256(text.encode()).hexdigest()
