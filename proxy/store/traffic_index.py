"""The UI's index of the traffic: SQLite, with an FTS5 table over body text, so a page asks for one
window of rows, counts or one exchange's detail, and never holds the whole traffic (nor does this
process). With `traffic_cache.py` (which opens a cached one read-only), the only module that opens it.

What goes in is already redacted: the caller (`app/traffic_view.py`) redacts every exchange before it
becomes an `Entry`. Filters are compiled from a parsed `Query` into SQL with parameters
(`traffic_query.py`); no user text is ever part of the SQL. A live server's index is a private
temporary file (0600) removed at close; an offline one is kept in the cache (`traffic_cache.py`).
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import sqlite3
import tempfile
import threading
import typing
from array import array
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import orjson
import zstandard

from proxy.core.ui.query import Query
from proxy.errors import CommerceProxyError, StillIndexing
from proxy.store.traffic_matches import CHUNK, Backlog, Key, counts_between, first_rows, ids_between, summed
from proxy.store.traffic_query import compiled
from proxy.store.traffic_text import TextFill, attach_pending, fill_chunk

SCHEMA_VERSION = 3  # 2: detail documents stored compressed; 3: with zstd, not zlib
MATCHING_KEPT = 4  # filters whose matching ids are kept (8 bytes an id: 8 MB for a million)
BODY_TEXT_LONGEST = 1 << 20  # characters of each body the text search sees
_SCHEMA = """
CREATE TABLE exchanges(
    id INTEGER PRIMARY KEY, cassette TEXT, idx INTEGER, method TEXT NOT NULL, target TEXT NOT NULL,
    route TEXT NOT NULL, status INTEGER, time TEXT, duration REAL, size INTEGER NOT NULL, endpoint TEXT,
    errors INTEGER NOT NULL, warnings INTEGER NOT NULL, infos INTEGER NOT NULL,
    answered_by TEXT, recording TEXT, answered_detail TEXT);
CREATE TABLE details(id INTEGER PRIMARY KEY, document BLOB NOT NULL);
CREATE TABLE findings(exchange INTEGER NOT NULL, rule TEXT NOT NULL, PRIMARY KEY (rule, exchange))
    WITHOUT ROWID;
CREATE VIRTUAL TABLE bodies USING fts5(request, response, tokenize='trigram', content='');
CREATE TABLE about(key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""
_ROW_COLUMNS = (
    "id, cassette, idx, method, target, status, time, duration, size, endpoint, errors, warnings, infos, "
    "answered_by, recording, answered_detail"
)


@dataclass(frozen=True, slots=True)
class Answered:
    """How replay answered a request: by "recording", "simulated", "fault", "miss" or "upstream";
    `recording` "cassette#index" when a recording did; `detail` the near-miss text of a miss."""

    by: str
    recording: str | None = None
    detail: str | None = None


@dataclass(frozen=True, slots=True)
class Entry:
    """One exchange as the index keeps it, redacted: its row's fields, the distinct rules it broke,
    the text of its bodies for the search, and its detail document (stored as zlib-compressed JSON:
    the detail is most of an index's size; a test of the file for secrets decompresses every one)."""

    method: str
    target: str  # path and query, as sent
    route: str  # the path alone, which `path` patterns match
    size: int
    cassette: str | None = None
    index: int | None = None
    status: int | None = None
    time: str | None = None
    duration_ms: float | None = None
    endpoint: str | None = None
    severities: tuple[int, int, int] = (0, 0, 0)  # errors, warnings, infos
    rules: frozenset[str] = frozenset()
    answered: Answered | None = None
    request_text: str = ""
    response_text: str = ""
    detail: dict[str, Any] = field(default_factory=dict)


_Method = TypeVar("_Method", bound=Callable[..., Any])


def _locked(method: _Method) -> _Method:
    """A method of the index run under its lock (its body text may be filled by a thread of its own)."""

    @functools.wraps(method)
    def run(self: TrafficIndex, *arguments: Any, **named: Any) -> Any:
        with self.lock:
            return method(self, *arguments, **named)

    return run  # type: ignore[return-value]


class TrafficIndex:
    """An open index. Its own lock keeps its users (the server's loop, an indexing thread, the text
    fill) apart."""

    def __init__(self, connection: sqlite3.Connection, path: Path, owned: bool) -> None:
        self._db = connection
        self.lock = threading.RLock()
        self._pending: Path | None = None  # body text kept aside until `fill_text` (`defer_text`)
        self._fill: TextFill | None = None
        self.path = path
        self._owned = owned  # a private temporary file, removed at close
        self.cursor: int = self._db.execute("SELECT coalesce(max(id), 0) FROM exchanges").fetchone()[0]
        # The ids matching the last few filters, as of `cursor`: a scroll through a filtered view is a
        # slice of them, however deep (an OFFSET would read every row before it), and its total their
        # number. The index only grows (ids follow on), so a list is brought up to date by asking for
        # the ids past the cursor it was made at. Whatever removes or renumbers rows must `forget()`.
        self._matching: OrderedDict[tuple[str, tuple[Any, ...]], tuple[int, array[int]]] = OrderedDict()
        self._counted: OrderedDict[tuple[str, tuple[Any, ...]], tuple[int, dict[str, Any]]] = OrderedDict()
        # Totals and counts a reader did not wait for, built a chunk at a time (`traffic_matches.py`).
        self._backlog = Backlog(self._build, MATCHING_KEPT)

    def defer_text(self) -> None:
        """From now on, keep the bodies' text aside (`traffic_text.py`) until `fill_text`."""
        if self._owned and self._pending is None:
            self._pending = attach_pending(self._db, self.path.parent)

    def fill_text(self, then: Callable[[], object], at_once: bool) -> None:
        """Put the text kept aside into the text index, then run `then`: here and now (`at_once`), else
        by a thread of its own, text filters refused until it is done."""
        if self._pending is None:
            then()
            return
        self._fill = TextFill(self._fill_chunk, self.cursor, then)
        if at_once:
            self._fill.wait()
            if self._fill.error is not None:
                raise CommerceProxyError(f"{self.path}: cannot index the bodies' text: {self._fill.error}")

    def text_wait(self, timeout: float | None = None) -> bool:
        """Wait until the bodies' text is searchable (at most `timeout` seconds); whether it is."""
        return self._fill is None or self._fill.wait(timeout)

    @_locked
    def _fill_chunk(self, last: int) -> int:
        done = fill_chunk(self._db, last)
        if done == last and self._pending is not None:  # all in: the pending file goes
            self._db.execute("DETACH DATABASE pending")
            with contextlib.suppress(OSError):
                self._pending.unlink()
            self._pending = None
        return done

    def _text_searchable(self) -> None:
        """Raise `StillIndexing` while the bodies' text is not all in the text index."""
        fill = self._fill
        if fill is not None and not fill.ready.is_set():
            if fill.error is not None:
                raise CommerceProxyError(f"text search is unavailable: {fill.error}")
            raise StillIndexing(
                f"the bodies' text is still being indexed ({fill.done:,} of {fill.total:,} exchanges): "
                "text search answers when it is done"
            )

    def add(self, entries: Iterable[Entry]) -> int:
        """Append entries in one transaction (ids follow on); the new cursor (the last id)."""
        return self.add_prepared([prepared(entry) for entry in entries])

    @_locked
    def add_prepared(self, items: Iterable[Prepared]) -> int:
        """Append entries `prepared` already (by another process, maybe) in one transaction."""
        rows: list[tuple[Any, ...]] = []
        details: list[tuple[int, bytes]] = []
        findings: list[tuple[int, str]] = []
        bodies: list[tuple[int, str, str]] = []
        number = self.cursor
        for row, detail, rules, request_text, response_text in items:
            number += 1
            rows.append((number, *row))
            details.append((number, detail))
            findings.extend((number, rule) for rule in rules)
            if request_text or response_text:
                bodies.append((number, request_text, response_text))
        if not rows:
            return self.cursor
        try:
            with self._db:
                self._db.executemany(
                    f"INSERT INTO exchanges({_ROW_COLUMNS}, route) VALUES ({_marks(17)})", rows
                )
                self._db.executemany("INSERT INTO details VALUES (?, ?)", details)
                self._db.executemany("INSERT INTO findings VALUES (?, ?)", findings)
                self._db.executemany(
                    "INSERT INTO pending.texts(id, request, response) VALUES (?, ?, ?)"
                    if self._pending is not None
                    else "INSERT INTO bodies(rowid, request, response) VALUES (?, ?, ?)",
                    bodies,
                )
        except sqlite3.Error as error:  # a full disk...: one line, the index as it was
            raise CommerceProxyError(f"{self.path}: cannot add to the UI's index: {error}") from None
        self.cursor = number
        return self.cursor

    @_locked
    def window(self, query: Query, offset: int, limit: int) -> tuple[int, list[dict[str, Any]]]:
        """How many rows match, and the rows from `offset` (in index order), at most `limit`: the
        total waited for (`window_now` answers without it)."""
        offset, limit = max(0, offset), max(0, limit)
        if compiled(query)[0] == "1":  # the whole traffic: ids run from 1 with no gap
            return self.cursor, self._whole(offset, limit)
        ids = self.matching(query)
        return len(ids), self._rows_of(ids[offset : offset + limit].tolist())

    @_locked
    def window_now(
        self, query: Query, offset: int, limit: int
    ) -> tuple[int | None, int, list[dict[str, Any]]]:
        """The rows from `offset`, at most `limit`, and the total when it is known (else None, and the
        `Backlog` set to count it), with how many rows are known to match at least: a large filter's
        first window comes from the first matches alone, its total later."""
        offset, limit = max(0, offset), max(0, limit)
        key = compiled(query)
        if key[0] == "1":
            return self.cursor, self.cursor, self._whole(offset, limit)
        if query.text is not None:
            self._text_searchable()
        ids, done = self._matching_step(key, CHUNK, whole=True)
        if done or offset + limit <= len(ids):
            rows = self._rows_of(ids[offset : offset + limit].tolist())
            total = len(ids) if done else None
        else:
            rows = [row_document(row) for row in first_rows(self._db, _ROW_COLUMNS, key, offset, limit)]
            total = offset + len(rows) if len(rows) < limit and (rows or offset == 0) else None
        if total is None:
            self._backlog.want(("ids", key))
        at_least = max(len(ids), offset + len(rows) if rows else 0)
        return total, total if total is not None else at_least, rows

    def _whole(self, offset: int, limit: int) -> list[dict[str, Any]]:
        # Row `offset` is id `offset + 1`, and the count the last id: an OFFSET, or a count(*), would
        # read every row before it (260 ms a deep window at 1,000,000).
        found = self._db.execute(
            f"SELECT {_ROW_COLUMNS} FROM exchanges WHERE id > ? ORDER BY id LIMIT ?", (offset, limit)
        )
        return [row_document(row) for row in found]

    def _rows_of(self, chosen: list[int]) -> list[dict[str, Any]]:
        if not chosen:
            return []
        found = self._db.execute(
            f"SELECT {_ROW_COLUMNS} FROM exchanges WHERE id IN ({_marks(len(chosen))}) ORDER BY id", chosen
        )
        return [row_document(row) for row in found]

    @_locked
    def matching(self, query: Query) -> array[int]:
        """The ids of the rows matching `query`, in order (kept for the last MATCHING_KEPT filters)."""
        if query.text is not None:
            self._text_searchable()
        return self._matching_step(compiled(query), None)[0]

    @_locked
    def _matching_step(self, key: Key, most: int | None, whole: bool = False) -> tuple[array[int], bool]:
        """The filter's kept ids, brought up to date by at most `most` ids more (None: all; `whole`:
        none unless that brings them up to date: a reader leaves the rest to the `Backlog`), and whether
        they are (the list is kept as far as it got: a scroll within it needs no more)."""
        kept = self._matching.pop(key, None)
        since, ids = kept if kept is not None else (0, array("q"))
        until = self.cursor if most is None else min(self.cursor, since + most)
        if whole and until < self.cursor:
            until = since
        if until > since:
            found = ids_between(self._db, key, since, until)
            ids = array("q", ids)
            while rows := found.fetchmany(65536):
                ids.extend(number for (number,) in rows)
        self._matching[key] = (until, ids)
        while len(self._matching) > MATCHING_KEPT:
            self._matching.popitem(last=False)
        return ids, until == self.cursor

    def totals_wait(self, timeout: float) -> bool:
        """Wait until the totals and counts readers left to be built are (at most `timeout` seconds)."""
        return self._backlog.idle(timeout)

    def forget(self) -> None:
        """Drop the kept lists of matching ids and counts (after rows were removed or renumbered)."""
        self._matching.clear()
        self._counted.clear()

    @_locked
    def after(self, cursor: int, limit: int) -> list[dict[str, Any]]:
        """The rows added after `cursor` (an id), in order, at most `limit`."""
        found = self._db.execute(
            f"SELECT {_ROW_COLUMNS} FROM exchanges WHERE id > ? ORDER BY id LIMIT ?", (cursor, max(0, limit))
        )
        return [row_document(row) for row in found]

    @_locked
    def counts(self, query: Query) -> dict[str, Any]:
        """For the matching exchanges: how many, and how many of them have a finding of each rule, of
        each severity, and hit each endpoint. Kept for the last few filters and brought up to date
        past the cursor they were counted at (every count is a sum over rows); the whole traffic's
        counts of a cached index were counted when it was built."""
        if query.text is not None:
            self._text_searchable()
        known, _ = self._counts_step(compiled(query), None)
        copy: dict[str, Any] = json.loads(json.dumps(known))  # the caller's own
        return copy

    @_locked
    def counts_now(self, query: Query) -> dict[str, Any] | None:
        """The counts when they are known, else None (and the `Backlog` set to count them)."""
        if query.text is not None:
            self._text_searchable()
        key = compiled(query)
        known, done = self._counts_step(key, CHUNK, whole=True)
        if not done:
            self._backlog.want(("counts", key))
            return None
        copy: dict[str, Any] = json.loads(json.dumps(known))
        return copy

    @_locked
    def _counts_step(self, key: Key, most: int | None, whole: bool = False) -> tuple[dict[str, Any], bool]:
        """The filter's kept counts brought up to date by at most `most` ids more (None: all; `whole`:
        none unless that brings them up to date), and whether they are."""
        kept = self._counted.pop(key, None)
        if kept is None and key[0] == "1":
            kept = self._stored_counts()
        since, known = kept if kept is not None else (0, None)
        until = self.cursor if most is None else min(self.cursor, since + most)
        if whole and until < self.cursor:
            if known is None:  # nothing counted yet: left to the `Backlog` whole
                return {}, False
            until = since
        if known is None or until > since:
            fresh = counts_between(self._db, key, since, until)
            known = fresh if known is None else summed(known, fresh)
        self._counted[key] = (until, known)
        while len(self._counted) > MATCHING_KEPT:
            self._counted.popitem(last=False)
        return known, until == self.cursor

    def _build(self, job: Hashable) -> bool:
        """One chunk of what a `window_now` or `counts_now` left to the `Backlog`: done or not."""
        kind, key = typing.cast(tuple[str, Key], job)
        if kind == "ids":
            return self._matching_step(key, CHUNK)[1]
        return self._counts_step(key, CHUNK)[1]

    def _stored_counts(self) -> tuple[int, dict[str, Any]] | None:
        """The whole traffic's counts noted when the index was built, with the cursor they are at."""
        with contextlib.suppress(TypeError, ValueError):
            cursor, counted = json.loads(self.about("counts") or "null")
            if isinstance(cursor, int) and isinstance(counted, dict) and cursor <= self.cursor:
                return cursor, counted
        return None

    @_locked
    def exchange(self, number: int) -> tuple[dict[str, Any], dict[str, Any]] | None:
        """One exchange's row and stored detail document, or None when there is no such id."""
        row = self._db.execute(f"SELECT {_ROW_COLUMNS} FROM exchanges WHERE id = ?", (number,)).fetchone()
        if row is None:
            return None
        (document,) = self._db.execute("SELECT document FROM details WHERE id = ?", (number,)).fetchone()
        return row_document(row), unpacked(document)

    @_locked
    def about(self, key: str) -> str | None:
        """A note kept with the index (its sources' names...)."""
        found = self._db.execute("SELECT value FROM about WHERE key = ?", (key,)).fetchone()
        return None if found is None else str(found[0])

    @_locked
    def note(self, key: str, value: str) -> None:
        with self._db:
            self._db.execute("INSERT OR REPLACE INTO about VALUES (?, ?)", (key, value))

    def close(self) -> None:
        """Close it (a text fill under way is stopped first); a private temporary index is removed."""
        self._backlog.stop()
        if self._fill is not None:
            self._fill.stop()
        with self.lock:
            self._db.close()
        if self._owned:
            with contextlib.suppress(OSError):
                if self._pending is not None:
                    self._pending.unlink()
                self.path.unlink()
                self.path.parent.rmdir()


# An entry as it is stored, less its id: its row, its packed detail, its rules, its bodies' text.
Prepared = tuple[tuple[Any, ...], bytes, tuple[str, ...], str, str]


def prepared(entry: Entry) -> Prepared:
    """What `add` stores of an entry (the detail packed), made where the entry is (a child process)."""
    answered = entry.answered
    row = (
        entry.cassette, entry.index, entry.method, entry.target, entry.status, entry.time,
        entry.duration_ms, entry.size, entry.endpoint, *entry.severities,
        answered.by if answered else None,
        answered.recording if answered else None,
        answered.detail if answered else None,
        entry.route,
    )  # fmt: skip
    return (
        row,
        packed(entry.detail),
        tuple(entry.rules),
        entry.request_text[:BODY_TEXT_LONGEST],
        entry.response_text[:BODY_TEXT_LONGEST],
    )


def packed(document: dict[str, Any]) -> bytes:
    """A detail document as stored: its JSON, compressed with zstd at level 1 (zlib's level 1 made
    about the same size in three times the time: 22 us of a 1 KB exchange's, a tenth of its build)."""
    try:
        text = orjson.dumps(document)  # a fifth of json's time
    except (orjson.JSONEncodeError, TypeError):  # a lone surrogate, an integer past 64 bits...
        text = json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode(
            "utf-8", "surrogatepass"
        )
    return _compressor().compress(text)


def unpacked(stored: bytes) -> dict[str, Any]:
    """A stored detail document back."""
    text = zstandard.ZstdDecompressor().decompress(stored)
    try:
        document: dict[str, Any] = orjson.loads(text)
    except orjson.JSONDecodeError:  # what only json wrote (a lone surrogate)
        document = json.loads(text.decode("utf-8", "surrogatepass"))
    return document


_COMPRESSORS = threading.local()  # a compressor is not thread-safe: the building and live threads


def _compressor() -> zstandard.ZstdCompressor:
    found: zstandard.ZstdCompressor | None = getattr(_COMPRESSORS, "one", None)
    if found is None:
        found = _COMPRESSORS.one = zstandard.ZstdCompressor(level=1)
    return found


def row_document(row: Sequence[Any]) -> dict[str, Any]:
    """A row of `_ROW_COLUMNS` as the API's row document."""
    (number, cassette, index, method, target, status, time, duration, size, endpoint, errors, warnings,
     infos, by, recording, detail) = row  # fmt: skip
    return {
        "id": number,
        "cassette": cassette,
        "index": index,
        "method": method,
        "path": target,
        "status": status,
        "time": time,
        "duration_ms": duration,
        "size": size,
        "endpoint": endpoint,
        "findings": {"error": errors, "warning": warnings, "info": infos},
        "answered": None if by is None else {"by": by, "recording": recording, "detail": detail},
    }


def temporary_index() -> TrafficIndex:
    """A new, empty index in a private temporary folder (0700, the file 0600), removed at close."""
    folder = Path(tempfile.mkdtemp(prefix="commerce-proxy-ui-"))
    path = folder / "traffic.sqlite"
    return TrafficIndex(_created(path), path, owned=True)


def _created(path: Path) -> sqlite3.Connection:
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600))
    connection = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    connection.isolation_level = "DEFERRED"  # `with connection:` is one transaction
    connection.execute("PRAGMA journal_mode = OFF")  # a scratch file: rebuilt, never repaired
    connection.execute("PRAGMA synchronous = OFF")
    connection.executescript(_SCHEMA)
    connection.execute("INSERT INTO about VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
    connection.commit()
    return connection


def _marks(count: int) -> str:
    return ", ".join("?" * count)
