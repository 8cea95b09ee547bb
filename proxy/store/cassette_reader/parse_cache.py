"""A cache of each parsed cassette beside it, so loading a large cassette again skips the YAML parse.

The YAML stays the source of truth. `.commerce-proxy-cache/NAME.json` beside `NAME.yaml` holds the parsed
cassette as JSON lines, one per exchange, so it can be read one exchange at a time (loading JSON runs no
code, unlike pickle or marshal, and orjson reads it at hundreds of MB/s), under a first line naming the
SHA-256 of the YAML bytes it was parsed from, the cassette format and the tool version: an edited,
replaced or checked-out cassette is a miss, never a stale answer. The folder
holds a `.gitignore` of `*`, so it is never committed. A warm load does not even read the YAML: the
entry's first line holds the file's stat (inode, size, mtime and ctime, as git's index does), and a file
changed within two seconds of its entry's writing is confirmed by its hash instead. An entry that
cannot be read, written or trusted is a miss, never an error. Cassettes under 1 MB parse fast and are
not cached.

COMMERCE_PROXY_CACHE=off turns the cache off; COMMERCE_PROXY_CACHE=DIR keeps the entries in DIR instead
(for cassettes in read-only folders).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import logging
import os
import stat
import time
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

import orjson

from proxy.core.cassette.cache_line import Seen, closing_line, entry_line, exchange_of_entry
from proxy.core.cassette.document import FORMAT_VERSION, Cassette
from proxy.core.model.confirmation import confirmed_at_problem
from proxy.core.model.domain import exchange_fault, upstream_problem
from proxy.core.model.exchange import Exchange
from proxy.errors import CommerceProxyError
from proxy.store import clock
from proxy.store.cassette_reader.cache_paths import FOLDER_NAME, entry_path
from proxy.store.writing import FOLDER_FLAGS, NewFile, open_folder, write_file
from proxy.version import __version__

log = logging.getLogger(__name__)

# Bytes of YAML. The cache pays from any size (50 bench exchanges, 0.4 MB: 2 ms warm against 58 ms
# parsed); below 1 MB a parse takes under 0.1 s, and a file per small cassette is not worth keeping.
SMALLEST_CACHED = 1024 * 1024

_warned: set[str] = set()


def _owned(descriptor: int, where: Path, what: str) -> bool:
    """Whether a cache folder or entry is the user's own: theirs, and no one else may change it (a
    folder shared with other users could hold their planted entries). Otherwise warned about once."""
    state = os.fstat(descriptor)
    if state.st_uid == os.geteuid() and not state.st_mode & 0o022:
        return True
    if str(where) not in _warned:
        _warned.add(str(where))
        log.warning(
            "%s: the parse cache %s is not the user's own (another owner, or others may write it); "
            "it is neither read nor written",
            where,
            what,
        )
    return False


def _open_cache_folder(folder: Path, create: bool) -> int | None:
    """The cache folder's descriptor, when it is a folder of the user's own (not a link): reading
    reaches its parent as named, writing without following a link (`proxy.store.writing`)."""
    try:
        if create:
            parent = open_folder(folder.parent, "the parse cache", create=True)
        else:
            parent = os.open(folder.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except (OSError, CommerceProxyError) as error:
        log.debug("cannot use the parse cache in %s: %s", folder, error)
        return None
    try:
        made = False
        if create:
            with contextlib.suppress(FileExistsError):
                os.mkdir(folder.name, 0o700, dir_fd=parent)
                made = True
        descriptor = os.open(folder.name, FOLDER_FLAGS, dir_fd=parent)
    except OSError as error:
        if error.errno in (errno.ELOOP, errno.ENOTDIR):
            _owned_link_warning(folder)
        return None
    finally:
        os.close(parent)
    if not _owned(descriptor, folder, "folder"):
        os.close(descriptor)
        return None
    if made and folder.name == FOLDER_NAME:
        with contextlib.suppress(CommerceProxyError):
            write_file(folder / ".gitignore", GITIGNORE, "the parse cache", folder=descriptor)
    return descriptor


def _owned_link_warning(folder: Path) -> None:
    if os.path.islink(folder) and str(folder) not in _warned:
        _warned.add(str(folder))
        log.warning("%s: the parse cache folder is a symbolic link; it is neither read nor written", folder)


GITIGNORE = b"# commerce-proxy's parse cache: never committed\n*\n"


def _open_entry(entry: Path) -> BinaryIO | None:
    """The entry opened for reading when it and its folder are the user's own, else None."""
    folder = _open_cache_folder(entry.parent, create=False)
    if folder is None:
        return None
    try:
        descriptor = os.open(
            entry.name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=folder
        )
    except OSError:
        return None
    finally:
        os.close(folder)
    if not stat.S_ISREG(os.fstat(descriptor).st_mode) or not _owned(descriptor, entry, "entry"):
        os.close(descriptor)
        return None
    return os.fdopen(descriptor, "rb", buffering=BUFFER_BYTES)


RACY_NS = 2_000_000_000  # a file changed this close to its entry's writing is checked by its hash
KEY_BYTES = 512  # the first line, padded: written last, in place, once the YAML's hash is known
TAIL_BYTES = 64 * 1024  # where an entry's closing line is looked for
# An exchange's line is about 5 KB: with the default 8 KB buffer nearly every line costs a read call
# (3.6 us a line here, against 1.4 us with this buffer), and writing 1,000 lines 5.3 ms against 2.4.
BUFFER_BYTES = 64 * 1024


def file_state(path: Path) -> os.stat_result | None:
    """The file's stat, taken before reading it, to key the entry; None when it cannot be taken."""
    try:
        return os.stat(path)
    except OSError:
        return None


def _stamp(state: os.stat_result) -> str:
    # Any write to the file changes its ctime (which no tool can set back) and a replacement changes
    # the inode: git's index trusts the same fields.
    return f"{state.st_dev} {state.st_ino} {state.st_size} {state.st_mtime_ns} {state.st_ctime_ns}"


# Raised whenever the cassette reader starts refusing something it accepted: an entry written before
# was judged by the older reader.
READER_REVISION = 5  # 4: the key line carries the cassette's confirmed_at; 5: keys outside the format


def _prefix() -> str:
    return f"commerce-proxy {__version__} format {FORMAT_VERSION} reader {READER_REVISION} lines stat "


def cached_cassette(path: Path, state: os.stat_result | None) -> Cassette | None:
    """The cassette parsed earlier from the file as it is now (`state`), if the cache has it."""
    exchanges = cached_exchanges(path, state)
    if exchanges is None:
        return None
    try:
        items = tuple(exchanges)
    except Exception as error:  # a damaged or foreign entry: parse the YAML instead
        log.debug("ignoring cache entry for %s: %s", path, error)
        return None
    return Cassette(items, exchanges.upstream, exchanges.confirmed_at)


class CachedExchanges:
    """The exchanges of a cache entry, read one line at a time; `upstream` is known once all are read,
    the cassette's `confirmed_at` (from the key line, given to every exchange) from the start.

    Iterating raises ValueError (or OSError) at a damaged line, or at the end when the closing line
    is missing or its count is wrong: an entry cut short is never taken for a shorter cassette.
    """

    def __init__(self, stream: BinaryIO, confirmed_at: str | None = None) -> None:
        self.stream = stream
        self.upstream: str | None = None
        self.confirmed_at = confirmed_at
        self.now = clock.now()  # what a recording may not be after: an entry is judged as it is read
        self._seen: Seen = {}  # equal header sets share a tuple

    def __iter__(self) -> Iterator[Exchange]:
        return (exchange for _, exchange in self.with_lines())

    def with_lines(self) -> Iterator[tuple[bytes, Exchange]]:
        """Each exchange with the line it was read from."""
        return ((line, self.exchange(line)) for line in self.lines())

    def exchange(self, line: bytes) -> Exchange:
        """The exchange of one of `lines` (ValueError or TypeError when it is not one, or when a field
        is outside the domain the cassette reader holds it to: a planted entry is a miss)."""
        exchange = exchange_of_entry(orjson.loads(line), self._seen, self.confirmed_at)
        fault = exchange_fault(exchange, self.now)
        if fault is not None:
            raise ValueError(f"an entry the cassette reader would refuse: {fault}")
        return exchange

    def lines(self) -> Iterator[bytes]:
        """Each exchange's line, unread (see `exchange` and `request_line_of`)."""
        count = 0
        with self.stream as stream:
            for line in stream:
                if line.startswith(b"["):
                    yield line
                    count += 1
                    continue
                trailer = orjson.loads(line)
                upstream = trailer.get("upstream") if isinstance(trailer, dict) else 0
                if trailer != {"upstream": upstream, "count": count} or not (
                    upstream is None or (isinstance(upstream, str) and upstream_problem(upstream) is None)
                ):
                    raise ValueError("not a cassette entry's closing line")
                if stream.read(1):
                    raise ValueError("lines after the closing line")
                self.upstream = upstream
                return
        raise ValueError("the entry ends before its closing line")


def cached_exchanges(path: Path, state: os.stat_result | None) -> CachedExchanges | None:
    """The exchanges parsed earlier from the file as it is now (`state`), if the cache has them.

    The file is not read when its stat matches the entry's and it last changed well before the entry
    was written; otherwise a matching stat is confirmed by the SHA-256 of the file's bytes.
    """
    entry = entry_path(path) if state is not None and state.st_size >= SMALLEST_CACHED else None
    if entry is None or state is None:
        return None
    stream = _open_entry(entry)
    if stream is None:
        return None
    try:
        key = stream.readline(KEY_BYTES).decode("utf-8", "replace").rstrip().split(" written ")
        if len(key) != 2 or key[0] != _prefix() + _stamp(state):
            stream.close()
            return None
        written, _, hashed = key[1].partition(" sha256 ")
        digest, _, confirmed = hashed.partition(" confirmed ")
        confirmed_at = None if confirmed == NOT_CONFIRMED else confirmed
        racy = state.st_ctime_ns > int(written) - RACY_NS
        unusable = confirmed_at is not None and confirmed_at_problem(confirmed_at, None) is not None
        if unusable or (racy and _file_sha256(path) != digest):
            stream.close()
            return None
    except Exception as error:  # a damaged or foreign entry: parse the YAML instead
        stream.close()
        log.debug("ignoring cache entry %s: %s", entry, error)
        return None
    return CachedExchanges(stream, confirmed_at)


NOT_CONFIRMED = "-"


def cached_count(path: Path, state: os.stat_result | None) -> int | None:
    """How many exchanges the cache holds for the file as it is now, read from the entry's closing line
    (the lines before it are not read); None when the cache does not have the file."""
    exchanges = cached_exchanges(path, state)
    if exchanges is None:
        return None
    try:
        with exchanges.stream as stream:
            size = stream.seek(0, os.SEEK_END)
            stream.seek(max(KEY_BYTES, size - TAIL_BYTES))
            trailer = orjson.loads(stream.read().rstrip(b"\n").rpartition(b"\n")[2])
    except (OSError, ValueError) as error:
        log.debug("cannot count the cache entry of %s: %s", path, error)
        return None
    count = trailer.get("count") if isinstance(trailer, dict) else None
    return count if type(count) is int and count >= 0 else None


def _file_sha256(path: Path) -> str:
    """The SHA-256 of a file, read in chunks (memory stays flat for any size)."""
    with path.open("rb") as stream:
        return hashlib.file_digest(stream, "sha256").hexdigest()


def remember_cassette(path: Path, raw: bytes, state: os.stat_result | None, cassette: Cassette) -> None:
    """Keep the cassette parsed from `raw` (read after `state` was taken); failing to is not an error."""
    if state is None or state.st_size != len(raw):
        return
    writer = EntryWriter.start(path, state)
    if writer is None:
        return
    for exchange in cassette.exchanges:
        writer.add(exchange)
    writer.finish(hashlib.sha256(raw).hexdigest(), cassette.upstream, cassette.confirmed_at)


class EntryWriter:
    """Writes an entry as a cassette is parsed, one exchange at a time, so a cassette read item by
    item is cached without being held whole. The entry appears (atomically) only at `finish`."""

    def __init__(self, entry: Path, new: NewFile, state: os.stat_result) -> None:
        self.entry = entry
        self.state = state
        self._new = new
        self._stream: BinaryIO | None = new.handle
        self._count = 0

    @classmethod
    def start(cls, path: Path, state: os.stat_result | None) -> EntryWriter | None:
        """A writer for the cassette at `path` as it is now (`state`); None when it is not cached."""
        entry = entry_path(path) if state is not None and state.st_size >= SMALLEST_CACHED else None
        if entry is None or state is None:
            return None
        folder = _open_cache_folder(entry.parent, create=True)
        if folder is None:
            return None
        try:
            new = NewFile(entry, "the parse cache", buffering=BUFFER_BYTES, folder=folder, mode=0o600)
        except CommerceProxyError as error:
            log.debug("cannot cache %s: %s", entry, error)
            return None
        finally:
            os.close(folder)
        try:
            new.handle.write(b" " * (KEY_BYTES - 1) + b"\n")  # the key goes here once the hash is known
        except OSError as error:
            new.abandon()
            log.debug("cannot cache %s: %s", entry, error)
            return None
        return cls(entry, new, state)

    def add(self, exchange: Exchange, line: bytes | None = None) -> None:
        """Add the next exchange (`line`: its entry line, when already made)."""
        if self._stream is None:
            return
        try:
            self._stream.write(line or entry_line(exchange))
            self._count += 1
        except (OSError, TypeError) as error:  # TypeError: a value JSON cannot hold (an int over 64 bits)
            log.debug("cannot cache %s: %s", self.entry, error)
            self.abandon()

    def finish(self, sha256: str, upstream: str | None, confirmed_at: str | None = None) -> None:
        """Close the entry with its key (the YAML's SHA-256, the cassette's confirmed_at) and put it in
        place."""
        stream = self._stream
        if stream is None:
            return
        self._stream = None
        confirmed = confirmed_at or NOT_CONFIRMED
        stamp = _stamp(self.state)
        key = f"{_prefix()}{stamp} written {time.time_ns()} sha256 {sha256} confirmed {confirmed}".encode()
        try:
            if len(key) >= KEY_BYTES:
                raise OSError("the key line is too long")
            stream.write(closing_line(upstream, self._count))
            stream.seek(0)
            stream.write(key)
            self._new.commit()
        except (OSError, CommerceProxyError) as error:
            self._new.abandon()
            log.debug("cannot cache %s: %s", self.entry, error)

    def abandon(self) -> None:
        """Drop the unfinished entry (the cassette turned out not to parse this way)."""
        self._stream = None
        self._new.abandon()
