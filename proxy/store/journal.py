"""The recording journal: one JSON line per exchange, appended as soon as its response is complete.

A `record` process holds an exclusive lock on its journal, so a reader can tell a live recording from
one that crashed. After a crash the journal is folded into the cassette by
`proxy.store.cassette_reader.loading`.

Its first line names the cassette it belongs to and the SHA-256 of the cassette file it started from
(none for a new one); just before the cassette is saved, a last line gives the SHA-256 of the file
about to replace it. So a reader can tell a journal still to fold in (the cassette is its base) from
one already absorbed (the cassette is the sealed one) and from one of another cassette or version.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from proxy.core.cassette.journal_line import journal_entry, journal_line, json_line, parse_json_line
from proxy.core.model.domain import upstream_problem
from proxy.core.model.exchange import Exchange
from proxy.errors import CassetteFormatError, JournalError, UsageError
from proxy.store import clock
from proxy.store.derived import Derived
from proxy.store.regular_files import NotRegularFile, open_regular_file, read_regular_file
from proxy.store.writing import open_folder, refuse_unwritable

JOURNAL_SUFFIX = ".journal"
JOURNAL_VERSION = 2
READABLE_VERSIONS = (1, 2)  # version 1 journals (no cassette name, no digests) are folded as before
JournalMode = Literal["append", "replace"]


def journal_path(cassette: Path) -> Path:
    """Where the journal of a cassette lives: beside it, with `.journal` added (a cassette is never
    written through a symbolic link, so a recording names it by its own path)."""
    return cassette.with_name(cassette.name + JOURNAL_SUFFIX)


def derived_files(cassette: Path) -> list[Derived]:
    """The file this module keeps for `cassette`: its journal while (or after) it is recorded."""
    return [Derived(journal_path(cassette), "recording journal")]


def cassette_of(journal: Path) -> Path:
    """The cassette a journal sits beside (its name less `.journal`)."""
    return journal.with_name(journal.name.removesuffix(JOURNAL_SUFFIX))


def file_digest(path: Path) -> str | None:
    """The SHA-256 of a file's bytes (hex), None when there is no file."""
    digest = hashlib.sha256()
    try:
        with open_regular_file(path) as handle:
            while chunk := handle.read(1 << 20):
                digest.update(chunk)
    except FileNotFoundError:
        return None
    except NotRegularFile:
        raise JournalError(f"{path}: not a regular file, expected a cassette") from None
    except OSError as error:
        raise JournalError(f"{path}: cannot read: {error.strerror}") from None
    return digest.hexdigest()


class JournalWriter:
    """Appends exchanges to a journal; each line is one write, so a crash tears at most the last."""

    def __init__(self, path: Path, mode: JournalMode, upstream: str | None) -> None:
        self.path = path
        folder = open_folder(path.parent, "a journal", create=True)  # no link on the way
        try:  # a link, folder, FIFO or device at the name is refused; O_NOFOLLOW|O_NONBLOCK for a race
            refuse_unwritable(folder, path.name, path, "a journal")
            flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
            self._fd = os.open(path.name, flags, 0o600, dir_fd=folder)
        except OSError as error:
            raise UsageError(f"{path}: cannot write the journal: {error.strerror}") from None
        finally:
            os.close(folder)
        if not stat.S_ISREG(os.fstat(self._fd).st_mode):
            os.close(self._fd)
            raise UsageError(f"{path}: not a regular file; a journal is written only as one (remove it)")
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(self._fd)
            raise UsageError(f"{path}: another record is writing this cassette") from None
        # Emptied only once the lock is ours: a live recording's journal is never cut short.
        os.ftruncate(self._fd, 0)
        self._size = 0
        cassette = cassette_of(path)
        try:
            header = {
                "commerce_proxy_journal": JOURNAL_VERSION,
                "mode": mode,
                "upstream": upstream,
                "cassette": cassette.name,
                "base": file_digest(cassette),
            }
            self._write(json_line(header))
        except JournalError as error:  # a full disk or a file size limit, found before any traffic
            os.close(self._fd)
            raise UsageError(str(error)) from None

    def append(self, sequence: int, exchange: Exchange) -> bytes:
        """Add one exchange; `sequence` is its index in the cassette, which orders it. Returns the
        line written (a checker process reads the same line).

        A `JournalError` means it was not added (disk full, file too large) and the journal is as it was.
        """
        return self._write(journal_line(sequence, exchange))

    def seal(self, saved_digest: str) -> None:
        """Say which file is about to replace the cassette (its SHA-256), before it does: once it is in
        place, a reader knows this journal is already in it. A `JournalError` means nothing was said."""
        self._write(json_line({"saved": saved_digest}))

    def _write(self, line: bytes) -> bytes:
        # A short write is not a failure by itself (a large line, a signal): the rest is written, and
        # only an error says why it stopped (ENOSPC a full disk, EFBIG a file size limit).
        written = 0
        problem = None
        try:
            while written < len(line):
                count = os.write(self._fd, line[written:] if written else line)
                if count == 0:
                    problem = f"the write stopped after {written} of {len(line)} bytes"
                    break
                written += count
        except OSError as error:
            problem = error.strerror or str(error)
        if problem is not None:
            with contextlib.suppress(OSError):  # cut a partial line: every line stays whole
                os.ftruncate(self._fd, self._size)
            raise JournalError(f"{self.path}: cannot write the journal: {problem}")
        self._size += written
        return line

    def close(self, remove: bool) -> None:
        """Release the lock; remove the journal once the cassette holds everything."""
        if remove:
            self.path.unlink(missing_ok=True)
        os.close(self._fd)


@dataclass(frozen=True, slots=True)
class JournalContents:
    """What a journal holds: its mode, upstream, exchanges by arrival, and whether its tail was torn;
    from version 2 on, the cassette it belongs to, the digest of the file it started from and of the
    file sealed to replace it (`identified`: whether those are known)."""

    mode: JournalMode
    upstream: str | None
    exchanges: tuple[Exchange, ...]
    torn_tail: bool
    identified: bool = False
    cassette: str | None = None
    base: str | None = None
    saved: str | None = None


def is_locked(path: Path) -> bool:
    """Whether a running `record` holds this journal."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO's open would wait for a writer
    except FileNotFoundError:
        return False
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return False  # no record writes one; whoever reads it says what it is
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)


def read_journal(path: Path) -> JournalContents:
    """Read a journal; a torn last line (the crash) is dropped, any other bad line is an error."""
    try:
        lines = read_regular_file(path).split(b"\n")
    except NotRegularFile:
        raise JournalError(f"{path}: not a regular file; a journal is one") from None
    except OSError as error:
        raise JournalError(f"{path}: cannot read the journal: {error.strerror}") from None
    # A complete journal ends with a newline, so the last piece is empty; otherwise it is torn.
    torn_tail = lines[-1] != b""
    lines = lines[:-1]
    if not lines:
        return JournalContents("replace", None, (), torn_tail)
    header = _parse_line(path, 1, lines[0])
    version = header.get("commerce_proxy_journal") if isinstance(header, dict) else None
    if version not in READABLE_VERSIONS or isinstance(version, bool):
        raise JournalError(f"{path}:1: not a commerce-proxy journal (version {JOURNAL_VERSION})")
    mode = header.get("mode")
    if mode not in ("append", "replace"):
        raise JournalError(f"{path}:1: unknown journal mode {mode!r}")
    entries: list[tuple[int, Exchange]] = []
    saved = None
    now = clock.now()  # a recording after it is outside the cassette format
    for number, raw in enumerate(lines[1:], start=2):
        document = _parse_line(path, number, raw)
        if isinstance(document, dict) and isinstance(document.get("saved"), str) and "seq" not in document:
            saved = document["saved"]
            continue
        try:
            entries.append(journal_entry(document, now))
        except (KeyError, TypeError, ValueError, AttributeError):
            raise JournalError(f"{path}:{number}: not a journal entry") from None
        except CassetteFormatError as error:
            raise JournalError(f"{path}:{number}: {error}") from None
    entries.sort(key=lambda entry: entry[0])
    upstream = header.get("upstream")
    problem = upstream_problem(upstream) if isinstance(upstream, str) else None
    if problem is not None:
        raise JournalError(f"{path}:1: upstream: {problem}")
    identified = version >= 2 and isinstance(header.get("cassette"), str)
    base = header.get("base")
    return JournalContents(
        mode,
        upstream if isinstance(upstream, str) else None,
        tuple(exchange for _, exchange in entries),
        torn_tail,
        identified=identified,
        cassette=header["cassette"] if identified else None,
        base=base if isinstance(base, str) else None,
        saved=saved,
    )


def _parse_line(path: Path, number: int, raw: bytes) -> Any:
    try:
        return parse_json_line(raw)
    except ValueError:
        raise JournalError(f"{path}:{number}: not a JSON line") from None
