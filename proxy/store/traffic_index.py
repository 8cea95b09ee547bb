"""The UI's index of the traffic: SQLite, with an FTS5 table over body text, so a page asks for one
window of rows, counts or one exchange's detail, and never holds the whole traffic (nor does this
process). With `traffic_cache.py` (which opens a cached one read-only), the only module that opens it.

What goes in is already redacted: the caller (`app/traffic_view.py`) redacts every exchange before it
becomes an `Entry`. Filters are compiled from a parsed `Query` into SQL with parameters
(`traffic_query.py`); no user text is ever part of the SQL. A live server's index, and an offline
one while it is built, is SQLite's private temporary database (`temporary_index`): its file is removed
from the temporary folder as soon as it is opened, so no ending of the process (a crash, SIGKILL)
leaves it behind; an offline one is then kept in the cache (`traffic_cache.py`).
"""

from __future__ import annotations

import contextlib
import functools
import json
import sqlite3
import threading
import typing
from array import array
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from proxy.core.ui.query import Query
from proxy.errors import CommerceProxyError, StillIndexing
from proxy.store.traffic_entries import (
    ROW_COLUMNS,
    Entry,
    Prepared,
    prepared,
    row_document,
    unpacked,
)
from proxy.store.traffic_matches import CHUNK, Backlog, Key, counts_between, first_rows, ids_between, summed
from proxy.store.traffic_query import compiled
from proxy.store.traffic_text import TextFill, attach_pending, fill_chunk

SCHEMA_VERSION = 3  # 2: detail documents stored compressed; 3: with zstd, not zlib
MATCHING_KEPT = 4  # filters whose matching ids are kept (8 bytes an id: 8 MB for a million)
# Exchanges of a live index's text put into the text index at once (about 0.1 s of 4 KB exchanges on a
# loaded machine): what the first text filter does itself, if that is all, else a chunk of the fill's
# thread. A live server's writer thread waits for a chunk, and, `WRITER_WAITING` batches behind,
# its loop.
LIVE_TEXT_CHUNK = 250
BACKUP_PAGES = 4096  # pages of a backup step (16 MB: a few ms, what a read may wait)
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

    def __init__(self, connection: sqlite3.Connection, path: Path | None) -> None:
        self._db = connection
        self.lock = threading.RLock()
        self._pending = False  # body text kept aside until `fill_text` (`defer_text`)
        self._fill_when_asked = False  # the first text filter starts `fill_text` (a live view)
        self._text_chunk: int | None = None  # exchanges a chunk of the fill (None: the offline CHUNK)
        self._fill: TextFill | None = None
        self.path = path  # None: a temporary index, with no name (`temporary_index`)
        self.name = str(path) if path is not None else "the UI's temporary index"
        self.cursor: int = self._db.execute("SELECT coalesce(max(id), 0) FROM exchanges").fetchone()[0]
        # The ids matching the last few filters, as of `cursor`: a scroll through a filtered view is a
        # slice of them, however deep (an OFFSET would read every row before it), and its total their
        # number. The index only grows (ids follow on), so a list is brought up to date by asking for
        # the ids past the cursor it was made at. Whatever removes or renumbers rows must `forget()`.
        self._matching: OrderedDict[tuple[str, tuple[Any, ...]], tuple[int, array[int]]] = OrderedDict()
        self._counted: OrderedDict[tuple[str, tuple[Any, ...]], tuple[int, dict[str, Any]]] = OrderedDict()
        # Totals and counts a reader did not wait for, built a chunk at a time (`traffic_matches.py`).
        self._backlog = Backlog(self._build, MATCHING_KEPT)

    def defer_text(self, until_asked: bool = False) -> None:
        """From now on, keep the bodies' text aside (`traffic_text.py`) until `fill_text`, or, with
        `until_asked`, until the first text filter starts it (`_text_searchable`): a live view whose
        page never searches the text never pays for tokenizing it."""
        if self.path is None and not self._pending:
            attach_pending(self._db)
            self._pending = True
            self._fill_when_asked = until_asked
            self._text_chunk = LIVE_TEXT_CHUNK if until_asked else None

    @contextlib.contextmanager
    def free(self) -> Iterator[bool]:
        """Whether the index's lock is free now, held for the block when it is: the server's loop asks
        so, never to wait for a fill's chunk or a large filter's step."""
        got = self.lock.acquire(blocking=False)
        try:
            yield got
        finally:
            if got:
                self.lock.release()

    @property
    def adds_are_light(self) -> bool:
        """Whether adding is light work: the bodies' text is kept aside for a first text filter not yet
        asked (about 17 us a 4 KB exchange), not tokenized into the text index (about 230 us) nor
        waiting behind a fill's chunk."""
        return self._fill_when_asked

    def fill_text(self, then: Callable[[], object], at_once: bool) -> None:
        """Put the text kept aside into the text index, then run `then`: here and now (`at_once`), else
        by a thread of its own, text filters refused until it is done."""
        if not self._pending:
            then()
            return
        self._fill = TextFill(self._fill_chunk, self.cursor, then)
        if at_once:
            self._fill.wait()
            if self._fill.error is not None:
                raise CommerceProxyError(f"{self.name}: cannot index the bodies' text: {self._fill.error}")

    def text_wait(self, timeout: float | None = None) -> bool:
        """Wait until the bodies' text is searchable (at most `timeout` seconds); whether it is."""
        return self._fill is None or self._fill.wait(timeout)

    @_locked
    def _fill_chunk(self, last: int) -> int:
        done = fill_chunk(self._db, last, self._text_chunk)
        if done == last and self._pending:  # all in: the pending database (and its space) goes
            self._db.execute("DETACH DATABASE pending")
            self._pending = False
        return done

    @_locked
    def _text_searchable(self) -> None:
        """Raise `StillIndexing` while the bodies' text is not all in the text index. The first text
        filter of an index whose text waits to be asked for puts it in: here and now when it is at
        most one chunk (`LIVE_TEXT_CHUNK`), else by the fill's thread, refused meanwhile; from then on
        each exchange's text goes to the text index as it is added."""
        if self._fill_when_asked:
            self._fill_when_asked = False
            here = self.cursor <= (self._text_chunk or 0)
            self._fill = TextFill(self._fill_chunk, self.cursor, _nothing, here=here)
        fill = self._fill
        if fill is not None and not fill.ready.is_set():
            if fill.error is not None:
                raise CommerceProxyError(f"text search is unavailable: {fill.error}")
            raise StillIndexing(
                f"the bodies' text is still being indexed ({fill.done:,} of {self.cursor:,} exchanges): "
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
                    f"INSERT INTO exchanges({ROW_COLUMNS}, route) VALUES ({_marks(17)})", rows
                )
                self._db.executemany("INSERT INTO details VALUES (?, ?)", details)
                self._db.executemany("INSERT INTO findings VALUES (?, ?)", findings)
                self._db.executemany(
                    "INSERT INTO pending.texts(id, request, response) VALUES (?, ?, ?)"
                    if self._pending
                    else "INSERT INTO bodies(rowid, request, response) VALUES (?, ?, ?)",
                    bodies,
                )
        except sqlite3.Error as error:  # a full disk...: one line, the index as it was
            raise CommerceProxyError(f"{self.name}: cannot add to the UI's index: {error}") from None
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
            rows = [row_document(row) for row in first_rows(self._db, ROW_COLUMNS, key, offset, limit)]
            total = offset + len(rows) if len(rows) < limit and (rows or offset == 0) else None
        if total is None:
            self._backlog.want(("ids", key))
        at_least = max(len(ids), offset + len(rows) if rows else 0)
        return total, total if total is not None else at_least, rows

    def _whole(self, offset: int, limit: int) -> list[dict[str, Any]]:
        # Row `offset` is id `offset + 1`, and the count the last id: an OFFSET, or a count(*), would
        # read every row before it (260 ms a deep window at 1,000,000).
        found = self._db.execute(
            f"SELECT {ROW_COLUMNS} FROM exchanges WHERE id > ? ORDER BY id LIMIT ?", (offset, limit)
        )
        return [row_document(row) for row in found]

    def _rows_of(self, chosen: list[int]) -> list[dict[str, Any]]:
        if not chosen:
            return []
        found = self._db.execute(
            f"SELECT {ROW_COLUMNS} FROM exchanges WHERE id IN ({_marks(len(chosen))}) ORDER BY id", chosen
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
            f"SELECT {ROW_COLUMNS} FROM exchanges WHERE id > ? ORDER BY id LIMIT ?", (cursor, max(0, limit))
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
        if not 0 < number < 1 << 63:  # past SQLite's INTEGER: no row has it (and binding it raises)
            return None
        row = self._db.execute(f"SELECT {ROW_COLUMNS} FROM exchanges WHERE id = ?", (number,)).fetchone()
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
        """Close it (a text fill under way is stopped first); a temporary index is gone with it."""
        self._backlog.stop()
        if self._fill is not None:
            self._fill.stop()
        with self.lock:
            self._db.close()

    @_locked
    def size(self) -> int:
        """The bytes its database holds (a temporary index has no file to look at)."""
        pages = self._db.execute("PRAGMA page_count").fetchone()[0]
        return int(pages) * int(self._db.execute("PRAGMA page_size").fetchone()[0])

    def backup(self, target: sqlite3.Connection) -> None:
        """Copy the whole database into `target` with SQLite's online backup (a temporary index has no
        file to copy), BACKUP_PAGES at a time, the lock let go between two steps: a page's read waits
        at most one step, as with the text fill's chunks."""

        def between(status: int, remaining: int, total: int) -> None:
            self.lock.release()
            self.lock.acquire()

        with self.lock:
            self._db.backup(target, pages=BACKUP_PAGES, progress=between)


def temporary_index() -> TrafficIndex:
    """A new, empty index in SQLite's private temporary database (the empty file name): SQLite's unix
    VFS makes its file (0600, in SQLITE_TMPDIR or TMPDIR) and unlinks it at once, keeping only the
    open descriptor, so the file goes with the process however it ends, a SIGKILL or a crash too;
    pages past the cache are written there (not held in memory), as they were to a named file."""
    return TrafficIndex(_created(), None)


def _created() -> sqlite3.Connection:
    connection = sqlite3.connect("", isolation_level=None, check_same_thread=False)
    connection.isolation_level = "DEFERRED"  # `with connection:` is one transaction
    connection.execute("PRAGMA journal_mode = OFF")  # a scratch file: rebuilt, never repaired
    connection.execute("PRAGMA synchronous = OFF")
    connection.executescript(_SCHEMA)
    connection.execute("INSERT INTO about VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
    connection.commit()
    return connection


def _nothing() -> None:
    """What follows a fill the first text filter started: nothing (the filter is asked again)."""


def _marks(count: int) -> str:
    return ", ".join("?" * count)
