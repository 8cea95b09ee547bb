"""Loading and saving cassette files: atomic writes, folders of cassettes, journal recovery.

Loading a cassette whose `record` died (a journal beside it and no live lock) folds the journal in,
saves, removes the journal, and says so in one note.
"""

from __future__ import annotations

import contextlib
import errno
import gc
import hashlib
import json
import logging
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import yaml

from proxy.core.cassette.comments import comment_line
from proxy.core.cassette.document import (
    Cassette,
    NotStreamed,
    parse_cassette,
    streamed_exchange,
    streamed_top,
)
from proxy.core.cassette.plain_items import CassetteItems
from proxy.core.cassette.safe_yaml import NotStreamable
from proxy.core.model.exchange import Exchange
from proxy.errors import CassetteFormatError, CommerceProxyError, JournalError
from proxy.store import clock
from proxy.store.cassette_reader import second_half
from proxy.store.cassette_reader.second_half import SecondHalf
from proxy.store.journal import (
    JOURNAL_SUFFIX,
    NotRegularFile,
    cassette_of,
    file_digest,
    is_locked,
    journal_path,
    open_regular_file,
    read_journal,
)
from proxy.store.parse_cache import (
    EntryWriter,
    cached_cassette,
    cached_count,
    cached_exchanges,
    file_state,
    remember_cassette,
    request_line_of,
)
from proxy.store.saving import save_cassette
from proxy.store.writing import folder_lock

log = logging.getLogger(__name__)

CASSETTE_SUFFIXES = (".yaml", ".yml")


@dataclass(frozen=True, slots=True)
class Loaded:
    """A cassette read from disk, and anything worth telling the user about reading it."""

    path: Path
    cassette: Cassette
    notes: tuple[str, ...] = field(default=())


def read_cassette_file(path: Path) -> Cassette:
    """Parse one cassette file (or take it from its parse cache), without looking at its journal."""
    collecting = gc.isenabled()
    gc.disable()  # parsing builds millions of acyclic objects; the cyclic collector would rescan them all
    try:
        state = file_state(path)
        cassette = cached_cassette(path, state)
        if cassette is None:
            top: list[Cassette] = []
            exchanges = tuple(_streamed_from_yaml(path, state, 0, top))
            cassette = Cassette(exchanges, top[0].upstream, top[0].confirmed_at)
    finally:
        if collecting:
            gc.enable()
    return cassette


def _parsed_whole(path: Path, state: os.stat_result | None) -> Cassette:
    """The whole-document parse, which reports any problem with its line; its result is cached."""
    raw = _file_bytes(path)
    cassette = parse_cassette(_text_of(raw, path), str(path), clock.now())
    remember_cassette(path, raw, state, cassette)
    return cassette


def _file_bytes(path: Path, what: str = "cassette") -> bytes:
    with _opened(path, what) as stream:
        try:
            return stream.read()
        except OSError as error:
            raise CommerceProxyError(f"{path}: cannot read: {error.strerror}") from None


def _text_of(raw: bytes, path: Path) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        raise CassetteFormatError(f"{path}:{line}: not UTF-8 text") from None


def load_cassette(path: Path) -> Loaded:
    """Load a cassette, first recovering the journal of a recording that did not stop cleanly.

    A journal is folded in exactly once, and only into its own cassette: one the cassette already holds
    (a recording stopped, or was killed, just after saving) is removed quietly, and one of another
    cassette or of an older version of this one is refused, its exchanges left where they are.
    """
    journal = journal_path(path)
    if not _may_exist(journal):
        return Loaded(path, read_cassette_file(path))
    for _ in range(_RACE_RETRIES):
        loaded = _load_with_journal(path, journal)
        if loaded is not None:
            return loaded
        time.sleep(0.02)  # a recording is saving this cassette right now: read again once it has
    raise JournalError(f"{path}: changed on every read while its journal was being folded in; try again")


_RACE_RETRIES = 250  # 5 s of a recording saving at the same time


def _may_exist(journal: Path) -> bool:
    """Whether a journal is there; a cassette named so long that its journal's name cannot exist on the
    file system (ENAMETOOLONG) has none, and is read like any other."""
    try:
        return journal.exists()
    except OSError as error:
        if error.errno == errno.ENAMETOOLONG:
            return False
        raise


def _load_with_journal(path: Path, journal: Path) -> Loaded | None:
    """The cassette with its journal folded in or dropped as `load_cassette` says; None when the files
    changed under the read (a recording saving the cassette meanwhile), to be read again."""
    try:
        contents = read_journal(journal)
    except JournalError:
        if not journal.exists():
            return None  # removed by the recording that finished meanwhile
        raise
    locked = is_locked(journal)
    before = _stamp(path)
    if contents.identified:
        expected = cassette_of(journal).name
        if contents.cassette != expected:
            raise JournalError(
                f"{journal}: the journal of {contents.cassette!r}, not of {expected!r}; nothing was folded "
                f"in: move it beside its own cassette, or remove it"
            )
        current = file_digest(path)
        if _stamp(path) != before:
            return None
        if contents.saved is not None and current == contents.saved:  # already in the cassette
            cassette = read_cassette_file(path)
            if _stamp(path) != before:
                return None
            if not locked:
                journal.unlink(missing_ok=True)
            return Loaded(path, cassette)
        if current != contents.base:
            if locked and contents.saved is not None:
                return None  # the recording is sealing it right now
            if not locked:
                _raise_other_version(journal, path, len(contents.exchanges))
            # else edited while the recording runs: it adds its exchanges to the file as it is
    count = len(contents.exchanges)
    base = Cassette(upstream=contents.upstream)
    if path.exists() and (contents.mode == "append" or not count):
        base = read_cassette_file(path)
        if _stamp(path) != before:
            return None
    if not count:  # the recording died before its first answer: nothing to keep or write
        if not locked:
            journal.unlink(missing_ok=True)
        return Loaded(path, base, (f"{path}: {journal.name} held no exchanges; nothing to recover",))
    merged = Cassette(
        exchanges=base.exchanges + contents.exchanges,
        upstream=base.upstream or contents.upstream,
        confirmed_at=base.confirmed_at,
    )
    if locked:
        note = f"{path}: being recorded right now; read {count} journaled exchanges as well"
        return Loaded(path, merged, (note,))
    with folder_lock(path):  # no edit between the look above and the save
        if _stamp(path) != before:
            return None
        save_cassette(path, merged)
        journal.unlink(missing_ok=True)
    torn = " (a torn last line was dropped)" if contents.torn_tail else ""
    note = (
        f"{path}: recovered {count} exchanges from {journal.name}: the recording did not stop cleanly{torn}"
    )
    return Loaded(path, merged, (note,))


def _raise_other_version(journal: Path, path: Path, count: int) -> None:
    raise JournalError(
        f"{journal}: left by a recording of another version of {path.name} (the cassette changed "
        f"since it began); nothing was folded in: move it away to keep its {count} exchanges, or remove it"
    )


def _stamp(path: Path) -> tuple[int, int, int, int] | None:
    """What changes whenever a file is written or replaced (inode, size, mtime, ctime)."""
    try:
        state = os.stat(path)
    except FileNotFoundError:
        return None
    return (state.st_ino, state.st_size, state.st_mtime_ns, state.st_ctime_ns)


@dataclass(frozen=True, slots=True)
class Streamed:
    """A cassette's exchanges for one pass, read as they are used, and anything worth telling."""

    path: Path
    exchanges: Iterator[Exchange]
    notes: tuple[str, ...] = field(default=())


def stream_cassette(path: Path) -> Streamed:
    """A cassette's exchanges one at a time, for a single pass in order (`check`): memory holds about
    one exchange, not the cassette, however many it has.

    They come from the parse cache when it has the file, else from the YAML read item by item (which
    fills the cache as it goes). Anything that way of reading does not take (an older format, merge
    keys or tags, any problem at all) is read by the whole-document parse instead, from where it got to,
    so a cassette gives the same exchanges and the same errors, with their lines, either way. A cassette
    with a journal beside it is loaded whole, as `load_cassette` recovers it.
    """
    if journal_path(path).exists():
        loaded = load_cassette(path)
        return Streamed(path, iter(loaded.cassette.exchanges), loaded.notes)
    return Streamed(path, (exchange for _, exchange in _numbered(path, second_half.CHECKED_SHARE)))


def stream_history(
    path: Path, split: int, wanted: Callable[[str, str, str], bool]
) -> Iterator[tuple[int, Exchange]]:
    """`stream_cassette`'s exchanges numbered, less those before number `split` whose request (method,
    path, query) is not `wanted`, passed over unread when the parse cache has them: a checker catching
    up on the history before its part needs only what its observers watch."""
    if journal_path(path).exists():
        return enumerate(stream_cassette(path).exchanges)

    def passed_over(index: int, line: bytes) -> bool:
        request = request_line_of(line) if index < split else None
        return request is not None and not wanted(*request)

    return _numbered(path, second_half.CHECKED_SHARE, passed_over)


def warm_count(path: Path) -> int | None:
    """How many exchanges `stream_cassette` will give from the parse cache, known before reading them;
    None when the cassette is not streamed from the cache (a miss, a journal beside it)."""
    if journal_path(path).exists():
        return None
    return cached_count(path, file_state(path))


def _numbered(
    path: Path, share: float, passed_over: Callable[[int, bytes], bool] | None = None
) -> Iterator[tuple[int, Exchange]]:
    """The exchanges with their numbers, from the cache (less the lines `passed_over` names) or else
    from the YAML."""
    state = file_state(path)
    given = 0  # lines of the cache entry gone through
    cached = cached_exchanges(path, state)
    if cached is not None:
        try:
            for line in cached.lines():
                if passed_over is None or not passed_over(given, line):
                    yield given, cached.exchange(line)
                given += 1
            return
        except (OSError, ValueError, TypeError) as error:  # a damaged entry: the YAML has the rest
            log.debug("cache entry for %s is damaged: %s", path, error)
    yield from enumerate(_streamed_from_yaml(path, state, given, share=share), start=given)


def _streamed_from_yaml(
    path: Path,
    state: os.stat_result | None,
    skip: int,
    found_top: list[Cassette] | None = None,
    share: float = second_half.SHARE,
) -> Iterator[Exchange]:
    """The YAML's exchanges from number `skip` on, read item by item while the cache entry is written
    (about as fast as the whole-document parse, in memory for one item); the cassette's own fields
    (upstream, confirmed_at) are added to `found_top` at the end. A large file is split at `share` of
    it: a child reads the rest, whose exchanges are given as it writes them (`stream_cassette` reads
    less here: it checks each)."""
    index = 0
    writer = EntryWriter.start(path, state)
    second: SecondHalf | None = None
    try:
        with _opened(path) as stream:
            if stream.read(2) in (b"\xff\xfe", b"\xfe\xff"):  # UTF-16: the whole parse refuses it
                raise NotStreamed
            stream.seek(0)
            size = state.st_size if state else 0
            started, now = time.monotonic(), clock.now()
            second = SecondHalf.start(stream.fileno(), size, share)  # a child reads the rest meanwhile
            hashing = _Hashing(stream, second.split if second is not None else None)
            items = CassetteItems(hashing, size, "exchanges")
            for top, item in items:
                exchange = streamed_exchange(top, item, index, now)
                if writer is not None:
                    writer.add(exchange)
                if index >= skip:
                    yield exchange
                index += 1
            top = items.top
            found = streamed_top(top)
            if second is not None:
                if not isinstance(top, dict) or list(top)[-1:] != ["exchanges"]:
                    raise NotStreamed  # the split was not inside the list: read the file whole
                hashing.rest()
                patience = second.patience(time.monotonic() - started)
                for line, exchange in second.exchanges(patience, found.confirmed_at):
                    if writer is not None:
                        writer.add(exchange, line)
                    if index >= skip:
                        yield exchange
                    index += 1
        if writer is not None:
            writer.finish(hashing.digest.hexdigest(), found.upstream, found.confirmed_at)
    except (NotStreamable, NotStreamed, yaml.YAMLError, ValueError):
        if writer is not None:
            writer.abandon()
        # The whole-document parse reports any problem with its line, or reads what streaming does not.
        cassette = _parsed_whole(path, state)
        found = cassette
        yield from cassette.exchanges[max(index, skip) :]
    except OSError as error:  # the file could not be read to its end
        if writer is not None:
            writer.abandon()
        raise CommerceProxyError(f"{path}: cannot read: {error.strerror or error}") from None
    except BaseException:
        if writer is not None:
            writer.abandon()
        raise
    finally:
        if second is not None:
            second.stop()
    if found_top is not None:
        found_top.append(found)


class _Hashing:
    """A binary stream, ending at `end` when given, that hashes what is read from it (the cache entry's
    key is the YAML's SHA-256)."""

    def __init__(self, stream: BinaryIO, end: int | None = None) -> None:
        self._stream = stream
        self._left = end
        self.digest = hashlib.sha256()

    def read(self, size: int = -1) -> bytes:
        if self._left is not None:
            size = self._left if size < 0 else min(size, self._left)
        chunk = self._stream.read(size)
        if self._left is not None:
            self._left -= len(chunk)
        self.digest.update(chunk)
        return chunk

    def rest(self) -> None:
        """Hash the bytes past the end as well (another process parsed them)."""
        while chunk := self._stream.read(1 << 20):
            self.digest.update(chunk)


@contextlib.contextmanager
def _opened(path: Path, what: str = "cassette") -> Iterator[BinaryIO]:
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


@dataclass(frozen=True, slots=True)
class Editable:
    """A cassette about to be rewritten: its text as on disk and the line of a hand-written comment."""

    path: Path
    cassette: Cassette
    text: str
    comment_line: int | None


def load_for_edit(path: Path) -> Editable:
    """Read a cassette for an edit (the file alone: a `record` writing it meanwhile adds its exchanges
    to the file as the edit leaves it, under the lock every writer takes)."""
    journal = journal_path(path)
    if journal.exists() and not is_locked(journal):
        load_cassette(path)  # fold the journal of a recording that died into the file first
    state = file_state(path)
    raw = _file_bytes(path)
    text = _text_of(raw, path)
    cassette = cached_cassette(path, state) or parse_cassette(text, str(path), clock.now())
    return Editable(path, cassette, text, comment_line(text))


def read_json_file(path: Path, what: str) -> Any:
    """A JSON document from a file (a HAR...); errors name the file and line."""
    raw = _file_bytes(path, what)
    try:
        return json.loads(_text_of(raw, path))
    except json.JSONDecodeError as error:
        raise CassetteFormatError(f"{path}:{error.lineno}: not valid JSON: {error.msg}") from None
    except RecursionError:
        raise CassetteFormatError(f"{path}: not usable JSON: nested too deeply") from None


def cassette_files(path: Path) -> list[Path]:
    """A cassette file as given, or every cassette in a folder (recursively, sorted by path).

    A journal whose cassette was never written (a first recording that crashed) counts too.
    """
    if not path.is_dir():
        return [path]
    found = {
        candidate
        for candidate in path.rglob("*")
        if candidate.suffix in CASSETTE_SUFFIXES
        and candidate.is_file()
        and not candidate.name.startswith(".")
    }
    for orphan in path.rglob(f"*{JOURNAL_SUFFIX}"):
        cassette = orphan.with_name(orphan.name[: -len(JOURNAL_SUFFIX)])
        if cassette.suffix in CASSETTE_SUFFIXES:
            found.add(cassette)
    return sorted(found)


def cassette_paths(paths: list[Path]) -> list[Path]:
    """Every cassette file the paths name (files, or folders searched); an empty folder is an error."""
    found: list[Path] = []
    for given in paths:
        files = cassette_files(given)
        if not files:
            raise CommerceProxyError(f"{given}: no cassettes (*.yaml) in this folder")
        found.extend(files)
    return found


def load_cassettes(paths: list[Path]) -> list[Loaded]:
    """Load every cassette the paths name (files or folders); an empty folder is an error."""
    return [load_cassette(file) for file in cassette_paths(paths)]
