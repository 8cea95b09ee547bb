"""Which cassette files a path names: a file as given, or every cassette in a folder (not the project's
config, nor the baseline or rule files it names)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from proxy.errors import CommerceProxyError, RuleFileError
from proxy.store.cassette_names import CASSETTE_SUFFIXES
from proxy.store.journal import JOURNAL_SUFFIX
from proxy.store.rule_files import CONFIG_FILE, config_baseline, config_rule_folder, find_config

T = TypeVar("T")


def cassette_files(path: Path) -> list[Path]:
    """A cassette file as given, or every cassette in a folder (recursively, sorted by path).

    A journal whose cassette was never written (a first recording that crashed) counts too. The
    project's files are not cassettes: a `commerce-proxy.yaml`, and the baseline and rule folder named
    by it or by the config in force for the folder (found from it, as `find_config` finds it).
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
    return sorted(found - _project_files(path, found))


def _project_files(folder: Path, candidates: set[Path]) -> set[Path]:
    """Of `candidates`, the project's config files and what they name (a baseline, a rule folder's
    files): the configs among them, in `folder` or found above it."""
    configs = {candidate for candidate in candidates if candidate.name == CONFIG_FILE}
    governing = find_config(folder.absolute())
    if governing is not None:
        configs.add(governing)
    named: set[Path] = set()
    for config in configs:
        try:
            baseline, rules = config_baseline(config), config_rule_folder(config)
        except RuleFileError:  # a config that cannot be read: the command reading it says why
            continue
        named |= {_real(baseline)} if baseline is not None else set()
        named |= {_real(rule) for rule in rules.rglob("*")} if rules is not None and rules.is_dir() else set()
    return {
        candidate for candidate in candidates if candidate.name == CONFIG_FILE or _real(candidate) in named
    }


def _real(path: Path) -> Path:
    return Path(os.path.realpath(path))


def cassette_paths(paths: list[Path]) -> list[Path]:
    """Every cassette file the paths name (files, or folders searched); an empty folder is an error."""
    found: list[Path] = []
    for given in paths:
        files = cassette_files(given)
        if not files:
            raise CommerceProxyError(f"{given}: no cassettes (*.yaml) in this folder")
        found.extend(files)
    return once_each(found, lambda path: path)


def once_each(items: list[T], path_of: Callable[[T], Path]) -> list[T]:
    """The items with each file (`path_of` an item) once, as first named: `check shop.yaml ./shop.yaml`,
    a folder and a file in it, or a link beside the file it names would read its exchanges twice
    (counts doubled, a UI cassette filter naming neither copy). A file is told by its device and inode,
    a missing one by its absolute path."""
    seen: set[object] = set()
    kept: list[T] = []
    for item in items:
        path = path_of(item)
        try:
            state = path.stat()
            key: object = (state.st_dev, state.st_ino)
        except OSError:
            key = os.path.abspath(path)
        if key not in seen:
            seen.add(key)
            kept.append(item)
    return kept
