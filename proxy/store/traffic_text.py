"""The body text of a large offline index, searched once it is all in: put into the FTS5 table after the
rows, by a thread of its own, so the list, its filters, counts and exchanges answer first.

Tokenizing body text into trigrams is most of what SQLite does for an index (about 70 us of a 1 KB
exchange, as much as checking it), and it ran beside the checking on the same two cores. While the
rows are built, each exchange's text goes to a plain table in a second private temporary database
(attached with the empty file name: its file unlinked as soon as it is made, like the index's, and gone
when detached); then this thread copies it into the FTS table in chunks, in
SQL alone (SQLite runs without the interpreter's lock), each under the index's lock so a page's read
waits at most one chunk. Until the last chunk is in, a text filter is refused (`StillIndexing`: the
page says so), never answered from part of the text.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable

CHUNK = 2000  # exchanges a transaction of the fill (about 0.15 s: what a read may wait)


def attach_pending(connection: sqlite3.Connection) -> None:
    """A new private temporary database of pending text, attached to `connection` as `pending`."""
    connection.execute("ATTACH DATABASE '' AS pending")
    connection.execute("PRAGMA pending.journal_mode = OFF")  # scratch, gone when detached
    connection.execute("PRAGMA pending.synchronous = OFF")
    connection.execute("CREATE TABLE pending.texts(id INTEGER PRIMARY KEY, request TEXT, response TEXT)")
    # The fill's chunks each make a segment of the text index; FTS5 merges them four at a time by
    # default. Eight at a time costs about a quarter less to fill (64 -> 48 us an exchange, 30,000 of
    # the bench's, three rounds), and a query still reads only a few segments a level.
    with connection:  # committed here: an open transaction would keep `pending` from being detached
        connection.execute("INSERT INTO bodies(bodies, rank) VALUES ('automerge', 8)")


def fill_chunk(connection: sqlite3.Connection, last: int, most: int | None = None) -> int:
    """Move the pending text of the next `most` (default CHUNK) exchanges after id `last` into the FTS
    table, in one transaction; the last id moved (`last` when none was left)."""
    (upto,) = connection.execute(
        "SELECT coalesce(max(id), ?) FROM (SELECT id FROM pending.texts WHERE id > ? ORDER BY id LIMIT ?)",
        (last, last, most or CHUNK),
    ).fetchone()
    if upto != last:
        with connection:
            connection.execute(
                "INSERT INTO bodies(rowid, request, response) SELECT id, request, response "
                "FROM pending.texts WHERE id > ? AND id <= ? ORDER BY id",
                (last, upto),
            )
    return int(upto)


class TextFill:
    """The thread that runs `step` (a chunk moved: the last id done, unchanged when all is in) until the
    text is all in (`here`: the caller runs it); `ready` is set then, and `then` run. A failure (a full
    disk) leaves text search refused, `error` saying why."""

    def __init__(
        self, step: Callable[[int], int], total: int, then: Callable[[], object], here: bool = False
    ) -> None:
        self.total = total  # the last id with text to index, at most
        self.done = 0  # the last id whose text is in
        self.ready = threading.Event()
        self.error: str | None = None
        self._step, self._then = step, then
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        if here:  # a few chunks: run by the caller, done when this returns
            self._run()
        else:
            self._thread = threading.Thread(target=self._run, name="commerce-proxy-ui-text", daemon=True)
            self._thread.start()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until the text is all in (or the fill ended); whether it is."""
        if self._thread is not None:
            self._thread.join(timeout)
        return self.ready.is_set()

    def stop(self) -> None:
        """Stop between two chunks and wait for the thread."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                found = self._step(self.done)
                if found == self.done:
                    break
                self.done = found
        except (sqlite3.Error, OSError) as error:  # a full disk...: said, not raised
            self.error = str(error)
            return
        if not self._stop.is_set():
            self.ready.set()
            self._then()
