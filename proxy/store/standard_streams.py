"""The standard streams a run starts with, made usable: a caller may have closed one (`>&-`).

Output no one reads is then dropped rather than an internal error, and no file the run opens can take
descriptor 0, 1 or 2 and receive what was meant for the terminal (or a child's output).
"""

from __future__ import annotations

import os
import sys


def standard_streams_open() -> None:
    """Descriptors 0-2 open (on /dev/null where the caller closed one), and a stream for each."""
    for number in (0, 1, 2):
        try:
            os.fstat(number)
        except OSError:
            null = os.open(os.devnull, os.O_RDWR)
            if null != number:
                os.dup2(null, number)
                os.close(null)
    if sys.stdin is None:
        sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115 - the process's own, for its life
    if sys.stdout is None:
        sys.stdout = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115
