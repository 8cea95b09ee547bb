"""Writing cassettes and other files atomically: a temporary file beside the target, then a rename.

A reader sees the old file or the new one, never half of one; nothing is written through a symbolic
link at the temporary name, and a link at the target stays a link (the file it names is replaced).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterable
from pathlib import Path

from proxy.core.cassette.document import Cassette, dump_cassette
from proxy.errors import CommerceProxyError
from proxy.store.parse_cache import file_state, remember_cassette


def save_cassette(
    path: Path, cassette: Cassette, before_replacing: Callable[[str], None] | None = None
) -> None:
    """Write a cassette atomically (a temporary file beside it, then a rename), and its parse cache.

    `before_replacing` is given the SHA-256 of the new file's bytes before they are written (a
    recording seals its journal with it); if it raises, nothing is written.
    """
    text = dump_cassette(cassette)
    if before_replacing is not None:
        before_replacing(hashlib.sha256(text.encode("utf-8")).hexdigest())
    write_atomically(path, text, "the cassette")
    remember_cassette(path, text.encode("utf-8"), file_state(path), cassette)


def write_atomically(path: Path, text: str | Iterable[str], what: str = "the file") -> None:
    """Write text (whole, or piece by piece as it is made) through a temporary file and a rename:
    readers see the old file or the new one.

    A symbolic link at `path` stays one: the file it names is replaced. A folder, FIFO or device there
    is refused, never replaced.
    """
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    if target.exists() and not target.is_file():
        raise CommerceProxyError(f"{path}: not a regular file; {what} is not written over it")
    temporary = target.with_name(f".{target.name}.tmp-{os.getpid()}")
    try:
        _write_new(temporary, (text,) if isinstance(text, str) else text)
        os.replace(temporary, target)
    except OSError as error:
        temporary.unlink(missing_ok=True)
        raise CommerceProxyError(f"{path}: cannot write {what}: {error.strerror}") from None
    except BaseException:  # the pieces' maker failed, or an interrupt: no half-written file is left
        temporary.unlink(missing_ok=True)
        raise


def _write_new(path: Path, pieces: Iterable[str]) -> None:
    """Create `path` and write the pieces as UTF-8; a link or file already there (a save that was
    killed, or one planted) is removed first, never written through."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
    try:
        descriptor = os.open(path, flags, 0o666)
    except FileExistsError:
        path.unlink()
        descriptor = os.open(path, flags, 0o666)
    with os.fdopen(descriptor, "w", encoding="utf-8", newline="") as handle:
        for piece in pieces:
            handle.write(piece)
