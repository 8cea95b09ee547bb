"""The cache of built offline indexes: one file per set of sources in their cache folder, named by the
sources' paths and valid for their identity (sizes, times, inodes, the rules and the version), so
reopening the same cassettes is instant and a changed cassette replaces its index."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from proxy.core.ui.query import Query
from proxy.errors import CommerceProxyError
from proxy.store.cassette_reader.cache_paths import FOLDER_NAME
from proxy.store.traffic_index import SCHEMA_VERSION, TrafficIndex
from proxy.store.writing import NewFile, temporary_prefix

LEFT_AFTER = 60  # seconds: a copy's temporary file older than this and unlocked was left by a kill


@dataclass(frozen=True, slots=True)
class CacheEntry:
    """Where the offline index of some sources is cached (one file per set of source paths, so a
    changed cassette replaces its index rather than adding one), and the identity of what it was built
    from: the sources' sizes and times, and whatever else its contents depend on."""

    path: Path
    identity: str


def file_states(files: Sequence[Path]) -> list[list[int]] | None:
    """Each file's size, modification time and inode: what says it changed since it was indexed (None:
    one cannot be looked at)."""
    try:
        return [[state.st_size, state.st_mtime_ns, state.st_ino] for state in map(Path.stat, files)]
    except OSError:
        return None


def cache_entry(sources: Sequence[Path], salt: str) -> CacheEntry | None:
    """The cache entry of the index of `sources` (`salt`: the rules, the version...); None when the
    cache is off (`COMMERCE_PROXY_CACHE=off`) or a source cannot be looked at. The entry lives in the
    cache folder of the first source, or in `COMMERCE_PROXY_CACHE`'s folder."""
    setting = os.environ.get("COMMERCE_PROXY_CACHE", "")
    if setting.lower() == "off" or not sources:
        return None
    names = [str(source.resolve()) for source in sources]
    found = file_states(sources)
    if found is None:
        return None
    states: list[Any] = [SCHEMA_VERSION, salt, *found]
    digest = hashlib.sha256(json.dumps(names).encode()).hexdigest()[:24]
    first = sources[0]
    folder = Path(setting) if setting else (first if first.is_dir() else first.parent) / FOLDER_NAME
    identity = hashlib.sha256(json.dumps([names, states]).encode()).hexdigest()
    return CacheEntry(folder / f"ui-index-{digest}.sqlite", identity)


def open_cached(entry: CacheEntry) -> TrafficIndex | None:
    """The cached index, read-only, when it was built, whole, from sources of the same identity."""
    path = entry.path
    if path.is_symlink() or not path.is_file():
        return None
    try:
        connection = sqlite3.connect(
            f"file:{quote(str(path))}?mode=ro", uri=True, isolation_level=None, check_same_thread=False
        )
    except sqlite3.Error:
        return None
    try:
        found = dict(connection.execute("SELECT key, value FROM about").fetchall())
    except sqlite3.Error:
        found = {}
    if found.get("schema") != str(SCHEMA_VERSION) or found.get("identity") != entry.identity:
        connection.close()
        return None
    return TrafficIndex(connection, path)


def keep_as_cache(index: TrafficIndex, entry: CacheEntry) -> TrafficIndex:
    """Copy a built temporary index over the cache entry (`copy_to_cache`) and go on reading the cached
    copy; the temporary one is removed. When the cache cannot be written, the temporary index is used
    as it is."""
    if not copy_to_cache(index, entry):
        return index
    cached = open_cached(entry)
    if cached is None:
        return index
    index.close()
    return cached


def copy_to_cache(index: TrafficIndex, entry: CacheEntry) -> bool:
    """Note a built temporary index's identity and counts, and copy it over the cache entry with SQLite's
    backup (a temporary index has no file to copy) into a new file of the one writer of files (0600,
    renamed into place when whole: a kill mid-copy never leaves half an index under the entry's name;
    the temporary file it leaves is removed by the next copy, `_swept`); whether it was."""
    index.note("identity", entry.identity)
    index.note("counts", json.dumps([index.cursor, index.counts(Query())]))  # the first page's, at once
    try:
        written = NewFile(entry.path, "the UI's index cache", create_folders=True, mode=0o600, named=True)
        try:
            fcntl.flock(written.handle.fileno(), fcntl.LOCK_EX)  # in use: `_swept` leaves it
            _swept(entry)
            with contextlib.closing(sqlite3.connect(written.temporary_path, isolation_level=None)) as target:
                target.execute("PRAGMA journal_mode = OFF")  # no journal file beside it: a new file
                index.backup(target)
        except BaseException:
            written.abandon()
            raise
        written.commit()
    except (CommerceProxyError, OSError, sqlite3.Error):
        return False
    return True


def _swept(entry: CacheEntry) -> None:
    """Remove the temporary files of copies to `entry` that ended before their rename (a kill): those
    older than LEFT_AFTER seconds that no process holds locked (a copy under way does, until its end)."""
    folder = entry.path.parent
    prefix = temporary_prefix(entry.path).name
    with contextlib.suppress(OSError):
        for name in [name for name in os.listdir(folder) if name.startswith(prefix)]:
            with contextlib.suppress(OSError):
                descriptor = os.open(
                    folder / name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
                )
                try:
                    if time.time() - os.fstat(descriptor).st_mtime > LEFT_AFTER:
                        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)  # OSError: in use
                        os.unlink(folder / name)
                finally:
                    os.close(descriptor)
