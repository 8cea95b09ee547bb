"""Cleanup a signal cannot cut in half: removing a scratch folder, putting a written file in place.

A handler that raises (Python's for SIGINT, the ones the command line and the pytest plugin set for
SIGTERM, SIGHUP and SIGQUIT) raises wherever the main thread is: inside `shutil.rmtree` it leaves half
a folder, between a temporary file's link and its rename a stray file; a signal's default action ends
the process there.
Inside `uninterrupted()` those signals are noted instead, and acted on as the block ends: each noted one
goes to the handler it would have gone to (a loop's handler has its wakeup byte already), or, where
that was the default action, is raised again. The process still stops, with nothing left behind.
A raising handler raises as the block ends, so a block holds only the last step of a cleanup: after it,
nothing is owed.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

HELD_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT") if hasattr(signal, name)
)


@contextmanager
def uninterrupted() -> Iterator[None]:
    """Run the block with SIGINT, SIGTERM, SIGHUP and SIGQUIT held, then act on those that came, once each."""
    if threading.current_thread() is not threading.main_thread():
        yield  # handlers run in the main thread only: none can raise into this one
        return
    noted: list[int] = []

    def note(number: int, frame: FrameType | None) -> None:
        noted.append(number)

    before = {}
    for number in HELD_SIGNALS:
        handler = signal.getsignal(number)
        if handler is not None and handler is not signal.SIG_IGN:  # None: set outside Python, left as is
            before[number] = signal.signal(number, note)
    try:
        yield
    finally:
        for number, handler in before.items():
            signal.signal(number, handler)
        for number in dict.fromkeys(noted):
            handler = before[number]
            if callable(handler):
                handler(number, None)
            else:  # the default action: the process ends now, its cleanup done
                signal.raise_signal(number)
