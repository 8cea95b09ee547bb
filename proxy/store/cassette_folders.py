"""Which cassette files a path names: a file as given, or every cassette in a folder."""

from __future__ import annotations

from pathlib import Path

from proxy.errors import CommerceProxyError
from proxy.store.cassette_names import CASSETTE_SUFFIXES
from proxy.store.journal import JOURNAL_SUFFIX


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
