"""A lock per cassette that every process on this machine honours (pytest-xdist workers, say), held by
the pytest plugin for a whole recording session."""

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


@contextmanager
def cassette_lock(cassette: Path) -> Iterator[None]:
    """Hold an exclusive lock on `cassette` until the block ends (waits while another holds it).

    The lock file lives in the temporary folder, named by the user and the cassette's absolute path, so
    no lock file ever lands beside cassettes in a repository; it is opened without following a link,
    and one another user made there is refused.
    """
    key = hashlib.sha256(str(cassette.resolve()).encode()).hexdigest()[:24]
    lock_path = Path(tempfile.gettempdir()) / f"commerce-proxy-{os.geteuid()}-{key}.lock"
    flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        descriptor = os.open(lock_path, flags, 0o600)
    except OSError as error:
        raise UsageError(f"{lock_path}: cannot take the lock of {cassette}: {error.strerror}") from None
    try:
        state = os.fstat(descriptor)
        if state.st_uid != os.geteuid() or not stat.S_ISREG(state.st_mode):
            raise UsageError(f"{lock_path}: not the user's own file; remove it to record {cassette}")
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)
