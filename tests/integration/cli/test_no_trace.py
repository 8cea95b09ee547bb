"""No ending of a server leaves a file of ours in the temporary folder: `spy`, `record`, `replay` and
`ui` as real processes, each with a temporary folder of its own (TMPDIR, SQLITE_TMPDIR), ended by Ctrl-C,
SIGTERM, SIGHUP (a terminal closed), SIGQUIT or SIGKILL, the live ones after a few exchanges and `ui` in the middle of building its index (a
SIGKILL runs no cleanup at all: only files that never had a name, or lost it at once, are gone then).
The cache folder holds no half-written index either."""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

import aiohttp
import pytest

from proxy.core.model.access import TOKEN_VARIABLE
from tests.integration.cli.test_ui_wiring import rows_seen, ui_of
from tests.running import commerce_proxy
from tests.system.ui.generated import write_cassettes

ENDINGS = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGKILL]


def environment(tmp_path: Path) -> dict[str, str]:
    """A temporary folder (Python's and SQLite's) and a cache folder of the test's own."""
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    return {
        "TMPDIR": str(temporary),
        "SQLITE_TMPDIR": str(temporary),
        "COMMERCE_PROXY_CACHE": str(tmp_path / "cache"),
        TOKEN_VARIABLE: "",
    }


def left_in(folder: str) -> list[str]:
    return sorted(os.listdir(folder))


def open_under(pid: int, folder: str) -> list[str]:
    """The files process `pid` has open under `folder` (Linux's /proc), "(deleted)" when nameless."""
    found = []
    for descriptor in os.listdir(f"/proc/{pid}/fd"):
        try:
            name = os.readlink(f"/proc/{pid}/fd/{descriptor}")
        except OSError:  # closed meanwhile
            continue
        if name.startswith(folder + "/"):
            found.append(name)
    return found


def nameless_open(pid: int, folder: str) -> list[str]:
    return [name for name in open_under(pid, folder) if name.endswith(" (deleted)")]


def named_open(pid: int, folder: str) -> list[str]:
    """The named files `pid` keeps open under `folder`: still open half a second after first seen
    (Python's first `tempfile.gettempdir()` opens a probe file of a random name there for a moment)."""
    seen = [name for name in open_under(pid, folder) if not name.endswith(" (deleted)")]
    if seen:
        time.sleep(0.5)
    return [name for name in seen if name in open_under(pid, folder)]


def ended(process: subprocess.Popen[bytes], ending: signal.Signals) -> None:
    process.send_signal(ending)
    process.communicate(timeout=60)


@pytest.mark.parametrize("ending", ENDINGS, ids=lambda ending: ending.name)
@pytest.mark.parametrize("command", ["spy", "record", "replay"])
async def test_a_live_server_leaves_nothing_in_the_temporary_folder(
    command: str, ending: signal.Signals, tmp_path: Path, sandbox_upstream: str
) -> None:
    setting = environment(tmp_path)
    arguments = {
        "spy": ["spy", "--upstream", sandbox_upstream],
        "record": ["record", "--upstream", sandbox_upstream, "--cassette", str(tmp_path / "shop.yaml")],
        "replay": ["replay", "--examples"],
    }[command]
    async with commerce_proxy(*arguments, environment=setting) as running:
        base, token = ui_of(running)
        async with aiohttp.ClientSession() as session:
            for path in ("/v2/products", "/v2/brands", "/v2/categories?page[limit]=2"):
                async with session.get(f"{running.url}{path}") as answer:
                    await answer.read()
        await rows_seen(base, token, 3)  # indexed
        assert named_open(running.process.pid, setting["TMPDIR"]) == []
        running.process.send_signal(ending)
        await asyncio.wait_for(running.process.communicate(), 60)
    assert left_in(setting["TMPDIR"]) == []
    if ending is not signal.SIGKILL:  # every other ending stops the server as Ctrl-C does
        assert running.process.returncode == 0
        if command == "record":  # what it recorded is in the cassette, and no journal is left
            assert (tmp_path / "shop.yaml").read_text().count("- recorded_at:") == 3
            assert not (tmp_path / "shop.yaml.journal").exists()


def whole_indexes_only(cache: Path) -> None:
    """Every index under its own name in the cache folder is a whole one (its identity noted last)."""
    for file in cache.glob("ui-index-*.sqlite") if cache.exists() else []:
        with closing(sqlite3.connect(f"file:{file}?mode=ro", uri=True)) as database:
            assert database.execute("SELECT value FROM about WHERE key = 'identity'").fetchone(), file


def _ui(cassette: Path, setting: dict[str, str]) -> subprocess.Popen[bytes]:
    """`commerce-proxy ui` over one cassette, on any free port, with the test's temporary folders."""
    return subprocess.Popen(
        [sys.executable, "-m", "proxy", "ui", str(cassette), "--port", "0"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, **setting},
    )


@pytest.mark.parametrize("ending", ENDINGS, ids=lambda ending: ending.name)
def test_ui_ended_while_it_builds_its_index_leaves_nothing_in_the_temporary_folder(
    ending: signal.Signals, tmp_path: Path
) -> None:
    """`ui` builds its index (rows, and the bodies' text kept aside for later) before it listens: ended
    once SQLite has written pages of them to disk."""
    setting = environment(tmp_path)
    [cassette] = write_cassettes(tmp_path / "set", 4_000)
    process = _ui(cassette, setting)
    try:
        deadline = time.monotonic() + 120
        while not nameless_open(process.pid, setting["TMPDIR"]):  # the index written to disk
            assert process.poll() is None and time.monotonic() < deadline, "the index was never on disk"
            time.sleep(0.01)
        assert named_open(process.pid, setting["TMPDIR"]) == []
        ended(process, ending)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert left_in(setting["TMPDIR"]) == []
    whole_indexes_only(Path(setting["COMMERCE_PROXY_CACHE"]))


@pytest.mark.parametrize("ending", ENDINGS, ids=lambda ending: ending.name)
def test_ui_ended_once_it_serves_leaves_only_its_whole_cache(ending: signal.Signals, tmp_path: Path) -> None:
    setting = environment(tmp_path)
    [cassette] = write_cassettes(tmp_path / "set", 200)
    process = _ui(cassette, setting)
    try:
        assert process.stdout is not None
        line = process.stdout.readline().decode()
        assert "listening on http://" in line, line
        ended(process, ending)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert left_in(setting["TMPDIR"]) == []
    cache = Path(setting["COMMERCE_PROXY_CACHE"])
    whole_indexes_only(cache)
    assert list(cache.glob("ui-index-*.sqlite"))  # kept, for the next `ui` of the same set
