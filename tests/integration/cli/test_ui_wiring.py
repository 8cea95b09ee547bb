"""record, spy and replay serve the UI by default and print its address on the line after `listening on`;
`--no-ui` turns it off; `commerce-proxy ui PATH...` serves files offline. Real processes, with stand-ins
for the traffic view (tested on its own), so what is checked here is the wiring."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest

from proxy.core.model.access import TOKEN_HEADER
from tests.paths import ROOT
from tests.running import sandbox_process

STAND_IN = Path(__file__).with_name("ui_stand_in.py")
UI_LINE = re.compile(r"ui: (http://127\.0\.0\.1:[0-9]+)/_proxy/ui/\?token=([A-Za-z0-9_-]{40,})")


async def started(*arguments: str) -> tuple[asyncio.subprocess.Process, list[str]]:
    """The command started on a free port; its process and its first stdout line."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        str(STAND_IN),
        *arguments,
        "--port",
        "0",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT), "COMMERCE_PROXY_UI_TOKEN": ""},
    )
    assert process.stdout is not None
    first = (await asyncio.wait_for(process.stdout.readline(), 60)).decode()
    return process, [first]


async def stopped(process: asyncio.subprocess.Process) -> tuple[int, str, str]:
    process.send_signal(signal.SIGINT)
    out, err = await asyncio.wait_for(process.communicate(), 60)
    return process.returncode or 0, out.decode(), err.decode()


@pytest.fixture
async def processes() -> AsyncIterator[list[asyncio.subprocess.Process]]:
    running: list[asyncio.subprocess.Process] = []
    yield running
    for process in running:
        if process.returncode is None:
            process.kill()
            await process.wait()


@pytest.mark.parametrize("command", ["replay --examples", "record --mode none --cassette EXAMPLE"])
async def test_the_ui_address_follows_the_listening_line_and_opens_the_ui(
    command: str, processes: list[asyncio.subprocess.Process]
) -> None:
    example = next((ROOT / "cassettes").glob("*.yaml"))
    process, lines = await started(*command.replace("EXAMPLE", str(example)).split())
    processes.append(process)
    assert lines[0].startswith("commerce-proxy replay: listening on http://127.0.0.1:"), lines
    assert process.stdout is not None
    second = (await asyncio.wait_for(process.stdout.readline(), 30)).decode().rstrip("\n")
    found = UI_LINE.fullmatch(second)
    assert found, second
    base, token = found.groups()
    assert lines[0].split("listening on ", 1)[1].startswith(base)
    async with aiohttp.ClientSession() as session:
        async with session.get(f"{base}/_proxy/ui/api/info") as answer:
            assert answer.status == 403
        async with session.get(f"{base}/_proxy/ui/api/info", headers={TOKEN_HEADER: token}) as answer:
            assert answer.status == 200 and (await answer.json())["mode"] == "replay"
        async with session.post(f"{base}/_proxy/reset", headers={TOKEN_HEADER: token}) as answer:
            assert answer.status == 200
    status, out, err = await stopped(process)
    assert status == 0 and out == "" and "closed the replay view" in err, (out, err)


async def test_no_ui_prints_no_address_and_serves_no_ui(processes: list[asyncio.subprocess.Process]) -> None:
    process, lines = await started("replay", "--examples", "--no-ui")
    processes.append(process)
    base = lines[0].split("listening on ", 1)[1].split()[0]
    async with aiohttp.ClientSession() as session:
        async with session.get(f"{base}/_proxy/ui/") as answer:
            assert answer.status == 404
        async with session.get(f"{base}/_proxy/health") as answer:
            assert answer.status == 200
    status, out, err = await stopped(process)
    assert status == 0 and out == "" and "view" not in err


async def test_the_ui_command_serves_files_offline(processes: list[asyncio.subprocess.Process]) -> None:
    example = next((ROOT / "cassettes").glob("*.yaml"))
    process, lines = await started("ui", str(example))
    processes.append(process)
    assert lines[0].startswith("commerce-proxy ui: listening on http://127.0.0.1:"), lines
    assert process.stdout is not None
    found = UI_LINE.fullmatch((await asyncio.wait_for(process.stdout.readline(), 30)).decode().rstrip("\n"))
    assert found
    base, token = found.groups()
    async with aiohttp.ClientSession() as session:
        async with session.get(f"{base}/_proxy/ui/?token={token}", allow_redirects=False) as answer:
            assert answer.status == 303 and answer.headers["Location"] == "/_proxy/ui/"
        async with session.get(f"{base}/_proxy/ui/api/info", headers={TOKEN_HEADER: token}) as answer:
            assert json.loads(await answer.text())["sources"] == [example.name]
        async with session.get(f"{base}/_proxy/health") as answer:
            assert (await answer.json())["mode"] == "offline"
        async with session.get(f"{base}/v2/products") as answer:
            assert answer.status == 404
    status, _, err = await stopped(process)
    assert status == 0 and "closed the offline view" in err


async def test_spy_serves_its_ui_over_its_live_view(processes: list[asyncio.subprocess.Process]) -> None:
    with sandbox_process() as upstream:
        process, lines = await started("spy", "--upstream", upstream)
        processes.append(process)
        assert lines[0].startswith("commerce-proxy spy: listening on http://127.0.0.1:"), lines
        assert process.stdout is not None
        found = UI_LINE.fullmatch(
            (await asyncio.wait_for(process.stdout.readline(), 30)).decode().rstrip("\n")
        )
        assert found
        base, token = found.groups()
        async with (
            aiohttp.ClientSession() as session,
            session.get(f"{base}/_proxy/ui/api/info", headers={TOKEN_HEADER: token}) as answer,
        ):
            assert (await answer.json())["mode"] == "spy"
        status, _, err = await stopped(process)
        assert status == 0 and "closed the spy view" in err
