"""A lock per cassette that every process on this machine honours (pytest-xdist workers, say), held by
the pytest plugin for a whole recording session.

The lock file exists only while the lock is held: its holder removes it on release, so none pile up in
the temporary folder. That needs the usual protocol for unlinked lock files: after `flock` returns, the
name must still be the file that was locked (a holder may have removed it, and another process made a
new one, while this one waited); if not, open it again. A holder only removes the file it holds locked.
A SIGKILL leaves the file until the next holder of the same cassette's lock removes it. It must have a
name: other processes wait on its `flock` by opening it, which a nameless (O_TMPFILE) file forbids; the
cassette itself is replaced by a new file at each save; and its folder, which `writing.folder_lock`
locks for each write, is shared by cassettes recorded in parallel.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from proxy.errors import UsageError
from proxy.store.derived import Derived

# Each retry means another process took and released the lock meanwhile: bounded, never a livelock.
MAX_ATTEMPTS = 10_000
FLAGS = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


def lock_path(cassette: Path) -> Path:
    """The lock file of `cassette`: in the temporary folder, named by the user and the absolute path."""
    key = hashlib.sha256(str(cassette.resolve()).encode()).hexdigest()[:24]
    return Path(tempfile.gettempdir()) / f"commerce-proxy-{os.geteuid()}-{key}.lock"


def derived_files(cassette: Path) -> list[Derived]:
    """The file this module keeps for `cassette`: its lock file while a session records it."""
    return [Derived(lock_path(cassette), "lock file")]


@contextmanager
def cassette_lock(cassette: Path) -> Iterator[None]:
    """Hold an exclusive lock on `cassette` until the block ends (waits while another holds it).

    The lock file lives in the temporary folder, so no lock file ever lands beside cassettes in a
    repository; it is opened without following a link, made with mode 0600, one another user made there
    is refused, and it is removed when the block ends.
    """
    path = lock_path(cassette)
    descriptor = _locked(path, cassette)
    try:
        yield
    finally:
        try:
            os.unlink(path)  # still locked: no one else can be using this name's file
        except FileNotFoundError:
            pass  # removed by hand meanwhile: nothing left to clean
        finally:
            os.close(descriptor)


def _locked(path: Path, cassette: Path) -> int:
    """A descriptor of the file `path` names, locked exclusively, and still named by it."""
    for _ in range(MAX_ATTEMPTS):
        try:
            descriptor = os.open(path, FLAGS, 0o600)
        except OSError as error:
            raise UsageError(f"{path}: cannot take the lock of {cassette}: {error.strerror}") from None
        try:
            opened = os.fstat(descriptor)
            if opened.st_uid != os.geteuid() or not stat.S_ISREG(opened.st_mode):
                raise UsageError(f"{path}: not the user's own file; remove it to record {cassette}")
            fcntl.flock(descriptor, fcntl.LOCK_EX)
            try:
                named = os.stat(path, follow_symlinks=False)
            except FileNotFoundError:
                named = None
        except BaseException:
            os.close(descriptor)
            raise
        if named is not None and (named.st_dev, named.st_ino) == (opened.st_dev, opened.st_ino):
            return descriptor
        os.close(descriptor)  # its holder removed it while this one waited: take the new one
    raise UsageError(f"{path}: the lock of {cassette} changed hands {MAX_ATTEMPTS} times without this run")
