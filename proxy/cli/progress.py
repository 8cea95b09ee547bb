"""A one-line progress bar on stderr for long offline checks: only on a terminal, silent otherwise.

A thread redraws the line ten times a second, so it keeps moving while a large cassette is parsed
(PyYAML gives no progress of its own). Nothing is drawn for a check that ends within DELAY seconds,
and the line is cleared at the end, so a finished check's output looks the same with or without it.
"""

from __future__ import annotations

import os
import shutil
import threading
import time
from pathlib import Path
from types import TracebackType
from typing import TextIO

from proxy.core.reports.escaping import visible

DELAY = float(os.environ.get("COMMERCE_PROXY_PROGRESS_DELAY", "0.5"))
REDRAW = 0.1
BAR = 24


class Progress:
    """Files read and exchanges checked so far, drawn as `checking [#####.....] 3/10 cassettes ...`."""

    def __init__(self, files: int, stream: TextIO, wanted: bool = True) -> None:
        self.files = files
        self.stream = stream
        self.enabled = wanted and stream.isatty() and os.environ.get("TERM") != "dumb"
        self.started = time.monotonic()
        self.number = 0
        self.name = ""
        self.phase = "reading"
        self.size = 0
        self.done = 0
        self.before = 0  # exchanges checked in earlier files
        self.drawn = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="progress", daemon=True)

    def __enter__(self) -> Progress:
        if self.enabled:
            self._thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if self.enabled:
            self._stop.set()
            self._thread.join()
            if self.drawn:
                self.stream.write("\r\x1b[K")
                self.stream.flush()

    def reading(self, number: int, path: Path) -> None:
        """File `number` (from 0) is being parsed."""
        self.before += self.size if self.phase == "checking" else 0  # the previous file, all checked
        self.number, self.name, self.phase, self.size, self.done = number, str(path), "reading", 0, 0

    def checking(self, exchanges: int) -> None:
        """The current file is parsed; its `exchanges` are being checked."""
        self.phase, self.size = "checking", exchanges

    def advance(self, done: int) -> None:
        """How many of the current file's exchanges are checked."""
        self.done = done

    def line(self, width: int) -> str:
        """The line as it is drawn now, at most `width` characters."""
        share = 0.5 + 0.5 * self.done / self.size if self.phase == "checking" and self.size else 0.0
        fraction = min(1.0, (self.number + share) / self.files) if self.files else 1.0
        filled = round(fraction * BAR)
        elapsed = time.monotonic() - self.started
        text = (
            f"checking [{'#' * filled}{'.' * (BAR - filled)}] {self.number}/{self.files} cassettes, "
            f"{self.before + self.done:,} exchanges, {elapsed:.0f} s: {self.phase} {visible(self.name)}"
        )
        return text if len(text) <= width else text[: max(0, width - 1)] + "…"

    def _run(self) -> None:
        if self._stop.wait(DELAY):
            return
        while True:
            width = shutil.get_terminal_size((80, 24)).columns - 1
            self.stream.write("\r" + self.line(width) + "\x1b[K")
            self.stream.flush()
            self.drawn = True
            if self._stop.wait(REDRAW):
                return
