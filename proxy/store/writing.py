"""The one way commerce-proxy writes a file: no link followed, the user's permissions, atomic, locked.

Every file the tool writes (cassettes, reports, baselines, exports, usage reports, parse-cache entries)
goes through `NewFile`:

- Its folder is reached one component at a time with O_NOFOLLOW, so a symbolic link anywhere on the
  way, or at the name itself, is refused, never written through: a link in a cloned repository (or one
  another user planted) could name any file of the user's. The one exception is a link in a folder only
  root can change (macOS's /var and /tmp): that is the system's layout, not something planted.
- The bytes go to a new file without a name in the target's folder (O_TMPFILE, mode 0o666 less the
  umask: the user's own permissions), so however the process ends mid-write (SIGKILL, os._exit, power
  lost) the kernel frees it and no file of ours is left in the user's folder. Once flushed to disk it
  gets a temporary name beside the target (linkat of /proc/self/fd/N with AT_SYMLINK_FOLLOW, which
  needs no privilege), renamed over the target at once relative to the folder's descriptor: a reader
  sees the old file or the new one, never half of one, and only a kill between those two calls can
  leave the temporary name. Where O_TMPFILE is refused (another system, an old kernel or file system,
  no /proc) and for a writer that must open the file by name (`named`), the file is made under the
  temporary name from the start (O_EXCL|O_NOFOLLOW, a random name), as it was before.
- `folder_lock` is the lock every writer of a cassette takes (edits, recordings, folding a journal):
  an exclusive `flock` on the cassette's folder itself, so no lock file lands in a repository.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import secrets
import stat
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from proxy.errors import CommerceProxyError, UsageError
from proxy.store.derived import Derived
from proxy.store.uninterrupted import uninterrupted

FOLDER_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
NEW_FILE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


class LinkRefused(UsageError):
    """A symbolic link on the way to a file to be written."""


def open_folder(folder: Path, what: str, create: bool = False, made: list[Path] | None = None) -> int:
    """A descriptor of `folder`, reached without following a symbolic link (see the module's notes);
    with `create`, missing folders are made (mode 0o777 less the umask), and added to `made` when
    given (for `remove_made_folders`). `UsageError` otherwise."""
    parts = folder.parts
    start = "/" if folder.is_absolute() else "."
    descriptor = os.open(start, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    walked = Path(start)
    try:
        for part in parts[1:] if folder.is_absolute() else parts:
            walked = walked / part
            child = _step(descriptor, part, walked, what, create, made)
            os.close(descriptor)
            descriptor = child
    except BaseException:
        os.close(descriptor)
        raise
    return descriptor


def _step(parent: int, part: str, walked: Path, what: str, create: bool, made: list[Path] | None) -> int:
    """The descriptor of `part` inside `parent`."""
    try:
        try:
            mode = os.stat(part, dir_fd=parent, follow_symlinks=False).st_mode
        except FileNotFoundError:
            if not create:
                raise
            with contextlib.suppress(FileExistsError):  # made meanwhile by another writer
                os.mkdir(part, 0o777, dir_fd=parent)
                if made is not None:
                    made.append(Path(os.path.abspath(walked)))
            mode = os.stat(part, dir_fd=parent, follow_symlinks=False).st_mode
        if stat.S_ISLNK(mode):
            if not _system_layout(parent):
                raise LinkRefused(
                    f"{walked}: is a symbolic link; {what} is never written through one "
                    f"(name the real path, {os.path.realpath(walked)})"
                )
            return os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=parent)
        if not stat.S_ISDIR(mode):
            raise UsageError(f"{walked}: is not a folder; {what} cannot be written under it")
        return os.open(part, FOLDER_FLAGS, dir_fd=parent)
    except OSError as error:
        if error.errno == errno.ELOOP:  # made a link after the look above
            raise LinkRefused(f"{walked}: is a symbolic link; {what} is never written through one") from None
        raise UsageError(f"{walked}: cannot write {what} there: {error.strerror}") from None


def remove_made_folders(made: list[Path]) -> None:
    """Remove the folders `open_folder` made (`made`, outermost first) that are still empty, innermost
    first, so a write that never happened leaves no folder behind. A folder that holds anything, or
    that was there before, is never removed: only an empty folder can be, and the walk stops at the
    first that is not."""
    with uninterrupted():
        for folder in reversed(made):
            try:
                os.rmdir(folder)
            except OSError:  # not empty (another writer used it), or gone: it and its parents stay
                break
        made.clear()


def _system_layout(folder: int) -> bool:
    """Whether a link in this folder is the system's: the folder is root's and only root can change it
    (and we are not root, for whom every folder of a cloned repository would be root's)."""
    state = os.fstat(folder)
    return os.geteuid() != 0 and state.st_uid == 0 and not state.st_mode & 0o022


def plain_name(path: Path, what: str) -> str:
    name = path.name
    if name in ("", ".", ".."):
        raise UsageError(f"{path}: not a file name; {what} is written to a file")
    return name


class NewFile:
    """A new file for `path`, without a name while it is written (see the module's notes); `commit`
    puts it in place.

    Refused (`UsageError`) when a link is on the way or at `path`, or `path` is a folder, FIFO or
    device; `create_folders` makes the missing folders on the way.
    """

    def __init__(
        self,
        path: Path,
        what: str,
        create_folders: bool = False,
        buffering: int = -1,
        folder: int | None = None,
        mode: int = 0o666,
        named: bool = False,
    ) -> None:
        """`folder`: the descriptor of `path`'s folder, when the caller opened it (it stays open);
        `mode`: the permissions, less the umask; `named`: the file has its temporary name from the start
        (for `temporary_path`; a kill mid-write leaves it, the caller sweeps it)."""
        self.path = path
        self.what = what
        self._name = plain_name(path, what)
        self._folder = open_folder(path.parent, what, create_folders) if folder is None else os.dup(folder)
        try:
            refuse_unwritable(self._folder, self._name, path, what)
            self._temporary = temporary_prefix(path).name + secrets.token_hex(6)
            descriptor = None if named else unnamed_file(self._folder, mode)
            self.named = descriptor is None  # whether the temporary name holds the file now
            try:
                if descriptor is None:
                    descriptor = os.open(self._temporary, NEW_FILE_FLAGS, mode, dir_fd=self._folder)
            except OSError as error:
                raise CommerceProxyError(f"{path}: cannot write {what}: {error.strerror}") from None
        except BaseException:
            os.close(self._folder)
            raise
        self.handle: BinaryIO = os.fdopen(descriptor, "wb", buffering=buffering)

    @property
    def temporary_path(self) -> Path:
        """The temporary file's path, for a writer that must open it by name (SQLite's backup): a
        `NewFile` made with `named`."""
        if not self.named:
            raise ValueError("the file has no name yet: make the NewFile with named=True")
        return self.path.parent / self._temporary

    def commit(self) -> None:
        """Flush the file to disk and rename it over the target (`CommerceProxyError` when it fails,
        the target untouched)."""
        with uninterrupted():  # a signal between the link and the rename would leave the named file
            try:
                self.handle.flush()
                os.fsync(self.handle.fileno())
                if not self.named:  # a dst_dir_fd makes os.link call linkat, which follows /proc's link
                    link = f"/proc/self/fd/{self.handle.fileno()}"
                    os.link(link, self._temporary, dst_dir_fd=self._folder, follow_symlinks=True)
                    self.named = True
                self.handle.close()
                os.replace(self._temporary, self._name, src_dir_fd=self._folder, dst_dir_fd=self._folder)
            except OSError as error:
                self.abandon()
                raise CommerceProxyError(f"{self.path}: cannot write {self.what}: {error.strerror}") from None
            with contextlib.suppress(OSError):  # the rename itself on disk; some file systems refuse this
                os.fsync(self._folder)
            os.close(self._folder)
            self._folder = -1

    def abandon(self) -> None:
        """Let go of the new file (an unnamed one is freed; a named one, removed); the target stays as
        it was."""
        if self._folder < 0:
            return
        with uninterrupted():
            self.handle.close()
            if self.named:
                with contextlib.suppress(OSError):
                    os.unlink(self._temporary, dir_fd=self._folder)
            os.close(self._folder)
            self._folder = -1


def unnamed_file(folder: int, mode: int) -> int | None:
    """A new file without a name in `folder`, open for writing (O_TMPFILE): the kernel frees it however
    the process ends. None where it cannot be made or named later: no O_TMPFILE on this system, one
    the kernel or file system refuses (EOPNOTSUPP, EISDIR, EINVAL), no /proc to name it by; the caller
    then makes a named file, which reports any other error itself."""
    flags = getattr(os, "O_TMPFILE", 0)
    if not flags:
        return None
    try:
        descriptor = os.open(".", flags | os.O_WRONLY | os.O_CLOEXEC, mode, dir_fd=folder)
    except OSError:
        return None
    try:
        os.stat(f"/proc/self/fd/{descriptor}")
    except OSError:
        os.close(descriptor)
        return None
    return descriptor


def temporary_prefix(path: Path) -> Path:
    """How the temporary files `NewFile` writes for `path` begin (a random part follows); the target's
    name as far as NAME_MAX leaves room, so a file named near it can still be written."""
    return path.with_name(f".{path.name[:180]}.tmp-")


def locked_folder(path: Path) -> Path:
    """The folder `folder_lock` locks for the cassette at `path`: the one it is in."""
    return path.parent


def derived_files(path: Path) -> list[Derived]:
    """What this module keeps for a cassette: the temporary files it is written through, and its
    folder, which every writer of the cassette locks (`folder_lock`)."""
    return [
        Derived(temporary_prefix(path), "temporary file (while it is written)", "prefix"),
        Derived(locked_folder(path), "folder (every writer of it locks the folder)"),
    ]


def refuse_unwritable(folder: int, name: str, path: Path, what: str) -> None:
    """`UsageError` when the name in `folder` is a link, a folder, a FIFO or a device."""
    try:
        mode = os.stat(name, dir_fd=folder, follow_symlinks=False).st_mode
    except FileNotFoundError:
        return
    if stat.S_ISLNK(mode):
        raise LinkRefused(f"{path}: is a symbolic link; {what} is never written through one")
    if stat.S_ISDIR(mode):
        raise UsageError(f"{path}: is a folder; {what} is written to a file")
    if not stat.S_ISREG(mode):
        raise UsageError(f"{path}: not a regular file; {what} is written only as one (remove it)")


def write_file(
    path: Path,
    pieces: str | bytes | Iterable[str],
    what: str,
    create_folders: bool = False,
    folder: int | None = None,
    mode: int = 0o666,
) -> None:
    """Write text or bytes (whole, or piece by piece as it is made) as `NewFile` does; if making the
    pieces fails, nothing is written."""
    new = NewFile(path, what, create_folders, folder=folder, mode=mode)
    try:
        if isinstance(pieces, bytes):
            new.handle.write(pieces)
        else:
            for piece in (pieces,) if isinstance(pieces, str) else pieces:
                new.handle.write(piece.encode("utf-8"))
    except OSError as error:
        new.abandon()
        raise CommerceProxyError(f"{path}: cannot write {what}: {error.strerror}") from None
    except BaseException:
        new.abandon()
        raise
    new.commit()


_held = threading.local()  # the folders this thread holds locked, by (device, inode), with a count


@contextmanager
def folder_lock(path: Path, what: str = "the cassette") -> Iterator[None]:
    """Hold the lock of the folder `path` is in, which every writer of a cassette takes, until the
    block ends (waiting while another process or thread holds it; taken again in a block of the same
    thread, it is already held). Missing folders on the way are made."""
    folder = open_folder(locked_folder(path), what, create=True)
    state = os.fstat(folder)
    key = (state.st_dev, state.st_ino)
    held: dict[tuple[int, int], int] = _held.__dict__.setdefault("counts", {})
    try:
        if not held.get(key):
            fcntl.flock(folder, fcntl.LOCK_EX)
        held[key] = held.get(key, 0) + 1
        try:
            yield
        finally:
            held[key] -= 1
    finally:
        os.close(folder)  # closing the descriptor that took the lock releases it
