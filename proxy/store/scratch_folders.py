"""Private folders in the temporary folder for one run (the demo's recording, a fuzzing corpus), gone
however the run ends: removed when its block ends (done, an error, a signal turned into an exception),
and after a SIGKILL swept by the next run of the same kind.

A run holds an `flock` on a file `.held` in its folder while it lives (a child process handed the
descriptor keeps it held; not on the folder itself, which a cassette's writer locks for each write).
The folder is made under a hidden name, its lock taken, then renamed: so a folder of the prefix that is
the user's own and whose lock is free belongs to a run that is gone. One with no lock (a SIGKILL
between its making and its renaming, or an older version's) is swept once older than a grace.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import stat
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from proxy.store.locks import held_by_none
from proxy.store.uninterrupted import uninterrupted

# A folder without a lock younger than this may be a live run's: left alone.
GRACE_SECONDS = 3600.0
HELD = ".held"
# Stale folders removed per run, at most: bounded work, and what SIGKILLs leave still drains.
SWEPT_PER_RUN = 8
FOLDER_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
HELD_FLAGS = os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC


@contextmanager
def scratch_folder(prefix: str) -> Iterator[tuple[Path, int]]:
    """A new folder `prefix`* in the temporary folder and the descriptor holding its lock (hand it to a
    child process that works in the folder); removed, with what is in it, when the block ends."""
    folder = hidden = Path(tempfile.mkdtemp(prefix=f".{prefix}"))
    descriptor = -1
    try:
        descriptor = os.open(hidden / HELD, HELD_FLAGS | os.O_CREAT | os.O_EXCL, 0o600)
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)  # new and private: never held
        folder = hidden.with_name(hidden.name[1:])
        os.rename(hidden, folder)  # named for the sweep only once locked
        sweep_stale(folder, prefix)
        yield folder, descriptor
    finally:
        with uninterrupted():  # a signal now would leave half the folder
            shutil.rmtree(folder, ignore_errors=True)
            if descriptor >= 0:
                os.close(descriptor)


def sweep_stale(kept: Path, prefix: str) -> int:
    """Remove up to SWEPT_PER_RUN folders `prefix`* beside `kept` left by runs that are gone; the count."""
    removed = 0
    try:
        entries = os.scandir(kept.parent)
    except OSError:
        return 0
    with entries:
        for entry in entries:
            if removed >= SWEPT_PER_RUN:
                break
            if entry.name.startswith((prefix, f".{prefix}")) and entry.name != kept.name:
                removed += _removed_if_gone(Path(entry.path))
    return removed


def _removed_if_gone(folder: Path) -> int:
    """1 when `folder` was the user's own, its run gone, and it is now removed; else 0."""
    try:
        state = os.stat(folder, follow_symlinks=False)
    except OSError:
        return 0
    if state.st_uid != os.geteuid() or not stat.S_ISDIR(state.st_mode):
        return 0
    try:
        descriptor = os.open(folder / HELD, HELD_FLAGS)
    except FileNotFoundError:
        if time.time() - state.st_mtime < GRACE_SECONDS:
            return 0  # no lock: perhaps a live run's, just made or of an older version
        shutil.rmtree(folder, ignore_errors=True)
        return 1
    except OSError:
        return 0  # a link, or not ours to open
    try:
        if not held_by_none(descriptor, os.fstat(descriptor)):
            return 0  # a live run's, or not the user's own file
        shutil.rmtree(folder, ignore_errors=True)
        return 1
    finally:
        os.close(descriptor)
