"""record, spy and replay serve the UI by default and print its address on the line after `listening on`;
`--no-ui` turns it off; `commerce-proxy ui PATH...` serves files offline. Real processes, with stand-ins
for the traffic view (tested on its own), so what is checked here is the wiring."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from proxy.core.model.access import TOKEN_HEADER, TOKEN_VARIABLE
from tests.paths import ROOT
from tests.running import Running, commerce_proxy

UI_LINE = re.compile(r"ui: (http://127\.0\.0\.1:[0-9]+)/_proxy/ui/\?token=([A-Za-z0-9_-]{40,})")
NO_TOKEN = {TOKEN_VARIABLE: ""}  # each server makes its own random token


def ui_of(running: Running) -> tuple[str, str]:
    """The UI's base address and token, from the line after the ready line."""
    found = UI_LINE.fullmatch(running.ui or "")
    assert found, (running.ready, running.ui)
    base, token = found.groups()
    return base, token


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


async def stopped(running: Running) -> tuple[int, str, str]:
    """Stopped with Ctrl-C: its exit status, and what it wrote after its first lines."""
    process = running.process
    process.send_signal(signal.SIGINT)
    out, err = await asyncio.wait_for(process.communicate(), 60)
    return process.returncode or 0, out.decode(), err.decode()


@pytest.mark.parametrize("command", ["replay --examples", "record --mode none --cassette EXAMPLE"])
async def test_the_ui_address_follows_the_listening_line_and_opens_the_ui(
    command: str,
) -> None:
    example = next((ROOT / "cassettes").glob("*.yaml"))
    async with commerce_proxy(
        *command.replace("EXAMPLE", str(example)).split(), environment=NO_TOKEN
    ) as running:
        assert running.ready.startswith("commerce-proxy replay: listening on http://127.0.0.1:"), (
            running.ready
        )
        base, token = ui_of(running)
        assert running.ready.split("listening on ", 1)[1].startswith(base)
        await opens_the_ui(running, base, token)


async def opens_the_ui(running: Running, base: str, token: str) -> None:
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
    status, out, err = await stopped(running)
    assert status == 0 and out == "", (out, err)


async def test_no_ui_prints_no_address_and_serves_no_ui() -> None:
    async with commerce_proxy("replay", "--examples", "--no-ui") as running:
        base = running.url
        async with aiohttp.ClientSession() as session:
            async with session.get(f"{base}/_proxy/ui/") as answer:
                assert answer.status == 404
            async with session.get(f"{base}/_proxy/health") as answer:
                assert answer.status == 200
        status, out, err = await stopped(running)
    assert status == 0 and out == "" and "/_proxy/ui/" not in err


async def test_the_ui_command_serves_files_offline() -> None:
    example = next((ROOT / "cassettes").glob("*.yaml"))
    async with commerce_proxy("ui", str(example), environment=NO_TOKEN) as running:
        assert running.ready.startswith("commerce-proxy ui: listening on http://127.0.0.1:"), running.ready
        base, token = ui_of(running)
        await serves_files_offline(running, base, token)


async def serves_files_offline(running: Running, base: str, token: str) -> None:
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
    status, _, err = await stopped(running)
    assert status == 0, err


async def test_spy_serves_its_ui_over_its_live_view(sandbox_upstream: str) -> None:
    async with commerce_proxy("spy", "--upstream", sandbox_upstream, environment=NO_TOKEN) as running:
        assert running.ready.startswith("commerce-proxy spy: listening on http://127.0.0.1:"), running.ready
        base, token = ui_of(running)
        await shows_spied_traffic(running, base, token)


async def shows_spied_traffic(running: Running, base: str, token: str) -> None:
    async with (
        aiohttp.ClientSession() as session,
        session.get(f"{base}/_proxy/ui/api/info", headers={TOKEN_HEADER: token}) as answer,
    ):
        assert (await answer.json())["mode"] == "spy"
    async with aiohttp.ClientSession() as session, session.get(f"{running.url}/v2/products") as answer:
        status = answer.status  # the sandbox asks for a token: a 401 is traffic too
    [row] = await rows_seen(base, token, 1, seconds=1.0)  # within 1 s of its answer
    assert row["path"] == "/v2/products" and row["status"] == status, row
    status, _, err = await stopped(running)
    assert status == 0, err


@pytest.mark.parametrize("checking", [True, False])
async def test_record_shows_each_exchange_it_keeps_with_its_cassette_index(
    tmp_path: Path, checking: bool, sandbox_upstream: str
) -> None:
    """With or without live checking (`--no-check`), every exchange kept is in the UI within 1 s, named
    by the cassette and the index `cassette show` opens."""
    cassette = tmp_path / "shop.yaml"
    flags = [] if checking else ["--no-check"]
    arguments = ("record", "--upstream", sandbox_upstream, "--cassette", str(cassette), *flags)
    async with commerce_proxy(*arguments, environment=NO_TOKEN) as running:
        base, token = ui_of(running)
        async with aiohttp.ClientSession() as session:
            for path in ("/v2/products", "/v2/brands"):
                async with session.get(f"{running.url}{path}") as answer:
                    await answer.read()
        rows = await rows_seen(base, token, 2, seconds=1.0)
        assert [(row["cassette"], row["index"], row["path"]) for row in rows] == [
            (str(cassette), 0, "/v2/products"),
            (str(cassette), 1, "/v2/brands"),
        ]
        status, _, err = await stopped(running)
        assert status == 0, err


def checker_of(running: Running) -> int:
    """The PID of the live checker process `record` or `spy` started (its only child)."""
    pid = running.process.pid
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    assert len(children) == 1, children
    return int(children[0])


@pytest.mark.parametrize(
    ("command", "count", "first", "killed"),
    [
        (command, count, first, False)
        for command in ("record", "spy")
        for count in (1, 5)
        for first in ("info", "exchanges")
    ]
    + [("record", 5, "info", True), ("spy", 3, "exchanges", True)],
)
async def test_the_first_api_call_after_a_run_answers_with_the_whole_run(
    tmp_path: Path, sandbox_upstream: str, command: str, count: int, first: str, killed: bool
) -> None:
    """A script that asks once, right after its traffic, gets all of it: the first API call waits until
    every exchange answered before it is checked and indexed, however quickly what was held was handed
    over, and when the checker process died (the proxy checks the rest itself)."""
    cassette = ("--cassette", str(tmp_path / "c.yaml")) if command == "record" else ()
    async with commerce_proxy(
        command, "--upstream", sandbox_upstream, *cassette, environment=NO_TOKEN
    ) as running:
        base, token = ui_of(running)
        if killed:
            os.kill(checker_of(running), signal.SIGKILL)
        async with aiohttp.ClientSession() as session:
            for number in range(count):
                async with session.get(f"{running.url}/v2/products?n={number}") as answer:
                    await answer.read()
            async with session.get(f"{base}/_proxy/ui/api/{first}", headers={TOKEN_HEADER: token}) as answer:
                document = await answer.json()
        shown = document["exchanges"] if first == "info" else len(document["exchanges"])
        assert shown == count, document
        status, _, err = await stopped(running)
        assert status == 0, err
