"""Replay's answers served before anyone opened the UI: the latest `BACKLOG`, kept unmade.

Making and indexing a replayed answer for the UI (the exchange, its redaction, its row and body text in
SQLite) costs about ten times serving it, so a replay nobody looks at would spend nine tenths of its time
on a page never opened. Until a page first asks, each answer is one append to a bounded deque (memory
stays flat however long it serves); then a thread of its own hands what it holds to the view, in the
order served, while later answers still queue behind, and steps aside once it holds none: from then on
answers go to the view directly, as record's and spy's do. Every answer is either given to the view or
counted in `left_out`, which `api/info` tells the page (it says the list starts later than the run).
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from proxy.app.live_traffic import Made

log = logging.getLogger(__name__)
BACKLOG = 10_000  # answers kept for a page not yet opened
BACKLOG_BYTES = 16 << 20  # and at most this much of their bodies: an answer rewritten per request (its
# links moved to each Host asked) is a body of its own, and 10,000 answers of 64 KB would be 640 MB
HANDED_AT_ONCE = 64  # answers moved to the view per turn of the handing thread


class Backlog:
    """The answers held until the view exists, handed to it in order, then out of the way."""

    def __init__(self, most: int = BACKLOG, most_bytes: int = BACKLOG_BYTES) -> None:
        self._held: deque[Made] = deque()
        self._sizes: deque[int] = deque()  # each held answer's size, in step with `_held`
        self._most, self._most_bytes, self._bytes = most, most_bytes, 0
        self._lock = threading.Lock()
        self._taking = True  # answers are held (no view yet, or it is still being handed what is held)
        self._closed = False
        self._thread: threading.Thread | None = None
        self.held_in_all = 0  # answers ever held, the ones the bound let go too
        self._left_out = 0  # answers held, never given to the view: the bound (or its failure) let go

    def hold(self, made: Made, size: int = 0) -> bool:
        """Keep `made` (about `size` bytes of bodies) while answers are held; False: it goes to the view
        directly. The oldest held go (counted in `left_out`) past `most` answers or `most_bytes`."""
        if not self._taking:  # the common case once handed over: no lock
            return False
        with self._lock:
            if not self._taking:
                return False
            self._held.append(made)
            self._sizes.append(size)
            self._bytes += size
            self.held_in_all += 1
            while len(self._held) > 1 and (len(self._held) > self._most or self._bytes > self._most_bytes):
                self._held.popleft()
                self._bytes -= self._sizes.popleft()
                self._left_out += 1
            return True

    def hand_to(self, target: Callable[[Made], None]) -> None:
        """Hand what is held (and what comes meanwhile) to `target`, from a thread, then step aside."""
        with self._lock:
            if self._thread is not None or not self._taking:
                return
            if not self._held:
                self._taking = False
                return
            if self.held_in_all > len(self._held):
                log.info(
                    "the UI shows the last %d of the %d answers served before it was first opened",
                    len(self._held),
                    self.held_in_all,
                )
            self._thread = threading.Thread(
                target=self._hand, args=(target,), name="commerce-proxy-ui-backlog", daemon=True
            )
        self._thread.start()

    def _hand(self, target: Callable[[Made], None]) -> None:
        turn: list[Made] = []
        given = 0  # of `turn`, the answers `target` took
        try:
            while True:
                with self._lock:
                    if self._closed or not self._held:
                        return
                    count = min(HANDED_AT_ONCE, len(self._held))
                    turn = [self._held.popleft() for _ in range(count)]
                    self._bytes -= sum(self._sizes.popleft() for _ in range(count))
                    given = 0
                for made in turn:
                    target(made)
                    given += 1
        finally:  # however it ends (a failure too), answers go to the view directly from now on
            with self._lock:
                self._taking = False
                if not self._closed:  # a failure of the view: what it did not take is left out
                    self._left_out += len(turn) - given + len(self._held)
                self._held.clear()
                self._sizes.clear()
                self._bytes = 0

    def left_out(self) -> int:
        """How many answers held were never given to the view (`api/info`'s `left_out`)."""
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
            self._sizes.clear()
            self._bytes = 0
        if self._thread is not None:
            self._thread.join(timeout=5)
