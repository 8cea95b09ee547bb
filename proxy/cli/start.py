"""The command line's first step, taken before anything else is imported (the `commerce-proxy` script
and `python -m proxy` both start here).

Every way a run can be ended from outside ends it the same way, from its first instant: SIGTERM (a job
cancelled), SIGHUP (a terminal closed) and SIGQUIT are raised again as SIGINT, so they do what
Ctrl-C does at that moment (under `asyncio.run`, cancel the command's task; a server's loop takes them
itself, `server/serving.py`), and a Ctrl-C that comes while the tool is still importing its modules
is the same one line and exit 130 as one later, never a traceback. Standard streams a caller closed
(`>&-`) are opened on /dev/null first: output no one reads is dropped, not an internal error, and no
file the run opens can take descriptor 1 or 2 and receive what was meant for the terminal.
"""

from __future__ import annotations

import contextlib
import signal
from types import FrameType

from proxy.app.standard_streams import standard_streams_open

STOPS_AS_CTRL_C = tuple(
    getattr(signal, name) for name in ("SIGTERM", "SIGHUP", "SIGQUIT") if hasattr(signal, name)
)
INTERRUPTED = 130


def run() -> int:
    """Run the command line (`proxy.cli.main.main`) with the streams and signals made safe."""
    try:
        standard_streams_open()
        stops_as_ctrl_c()
        from proxy.cli.main import main

        return main()
    except KeyboardInterrupt:  # before the command's own handling (imports), or past it
        _said("commerce-proxy: interrupted")
        return INTERRUPTED
    except Exception as error:
        # Python turns a KeyboardInterrupt raised inside `__set_name__` (a dataclass field, as a module
        # is imported) into a RuntimeError caused by it: still a Ctrl-C.
        if not _caused_by_interrupt(error):
            raise
        _said("commerce-proxy: interrupted")
        return INTERRUPTED


def _caused_by_interrupt(error: BaseException) -> bool:
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        if isinstance(current, KeyboardInterrupt):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


def stops_as_ctrl_c() -> None:
    """SIGTERM, SIGHUP and SIGQUIT do what SIGINT would do now (from the main thread only, where
    Python lets a handler be set)."""
    for number in STOPS_AS_CTRL_C:
        signal.signal(number, _as_ctrl_c)


def _as_ctrl_c(number: int, frame: FrameType | None) -> None:
    """A SIGINT raised here reaches whatever takes Ctrl-C at this moment, a server's loop included
    (calling the Python handler in force would miss a loop's, which acts on the signal's wakeup byte)."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:  # Ctrl-C ignored: the run still stops
        raise KeyboardInterrupt
    signal.raise_signal(signal.SIGINT)


def _said(line: str) -> None:
    with contextlib.suppress(OSError, ValueError):  # stderr gone too: the exit code says it
        from proxy.cli.output import say

        say(line, err=True, flush=True)
