"""Opening the files the tool reads (cassettes, journals, HARs): a regular file or a clear one-line
error naming it, never a read that blocks on a FIFO or never ends on a device."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from proxy.errors import CassetteFormatError, CommerceProxyError


class NotRegularFile(OSError):
    """A device, FIFO or socket where a file was expected."""


def read_regular_file(path: Path) -> bytes:
    """The bytes of a regular file (see `open_regular_file`)."""
    with open_regular_file(path) as handle:
        return handle.read()


def open_regular_file(path: Path) -> BinaryIO:
    """A regular file opened for reading: a device or FIFO at a cassette's or journal's path would never
    end (/dev/zero fills memory) or block forever, so it is refused with `NotRegularFile` before reading."""
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO's open would wait for a writer
    handle = os.fdopen(descriptor, "rb")
    try:
        mode = os.fstat(descriptor).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        if not stat.S_ISREG(mode):
            raise NotRegularFile(f"{path}: not a regular file")
    except BaseException:
        handle.close()
        raise
    return handle


@contextlib.contextmanager
def opened(path: Path, what: str = "cassette") -> Iterator[BinaryIO]:
    try:
        stream = open_regular_file(path)
    except FileNotFoundError:
        raise CommerceProxyError(f"{path}: no such {what}") from None
    except IsADirectoryError:
        raise CommerceProxyError(f"{path}: is a folder, expected a file ({what})") from None
    except NotRegularFile:
        raise CommerceProxyError(f"{path}: not a regular file, expected a file ({what})") from None
    except OSError as error:
        raise CommerceProxyError(f"{path}: cannot read: {error.strerror}") from None
    with stream:
        yield stream


def file_bytes(path: Path, what: str = "cassette") -> bytes:
    with opened(path, what) as stream:
        try:
            return stream.read()
        except OSError as error:
            raise CommerceProxyError(f"{path}: cannot read: {error.strerror}") from None


def text_of(raw: bytes, path: Path) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        raise CassetteFormatError(f"{path}:{line}: not UTF-8 text") from None
