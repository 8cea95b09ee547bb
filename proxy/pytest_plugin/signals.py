"""While the plugin records, SIGTERM and SIGHUP (how CI systems cancel a job, how a closed terminal
ends it) end the run as Ctrl-C does: a KeyboardInterrupt in the main thread, so the recording is
discarded, its journal removed and the run's summary says so. The handlers pytest had are restored when
the last recording ends (or the run does)."""

from __future__ import annotations

import signal
import threading
from types import FrameType
from typing import Any

STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


def _interrupt(number: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"{signal.Signals(number).name} received")


class StopSignals:
    """Counts the recordings live; installs the handler with the first, restores with the last."""

    def __init__(self) -> None:
        self.holders = 0
        self.previous: dict[int, Any] = {}

    def take(self) -> bool:
        """Hold the handlers for one recording; False (nothing held) off the main thread, where
        Python lets no handler be set (a pytest-xdist worker runs its tests in its main thread)."""
        if threading.current_thread() is not threading.main_thread():
            return False
        if self.holders == 0:
            for number in STOP_SIGNALS:
                previous = signal.signal(number, _interrupt)
                self.previous[number] = signal.SIG_DFL if previous is None else previous
        self.holders += 1
        return True

    def give_back(self) -> None:
        self.holders -= 1
        if self.holders <= 0:
            self.restore()

    def restore(self) -> None:
        """The handlers as they were before the first recording (at the run's end in any case)."""
        self.holders = 0
        previous, self.previous = self.previous, {}
        for number, handler in previous.items():
            signal.signal(number, handler)
