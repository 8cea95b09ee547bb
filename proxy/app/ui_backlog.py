"""The traffic a live server saw before anyone opened its UI: the latest `BACKLOG` exchanges, held.

Making and indexing an exchange for the UI (its row, detail and body text in SQLite) costs replay about
ten times serving the answer, and `record` a third of its throughput, so a server nobody looks at would
spend that on a page never opened. Until a page first asks, each exchange (replay's answer still unmade,
a recording's as checked) is one append to a bounded deque (memory stays flat however long it serves);
then a thread of its own hands what it holds to the view, in order, while later exchanges still queue
behind, and steps aside once it holds none: from then on they go to the view directly. Every exchange is
either given to the view or counted in `left_out`, which `api/info` tells the page (it says the list
starts later than the run).
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable
from typing import Generic, TypeVar

log = logging.getLogger(__name__)
BACKLOG = 10_000  # exchanges kept for a page not yet opened
BACKLOG_BYTES = 16 << 20  # and at most this much of their bodies: an answer rewritten per request (its
# links moved to each Host asked) is a body of its own, and 10,000 answers of 64 KB would be 640 MB
HANDED_AT_ONCE = 64  # exchanges moved to the view per turn of the handing thread

Held = TypeVar("Held")  # what a server holds of one exchange: replay's `Made`, a recording's `Checked`


class Backlog(Generic[Held]):
    """The exchanges held until the view exists, handed to it in order, then out of the way."""

    def __init__(self, most: int = BACKLOG, most_bytes: int = BACKLOG_BYTES) -> None:
        self._held: deque[tuple[Held, int]] = deque()  # each with its size in bytes
        self._most, self._most_bytes, self._bytes = most, most_bytes, 0
        self._lock = threading.Lock()
        self._taking = True  # exchanges are held (no view yet, or it is still being handed what is held)
        self._closed = False
        self._thread: threading.Thread | None = None
        self.held_in_all = 0  # exchanges ever held, the ones the bound let go too
        self._left_out = 0  # exchanges held, never given to the view: the bound (or its failure) let go

    @property
    def holding(self) -> bool:
        """Whether exchanges are still held (read without the lock: `hold` decides under it)."""
        return self._taking

    def hold(self, item: Held, size: int = 0) -> bool:
        """Keep `item` (about `size` bytes of bodies) while exchanges are held; False: it goes to the
        view directly. The oldest held go (counted in `left_out`) past `most` exchanges or `most_bytes`."""
        if not self._taking:  # the common case once handed over: no lock
            return False
        with self._lock:
            if not self._taking:
                return False
            self._held.append((item, size))
            self._bytes += size
            self.held_in_all += 1
            while len(self._held) > 1 and (len(self._held) > self._most or self._bytes > self._most_bytes):
                self._bytes -= self._held.popleft()[1]
                self._left_out += 1
            return True

    def hand_to(self, target: Callable[[Held], None]) -> None:
        """Hand what is held (and what comes meanwhile) to `target`, from a thread, then step aside."""
        with self._lock:
            if self._thread is not None or not self._taking:
                return
            if not self._held:
                self._taking = False
                return
            if self._left_out:  # the number `api/info` gives as `left_out` (exchanges still come)
                log.info(
                    "the UI leaves out the first %d exchanges, of the %d before it was first opened",
                    self._left_out,
                    self.held_in_all,
                )
            self._thread = threading.Thread(
                target=self._hand, args=(target,), name="commerce-proxy-ui-backlog", daemon=True
            )
        self._thread.start()

    def _hand(self, target: Callable[[Held], None]) -> None:
        turn: list[Held] = []
        given = 0  # of `turn`, the exchanges `target` took
        try:
            while True:
                with self._lock:
                    if self._closed or not self._held:
                        return
                    count = min(HANDED_AT_ONCE, len(self._held))
                    pairs = [self._held.popleft() for _ in range(count)]
                    self._bytes -= sum(size for _, size in pairs)
                    turn = [item for item, _ in pairs]
                    given = 0
                for item in turn:
                    target(item)
                    given += 1
        finally:  # however it ends (a failure too), exchanges go to the view directly from now on
            with self._lock:
                self._taking = False
                if not self._closed:  # a failure of the view: what it did not take is left out
                    self._left_out += len(turn) - given + len(self._held)
                self._held.clear()
                self._bytes = 0

    def left_out(self) -> int:
        """How many exchanges held were never given to the view (`api/info`'s `left_out`)."""
        return self._left_out

    def wait(self, timeout: float) -> bool:
        """Wait until everything held was handed over (at most `timeout` seconds); whether it was."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
        return not self._taking or (thread is None and not self._held)

    def close(self) -> None:
        """Drop what is held and hold nothing more; the handing thread ends."""
        with self._lock:
            self._closed, self._taking = True, False
            self._held.clear()
            self._bytes = 0
        if self._thread is not None:
            self._thread.join(timeout=5)
