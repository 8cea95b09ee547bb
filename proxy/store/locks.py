"""A lock per cassette that every process on this machine honours (pytest-xdist workers, say)."""

from __future__ import annotations

import fcntl
import hashlib
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def cassette_lock(cassette: Path) -> Iterator[None]:
    """Hold an exclusive lock on `cassette` until the block ends (waits while another holds it).

    The lock file lives in the temporary folder, named by the cassette's absolute path, so no lock
    file ever lands beside cassettes in a repository.
    """
    key = hashlib.sha256(str(cassette.resolve()).encode()).hexdigest()[:24]
    lock_path = Path(tempfile.gettempdir()) / f"commerce-proxy-{key}.lock"
    with open(lock_path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
