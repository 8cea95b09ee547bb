"""`api/info` names where a live server's traffic comes from: `record` its cassette, `spy` its
upstream, `replay` the cassettes it answers from (it said `"sources": []` for all three)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest

from proxy.core.model.access import TOKEN_HEADER
from tests.integration.cli.test_ui_wiring import UI_LINE, started, stopped
from tests.paths import ROOT
from tests.running import sandbox_process


@pytest.fixture
async def processes() -> AsyncIterator[list[asyncio.subprocess.Process]]:
    running: list[asyncio.subprocess.Process] = []
    yield running
    for process in running:
        if process.returncode is None:
            process.kill()
            await process.wait()


@pytest.mark.parametrize("mode", ["record", "spy", "replay"])
async def test_info_names_the_live_servers_sources(
    mode: str, tmp_path: Path, processes: list[asyncio.subprocess.Process]
) -> None:
    cassette = tmp_path / "shop.yaml"
    example = next((ROOT / "cassettes").glob("*.yaml"))
    with sandbox_process() as upstream:
        arguments = {
            "record": ["record", "--upstream", upstream, "--cassette", str(cassette)],
            "spy": ["spy", "--upstream", upstream],
            "replay": ["replay", "--cassette", str(example)],
        }[mode]
        expected = {"record": [str(cassette)], "spy": [upstream], "replay": [str(example)]}[mode]
        process, lines = await started(*arguments)
        processes.append(process)
        assert process.stdout is not None
        line = (await asyncio.wait_for(process.stdout.readline(), 30)).decode().rstrip("\n")
        found = UI_LINE.fullmatch(line)
        assert found, (lines, line)
        base, token = found.groups()
        async with (
            aiohttp.ClientSession() as session,
            session.get(f"{base}/_proxy/ui/api/info", headers={TOKEN_HEADER: token}) as answer,
        ):
            info = await answer.json()
        assert info["mode"] == mode and info["sources"] == expected, info
        status, _, err = await stopped(process)
        assert status == 0, err
