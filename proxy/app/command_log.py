"""The commands' log lines: one format, every line escaped and scrubbed, however it is written.

`commerce-proxy` configures it at start (`cli/main.py`); `record` and `spy` write the findings' lines of
each batch of their checker's answers straight in the same format (`write_lines`, from
`live_check_worker.py`), so a line reads the same whichever way it came.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Sequence

from proxy.core.redaction.book import KNOWN, ScrubbingFilter
from proxy.core.reports.escaping import visible

FORMAT = "commerce-proxy: %(message)s"


class VisibleFormatter(logging.Formatter):
    """Log lines with `visible` messages: a request or file name cannot forge a line or a terminal
    escape (a traceback, when there is one, still follows on its own lines)."""

    def formatMessage(self, record: logging.LogRecord) -> str:
        return visible(super().formatMessage(record))


def use_command_log(level: int) -> None:
    """Log to stderr at `level` and above, each line through `VisibleFormatter` and scrubbed of the
    secrets seen so far (`ScrubbingFilter`, on the handler: a logger's own filter would miss records
    its children pass up)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(VisibleFormatter(FORMAT))
    handler.addFilter(ScrubbingFilter())
    logging.basicConfig(handlers=[handler], level=level, force=True)


def write_lines(messages: Sequence[str]) -> None:
    """Messages as the command's log writes them (each scrubbed by the book as it is now, then
    `visible`, after the prefix), in one write to stderr: the findings of one batch of the checker's
    answers (a log record and a write a line cost the serving loop a sixth of its time)."""
    lines = [visible(FORMAT % {"message": KNOWN.scrub(message)}) for message in messages]
    sys.stderr.write("\n".join(lines) + "\n")
    sys.stderr.flush()
