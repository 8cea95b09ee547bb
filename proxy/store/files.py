"""Loading and saving cassette files: atomic writes, folders of cassettes, journal recovery.

Loading a cassette whose `record` died (a journal beside it and no live lock) folds the journal in,
saves, removes the journal, and says so in one note.
"""

from __future__ import annotations

import gc
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from proxy.core.cassette import Cassette, comment_line, dump_cassette, parse_cassette
from proxy.errors import CassetteFormatError, CommerceProxyError
from proxy.store.journal import (
    JOURNAL_SUFFIX,
    NotRegularFile,
    is_locked,
    journal_path,
    read_journal,
    read_regular_file,
)
from proxy.store.parse_cache import cached_cassette, file_state, remember_cassette

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
            raw = _file_bytes(path)
            cassette = parse_cassette(_text_of(raw, path), str(path))
            remember_cassette(path, raw, state, cassette)
    finally:
        if collecting:
            gc.enable()
    return cassette


def _file_bytes(path: Path, what: str = "cassette") -> bytes:
    try:
        return read_regular_file(path)
    except FileNotFoundError:
        raise CommerceProxyError(f"{path}: no such {what}") from None
    except IsADirectoryError:
        raise CommerceProxyError(f"{path}: is a folder, expected a file ({what})") from None
    except NotRegularFile:
        raise CommerceProxyError(f"{path}: not a regular file, expected a file ({what})") from None
    except OSError as error:
        raise CommerceProxyError(f"{path}: cannot read: {error.strerror}") from None


def _text_of(raw: bytes, path: Path) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        raise CassetteFormatError(f"{path}:{line}: not UTF-8 text") from None


def load_cassette(path: Path) -> Loaded:
    """Load a cassette, first recovering the journal of a recording that did not stop cleanly."""
    journal = journal_path(path)
    if not journal.exists():
        return Loaded(path, read_cassette_file(path))
    contents = read_journal(journal)
    locked = is_locked(journal)
    count = len(contents.exchanges)
    base = Cassette(upstream=contents.upstream)
    if path.exists() and (contents.mode == "append" or not count):
        base = read_cassette_file(path)
    if not count:  # the recording died before its first answer: nothing to keep or write
        if not locked:
            journal.unlink(missing_ok=True)
        return Loaded(path, base, (f"{path}: {journal.name} held no exchanges; nothing to recover",))
    merged = Cassette(
        exchanges=base.exchanges + contents.exchanges,
        upstream=base.upstream or contents.upstream,
    )
    if locked:
        note = f"{path}: being recorded right now; read {count} journaled exchanges as well"
        return Loaded(path, merged, (note,))
    save_cassette(path, merged)
    journal.unlink(missing_ok=True)
    torn = " (a torn last line was dropped)" if contents.torn_tail else ""
    note = (
        f"{path}: recovered {count} exchanges from {journal.name}: the recording did not stop cleanly{torn}"
    )
    return Loaded(path, merged, (note,))


@dataclass(frozen=True, slots=True)
class Editable:
    """A cassette about to be rewritten: its text as on disk and the line of a hand-written comment."""

    path: Path
    cassette: Cassette
    text: str
    comment_line: int | None


def load_for_edit(path: Path) -> Editable:
    """Read a cassette for an edit; refused while `record` is writing it (its journal is locked)."""
    journal = journal_path(path)
    if journal.exists() and is_locked(journal):
        raise CommerceProxyError(f"{path}: being recorded right now; stop `record` before editing it")
    if journal.exists():
        load_cassette(path)  # fold the journal of a recording that died into the file first
    state = file_state(path)
    raw = _file_bytes(path)
    text = _text_of(raw, path)
    cassette = cached_cassette(path, state) or parse_cassette(text, str(path))
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


def save_cassette(path: Path, cassette: Cassette) -> None:
    """Write a cassette atomically (a temporary file beside it, then a rename), and its parse cache."""
    text = dump_cassette(cassette)
    write_atomically(path, text, "the cassette")
    remember_cassette(path, text.encode("utf-8"), file_state(path), cassette)


def write_atomically(path: Path, text: str, what: str = "the file") -> None:
    """Write text through a temporary file and a rename: readers see the old file or the new one."""
    temporary = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, path)
    except OSError as error:
        temporary.unlink(missing_ok=True)
        raise CommerceProxyError(f"{path}: cannot write {what}: {error.strerror}") from None


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
