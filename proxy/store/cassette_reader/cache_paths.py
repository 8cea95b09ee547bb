"""Where the parse cache (`cassette_reader/parse_cache.py`) keeps what it parsed from a cassette: the one
place its names are made, for the cache itself and for the check of where a report may go."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from proxy.store.derived import Derived
from proxy.store.writing import temporary_prefix

FOLDER_NAME = ".commerce-proxy-cache"


def folder_derived(folder: Path) -> Derived:
    """The cache folder of the cassettes in `folder`: everything in it is the tool's."""
    return Derived(folder / FOLDER_NAME, "parse cache folder", "folder")


def entry_path(path: Path) -> Path | None:
    """Where the entry for the cassette at `path` lives, or None when the cache is off."""
    setting = os.environ.get("COMMERCE_PROXY_CACHE", "")
    if setting.lower() == "off":
        return None
    if setting:
        where = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:16]
        return Path(setting) / f"{where}-{path.name}.json"
    return path.parent / FOLDER_NAME / f"{path.name}.json"


def derived_files(path: Path) -> list[Derived]:
    """What the cache keeps for the cassette at `path`: its entry and the entry's temporary files, and
    the cache folder beside it (whatever the setting: it may hold entries made before)."""
    entry = entry_path(path)
    found = [] if entry is None else [Derived(entry, "parse cache entry")]
    if entry is not None:
        found.append(Derived(temporary_prefix(entry), "parse cache entry's temporary file", "prefix"))
    return [*found, folder_derived(path.parent)]  # the named entry first: the most exact reason
