"""A temporary index (the live servers', and an offline one while it is built) is SQLite's private
temporary database, and so is the body text kept aside: their files are unlinked as soon as SQLite makes
them, so whatever ends the process, nothing of them is left in the temporary folder. Here, in this
process: every file the index has open is already nameless, whether it is closed or not."""

from __future__ import annotations

import fcntl
import os
import random
import sqlite3
import time
from pathlib import Path

import pytest

from proxy.core.ui.query import Query
from proxy.store.traffic_cache import LEFT_AFTER, CacheEntry, copy_to_cache, open_cached
from proxy.store.traffic_entries import Entry
from proxy.store.traffic_index import TrafficIndex, temporary_index
from proxy.store.writing import temporary_prefix


def open_files() -> set[tuple[str, str]]:
    """This process's open files: (descriptor, what it names) (Linux's /proc; a descriptor's number
    is used again once closed, by another file)."""
    found = set()
    for descriptor in os.listdir("/proc/self/fd"):
        try:
            found.add((descriptor, os.readlink(f"/proc/self/fd/{descriptor}")))
        except OSError:  # the listing's own descriptor, closed meanwhile
            continue
    return found


def filled(index: TrafficIndex, chance: random.Random, count: int) -> None:
    """`count` exchanges of text that does not compress, in batches: past SQLite's page cache, so its
    pages are written to files."""
    for _ in range(0, count, 500):
        index.add(
            Entry(
                "GET",
                "/v2/x",
                "/v2/x",
                1000,
                detail={"body": chance.randbytes(600).hex()},
                request_text=chance.randbytes(600).hex(),
                response_text=f"word{chance.randrange(10)}",
            )
            for _ in range(500)
        )


@pytest.mark.parametrize("ending", ["close", "an exception", "left open"])
@pytest.mark.parametrize("text_later", [False, True])
def test_a_temporary_index_writes_only_nameless_files(ending: str, text_later: bool) -> None:
    before = open_files()
    index = temporary_index()
    assert index.path is None
    chance = random.Random(len(ending) + text_later)
    try:
        if text_later:
            index.defer_text()
        filled(index, chance, 3_000)
        mine = open_files() - before
        # the index and (kept aside) the text: written to disk, in files with no name
        assert len(mine) == 1 + text_later, mine
        for _, name in mine:
            assert name.endswith(" (deleted)"), mine
            assert not Path(name.removesuffix(" (deleted)")).exists()
        if text_later:
            index.fill_text(lambda: None, at_once=True)
            assert index.window(Query(text="word3"), 0, 1)[0] > 0
            assert len(open_files() - before) == 1  # the pending text detached
        assert index.size() > 3 * 1 << 20
        if ending == "an exception":
            raise RuntimeError(ending)
    except RuntimeError:
        pass
    finally:
        if ending != "left open":
            index.close()
    if ending != "left open":
        assert open_files() - before == set()


def test_a_temporary_index_is_copied_whole(tmp_path: Path) -> None:
    index = temporary_index()
    try:
        filled(index, random.Random(3), 1_000)
        index.note("about", "x")
        with sqlite3.connect(tmp_path / "copy.sqlite") as target:
            index.backup(target)
            assert target.execute("SELECT count(*) FROM exchanges").fetchone() == (1_000,)
            assert target.execute("SELECT value FROM about WHERE key = 'about'").fetchone() == ("x",)
            target.execute("INSERT INTO bodies(bodies) VALUES ('integrity-check')")
        target.close()
    finally:
        index.close()


@pytest.mark.parametrize("left", ["by a kill, long ago", "by a kill, just now", "by a copy under way"])
def test_a_copy_to_the_cache_removes_what_a_killed_copy_left_only(left: str, tmp_path: Path) -> None:
    """A copy killed before its rename leaves its temporary file (never half an index under the entry's
    name); the next copy removes it, but not one a copy under way holds, nor one just made."""
    entry = CacheEntry(tmp_path / "cache" / "ui-index-0123.sqlite", "the identity")
    entry.path.parent.mkdir()
    leftover = temporary_prefix(entry.path).with_name(temporary_prefix(entry.path).name + "0a1b2c3d4e5f")
    leftover.write_bytes(b"half an index")
    if left != "by a kill, just now":
        earlier = time.time() - LEFT_AFTER - 5
        os.utime(leftover, (earlier, earlier))
    holder = leftover.open("rb")
    try:
        if left == "by a copy under way":
            fcntl.flock(holder.fileno(), fcntl.LOCK_EX)
        index = temporary_index()
        filled(index, random.Random(5), 500)
        assert copy_to_cache(index, entry)
        index.close()
    finally:
        holder.close()
    cached = open_cached(entry)
    assert cached is not None and cached.cursor == 500
    cached.close()
    kept = [entry.path.name] + ([] if left == "by a kill, long ago" else [leftover.name])
    assert sorted(file.name for file in entry.path.parent.iterdir()) == sorted(kept)
    assert entry.path.stat().st_mode & 0o777 == 0o600
