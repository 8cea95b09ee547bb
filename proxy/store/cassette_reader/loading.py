"""Loading a cassette whole: from its parse cache or its YAML, with the journal of a recording that
did not stop cleanly folded in first.

Loading a cassette whose `record` died (a journal beside it and no live lock) folds the journal in,
saves, removes the journal, and says so in one note.
"""

from __future__ import annotations

import errno
import gc
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from proxy.core.cassette.document import Cassette
from proxy.errors import JournalError
from proxy.store.cassette_folders import cassette_paths
from proxy.store.cassette_reader.parse_cache import cached_cassette, file_state
from proxy.store.cassette_reader.yaml_stream import YamlExchanges
from proxy.store.journal import cassette_of, file_digest, is_locked, journal_path, read_journal
from proxy.store.saving import save_cassette
from proxy.store.writing import folder_lock


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
            read = YamlExchanges(path, state)
            exchanges = tuple(read)
            cassette = Cassette(exchanges, read.top.upstream, read.top.confirmed_at)
    finally:
        if collecting:
            gc.enable()
    return cassette


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


def load_cassettes(paths: list[Path]) -> list[Loaded]:
    """Load every cassette the paths name (files or folders); an empty folder is an error."""
    return [load_cassette(file) for file in cassette_paths(paths)]
