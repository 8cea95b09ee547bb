"""Where a command may write: checked once, before it starts work or serves, so no command writes over
one of its own inputs (whatever name it is given by), none finds out only at its end that it cannot
write there, and none replaces another cassette unless told to (`--force`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from proxy.errors import UsageError
from proxy.store.cassette_folders import cassette_files
from proxy.store.cassette_names import CASSETTE_SUFFIXES
from proxy.store.cassette_reader import cache_paths
from proxy.store.derived import Derived
from proxy.store.regular_files import open_regular_file
from proxy.store.writing import open_folder, plain_name, refuse_unwritable

CASSETTE_MARK = b"cassette_format"


@dataclass(frozen=True, slots=True)
class Input:
    """A file (or a folder of cassettes or rules) a command reads, and what it is to the command."""

    path: Path
    role: str = "a cassette"  # said in a refusal: "its config file", "a file of its rule folder"...
    folder_files: str = "cassettes"  # a folder stands for: its "cassettes", or "all" its files


def refuse_overwrite(
    output: Path,
    inputs: Iterable[Path | Input],
    what: str,
    force: bool | None = None,
    any_file: bool = False,
    create_folders: bool = False,
) -> None:
    """`UsageError` naming the reason when `output` cannot take `what`, checked in this order:
    it is not a file name or is a folder; it is one of `inputs` (by resolved path or inode: links and
    `..` included), with or without `--force`; its folder does not exist (unless `create_folders`: the
    writer makes it), is reached through a link, or cannot be written; a link, FIFO or device is at
    its name; or it is an existing cassette (any existing file, with `any_file`) and `force` is not
    set (None: the command has no `--force`, so it is refused outright)."""
    if output.is_dir():
        raise UsageError(f"{output}: is a folder; {what} is written to a file")
    plain_name(output, what)
    for given in inputs:
        item = given if isinstance(given, Input) else Input(given)
        for source in _files_of(item):
            if _same_file(output, source):
                shown = "" if item.role == "a cassette" else f"{item.role}, "
                raise UsageError(
                    f"{output}: is one of this command's inputs ({shown}{source}); {what} never "
                    "replaces an input: choose another file"
                )
    _refuse_derived(output, inputs, what)
    _refuse_unwritable_folder(output, what, create_folders)
    if output.exists() and not force and (any_file or is_cassette_file(output)):
        advice = "pass --force to replace it" if force is not None else "choose another file"
        kind = "cassette" if is_cassette_file(output) else "file"
        raise UsageError(f"{output}: is an existing {kind}; {what} would replace it: {advice}")


def derived_files(cassette: Path) -> list[Derived]:
    """Every file the tool keeps for `cassette` under a name derived from its path, as each store
    module that keeps one names it."""
    from proxy.store import journal, locks, writing

    return [
        *journal.derived_files(cassette),
        *cache_paths.derived_files(cassette),
        *locks.derived_files(cassette),
        *writing.derived_files(cassette),
    ]


def _refuse_derived(output: Path, inputs: Iterable[Path | Input], what: str) -> None:
    """`UsageError` when `output` names a file the tool keeps for one of the input cassettes (by the
    name given and the name it leads to), or anything in a cassette folder's parse cache folder."""
    found: list[tuple[str, Derived]] = []
    for given in inputs:
        item = given if isinstance(given, Input) else Input(given)
        if item.role != "a cassette":
            continue
        if item.path.is_dir():  # its own cache folder, even before a cassette of it is cached
            found.append(("the cassette folder's", cache_paths.folder_derived(item.path)))
        for cassette in _files_of(item):
            for spelling in dict.fromkeys([cassette, Path(os.path.realpath(cassette))]):
                found += [(f"{spelling.name}'s", derived) for derived in derived_files(spelling)]
    for owner, derived in sorted(found, key=lambda pair: pair[1].match == "folder"):  # exact first
        if derived.covers(output):
            raise UsageError(
                f"{output}: is {owner} {derived.what}; {what} never replaces a file the tool keeps "
                "for an input: choose another file"
            )


def _refuse_unwritable_folder(output: Path, what: str, create_folders: bool) -> None:
    """The writer's own checks of the way to `output` (no link, every part a folder), made now."""
    parent = output.parent
    existing = parent
    while not existing.exists() and not existing.is_symlink() and existing != existing.parent:
        existing = existing.parent
    if existing != parent and not create_folders:
        raise UsageError(
            f"{output}: no such folder {parent}; {what} is written only into an existing folder: "
            "make it first"
        )
    folder = open_folder(existing, what)  # a link on the way, or a part that is not a folder
    try:
        if existing == parent:
            refuse_unwritable(folder, output.name, output, what)
        if not os.access(existing, os.W_OK | os.X_OK):
            raise UsageError(f"{output}: cannot write {what} there: {existing} is not writable")
    finally:
        os.close(folder)


def _files_of(item: Input) -> list[Path]:
    if not item.path.is_dir():
        return [item.path]
    if item.folder_files == "cassettes":
        return cassette_files(item.path)
    return [path for path in sorted(item.path.rglob("*")) if path.is_file()]


def is_cassette_file(path: Path) -> bool:
    """Whether an existing file is (or is named as) a cassette: a .yaml/.yml name, or a file whose
    first 4 KB name the cassette format."""
    if path.suffix in CASSETTE_SUFFIXES:
        return True
    try:
        with open_regular_file(path) as handle:  # a FIFO would block an open(); it is refused here
            return CASSETTE_MARK in handle.read(4096)
    except OSError:
        return False


def _same_file(one: Path, other: Path) -> bool:
    try:
        return os.path.samefile(one, other)
    except OSError:  # one of them does not exist (yet): compare where their names lead
        return os.path.realpath(one) == os.path.realpath(other)
