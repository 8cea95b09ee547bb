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
from typing import Any

import aiohttp
import pytest

from proxy.core.model.access import TOKEN_HEADER
from tests.paths import ROOT
from tests.running import sandbox_process

UI_LINE = re.compile(r"ui: (http://127\.0\.0\.1:[0-9]+)/_proxy/ui/\?token=([A-Za-z0-9_-]{40,})")


async def started(*arguments: str) -> tuple[asyncio.subprocess.Process, list[str]]:
    """The command started on a free port; its process and its first stdout line."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "proxy",
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


async def rows_seen(base: str, token: str, wanted: int, seconds: float = 5.0) -> list[dict[str, Any]]:
    """The UI's rows once `wanted` are there (asked every 50 ms, for at most `seconds`)."""
    rows: list[dict[str, Any]] = []
    async with aiohttp.ClientSession() as session:
        for _ in range(int(seconds / 0.05)):
            async with session.get(
                f"{base}/_proxy/ui/api/exchanges", headers={TOKEN_HEADER: token}
            ) as answer:
                rows = (await answer.json())["exchanges"]
            if len(rows) >= wanted:
                return rows
            await asyncio.sleep(0.05)
    raise AssertionError(f"{len(rows)} of {wanted} exchanges in the UI after {seconds} s: {rows}")


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
        async with session.get(f"{base}/v2/nothing-recorded-here") as answer:
            assert answer.status == 404
    [row] = await rows_seen(base, token, 1)
    assert row["method"] == "GET" and row["path"] == "/v2/nothing-recorded-here" and row["status"] == 404
    assert row["answered"]["by"] == "miss", row
    status, out, err = await stopped(process)
    assert status == 0 and out == "", (out, err)


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
    assert status == 0 and out == "" and "/_proxy/ui/" not in err


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
            assert answer.status == 303 and answer.headers["Location"] == f"/_proxy/ui/#token={token}"
        async with session.get(f"{base}/_proxy/ui/api/info", headers={TOKEN_HEADER: token}) as answer:
            info = json.loads(await answer.text())
            assert info["mode"] == "offline" and info["exchanges"] > 0, info
        async with session.get(f"{base}/_proxy/health") as answer:
            assert (await answer.json())["mode"] == "offline"
        async with session.get(f"{base}/v2/products") as answer:
            assert answer.status == 404
    status, _, err = await stopped(process)
    assert status == 0, err


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
        async with aiohttp.ClientSession() as session:
            base_of = lines[0].split("listening on ", 1)[1].split(",")[0]
            async with session.get(f"{base_of}/v2/products") as answer:
                status = answer.status  # the sandbox asks for a token: a 401 is traffic too
        [row] = await rows_seen(base, token, 1, seconds=1.0)  # within 1 s of its answer
        assert row["path"] == "/v2/products" and row["status"] == status, row
        status, _, err = await stopped(process)
        assert status == 0, err


@pytest.mark.parametrize("checking", [True, False])
async def test_record_shows_each_exchange_it_keeps_with_its_cassette_index(
    tmp_path: Path, checking: bool, processes: list[asyncio.subprocess.Process]
) -> None:
    """With or without live checking (`--no-check`), every exchange kept is in the UI within 1 s, named
    by the cassette and the index `cassette show` opens."""
    cassette = tmp_path / "shop.yaml"
    with sandbox_process() as upstream:
        flags = [] if checking else ["--no-check"]
        process, lines = await started("record", "--upstream", upstream, "--cassette", str(cassette), *flags)
        processes.append(process)
        assert process.stdout is not None
        found = UI_LINE.fullmatch(
            (await asyncio.wait_for(process.stdout.readline(), 30)).decode().rstrip("\n")
        )
        assert found, lines
        base, token = found.groups()
        proxy_base = lines[0].split("listening on ", 1)[1].split(",")[0]
        async with aiohttp.ClientSession() as session:
            for path in ("/v2/products", "/v2/brands"):
                async with session.get(f"{proxy_base}{path}") as answer:
                    await answer.read()
        rows = await rows_seen(base, token, 2, seconds=1.0)
        assert [(row["cassette"], row["index"], row["path"]) for row in rows] == [
            (str(cassette), 0, "/v2/products"),
            (str(cassette), 1, "/v2/brands"),
        ]
        status, _, err = await stopped(process)
        assert status == 0, err
