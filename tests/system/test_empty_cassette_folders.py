"""A cassette never written leaves no folder made for it (`record`, the pytest plugin's record mode),
and a folder the user had is never removed, empty or not."""

from __future__ import annotations

import itertools
import signal
from pathlib import Path

import aiohttp
import pytest

from tests.conftest import sandbox_token
from tests.running import commerce_proxy, stop_with

MODES = ("once", "new_episodes", "all")
# Where the cassette goes (under tmp_path), what exists beforehand, and what must exist after.
LAYOUTS = {
    "one new folder": ("new/c.yaml", [], []),
    "two new folders": ("new/deeper/c.yaml", [], []),
    "new under the user's empty folder": ("mine/new/c.yaml", ["mine/"], ["mine"]),
    "the user's empty folder": ("mine/c.yaml", ["mine/"], ["mine"]),
    "the user's folder with a file": ("mine/c.yaml", ["mine/notes.txt"], ["mine", "mine/notes.txt"]),
}
CASES = list(itertools.product(MODES, LAYOUTS, (signal.SIGTERM, signal.SIGINT)))


def _prepare(root: Path, present: list[str]) -> None:
    for name in present:
        if name.endswith("/"):
            (root / name).mkdir(parents=True)
        else:
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text("the user's\n", encoding="utf-8")


def _left(root: Path) -> list[str]:
    return sorted(str(path.relative_to(root)) for path in root.rglob("*"))


@pytest.mark.parametrize(
    ("mode", "layout", "stop"), CASES, ids=[f"{m}-{layout}-{s.name}" for m, layout, s in CASES]
)
async def test_record_that_recorded_nothing_leaves_only_what_was_there(
    tmp_path: Path, mode: str, layout: str, stop: signal.Signals
) -> None:
    cassette, present, after = LAYOUTS[layout]
    root = tmp_path / "project"
    root.mkdir()
    _prepare(root, present)
    arguments = ["record", "--upstream", "http://127.0.0.1:9", "--mode", mode, "--no-check"]
    async with commerce_proxy(*arguments, "--cassette", str(root / cassette)) as running:
        assert (root / cassette).parent.is_dir()  # made at start, so a recording can be written there
        code, err = await stop_with(running, stop)
    assert code == 0, err
    assert _left(root) == sorted(after)


async def test_a_recording_keeps_the_folders_it_was_written_into(tmp_path: Path, sandbox: str) -> None:
    cassette = tmp_path / "new" / "deeper" / "c.yaml"
    async with commerce_proxy("record", "--upstream", sandbox, "--cassette", str(cassette)) as running:
        async with aiohttp.ClientSession() as session:
            await sandbox_token(session, running.url)
        code, err = await stop_with(running, signal.SIGTERM)
    assert code == 0, err
    assert cassette.is_file()


@pytest.mark.parametrize("had_folder", [False, True])
@pytest.mark.parametrize("mode", ["once", "new_episodes", "all"])
def test_plugin_record_test_without_a_request_leaves_no_cassette_folder(
    suite: pytest.Pytester, sandbox: str, mode: str, had_folder: bool
) -> None:
    """The cassettes/ folder (and the module's folder in it) is removed when the plugin made it for a
    test that sent nothing; a cassettes/ folder the user had stays."""
    if had_folder:
        (suite.path / "cassettes").mkdir()
    suite.makepyfile(
        test_quiet="""
def test_sends_nothing(commerce_record):
    assert commerce_record.startswith("http://")
"""
    )
    result = suite.runpytest_subprocess(
        "-p", "no:cacheprovider", f"--commerce-record-mode={mode}", f"--commerce-upstream={sandbox}"
    )
    result.assert_outcomes(passed=1)
    folder = suite.path / "cassettes"
    assert (folder.is_dir() and not list(folder.iterdir())) if had_folder else not folder.exists()
