"""A temporary index (the live servers', and an offline one while it is built) is SQLite's private
temporary database, and so is the body text kept aside: their files are unlinked as soon as SQLite makes
them, so whatever ends the process, nothing of them is left in the temporary folder. Here, in this
process: every file the index has open is already nameless, whether it is closed or not."""

from __future__ import annotations

import os
import random
import sqlite3
from pathlib import Path

import pytest

from proxy.core.ui.query import Query
from proxy.store.traffic_index import Entry, TrafficIndex, temporary_index


def open_files() -> dict[str, str]:
    """This process's open files: descriptor -> what it names (Linux's /proc)."""
    found = {}
    for descriptor in os.listdir("/proc/self/fd"):
        try:
            found[descriptor] = os.readlink(f"/proc/self/fd/{descriptor}")
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
        mine = {number: name for number, name in open_files().items() if number not in before}
        # the index and (kept aside) the text: written to disk, in files with no name
        assert len(mine) == 1 + text_later, mine
        for name in mine.values():
            assert name.endswith(" (deleted)"), mine
            assert not Path(name.removesuffix(" (deleted)")).exists()
        if text_later:
            index.fill_text(lambda: None, at_once=True)
            assert index.window(Query(text="word3"), 0, 1)[0] > 0
            assert len([number for number in open_files() if number not in before]) == 1  # detached
        assert index.size() > 3 * 1 << 20
        if ending == "an exception":
            raise RuntimeError(ending)
    except RuntimeError:
        pass
    finally:
        if ending != "left open":
            index.close()
    if ending != "left open":
        assert [number for number in open_files() if number not in before] == []


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
