"""A lock per cassette that every process on this machine honours (pytest-xdist workers, say), held by
the pytest plugin for a whole recording session.

The lock file exists only while the lock is held: its holder removes it on release, so none pile up in
the temporary folder. That needs the usual protocol for unlinked lock files: after `flock` returns, the
name must still be the file that was locked (a holder may have removed it, and another process made a
new one, while this one waited); if not, open it again. A holder only removes the file it holds locked.
A SIGKILL leaves the file behind: each taker sweeps a few of the user's other lock files by the same
protocol (its own regular file, locked without waiting, still named by its path: no one holds it, and a
waiter on it finds the name gone and opens it again), so what killed runs leave stays bounded. It must have a
name: other processes wait on its `flock` by opening it, which a nameless (O_TMPFILE) file forbids; the
cassette itself is replaced by a new file at each save; and its folder, which `writing.folder_lock`
locks for each write, is shared by cassettes recorded in parallel.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from proxy.errors import UsageError
from proxy.store.derived import Derived
from proxy.store.uninterrupted import uninterrupted

# Each retry means another process took and released the lock meanwhile: bounded, never a livelock.
MAX_ATTEMPTS = 10_000
# Per take, at most this many other lock files removed, and opened: enough to drain what killed runs
# leave (a few per run, while a run takes a lock per recorded cassette), and cheap each time.
SWEPT_PER_TAKE = 8
OPENED_PER_TAKE = 32
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
    descriptor = -1
    try:  # from the file's making: a Ctrl-C at any step after it removes it (the sweep takes a while)
        descriptor = _locked(path, cassette)
        sweep_stale(path)
        yield
    finally:
        if descriptor >= 0:
            with uninterrupted():
                _removed_while_held(path, descriptor)


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
        except KeyboardInterrupt:  # a Ctrl-C while it waits: the file, if no one holds it, goes
            with uninterrupted():
                if _held_now(descriptor):
                    _removed_while_held(path, descriptor)
                else:
                    os.close(descriptor)
            raise
        except BaseException:  # refused (not the user's own regular file): left as it is
            os.close(descriptor)
            raise
        if named is not None and (named.st_dev, named.st_ino) == (opened.st_dev, opened.st_ino):
            return descriptor
        os.close(descriptor)  # its holder removed it while this one waited: take the new one
    raise UsageError(f"{path}: the lock of {cassette} changed hands {MAX_ATTEMPTS} times without this run")


def _held_now(descriptor: int) -> bool:
    """Whether this descriptor's lock is ours now, without waiting for it."""
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True


def _removed_while_held(path: Path, descriptor: int) -> None:
    """Remove the lock file `path` while `descriptor` holds its lock (so no one else uses that file:
    a waiter finds its name gone and takes a new one), then let the lock go."""
    try:
        opened = os.fstat(descriptor)
        named = os.stat(path, follow_symlinks=False)
        if (named.st_dev, named.st_ino) == (opened.st_dev, opened.st_ino):
            os.unlink(path)
    except OSError:
        pass  # removed by hand meanwhile: nothing left to clean
    finally:
        os.close(descriptor)


def sweep_stale(kept: Path, limit: int = SWEPT_PER_TAKE) -> int:
    """Remove up to `limit` of the user's lock files other than `kept` that no one holds (left by a
    killed run); the count removed. One held, or not the user's own regular file, is left alone."""
    ours = re.compile(rf"commerce-proxy-(?:{os.geteuid()}-)?[0-9a-f]{{24}}\.lock")  # or an older version's
    removed = opened = 0
    try:
        entries = os.scandir(kept.parent)
    except OSError:
        return 0
    with entries:
        for entry in entries:
            if removed >= limit or opened >= OPENED_PER_TAKE:
                break
            if not ours.fullmatch(entry.name) or entry.name == kept.name or not _users_own(entry):
                continue
            opened += 1
            removed += _removed_if_free(Path(entry.path))
    return removed


def _users_own(entry: os.DirEntry[str]) -> bool:
    try:
        state = entry.stat(follow_symlinks=False)
    except OSError:
        return False
    return state.st_uid == os.geteuid() and stat.S_ISREG(state.st_mode)


def held_by_none(descriptor: int, opened: os.stat_result) -> bool:
    """Whether the open file is the user's own regular file and no one holds its lock; when True, this
    descriptor now holds it (the one test every sweep of stale lock files and folders makes)."""
    if opened.st_uid != os.geteuid() or not stat.S_ISREG(opened.st_mode):
        return False
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _removed_if_free(path: Path) -> int:
    """1 when `path` was the user's own lock file, held by no one, and is now removed; else 0."""
    try:
        descriptor = os.open(path, FLAGS & ~os.O_CREAT)
    except OSError:
        return 0  # gone meanwhile, a link, or not ours to open
    try:
        opened = os.fstat(descriptor)
        if not held_by_none(descriptor, opened):
            return 0  # held: a live recording's, or not the user's own file
        try:
            named = os.stat(path, follow_symlinks=False)
        except FileNotFoundError:
            return 0
        if (named.st_dev, named.st_ino) != (opened.st_dev, opened.st_ino):
            return 0  # already replaced by a new holder's file
        os.unlink(path)  # locked by this one and still its name: as a holder removes it
        return 1
    except OSError:
        return 0
    finally:
        os.close(descriptor)
