"""A page following a live server is pushed every exchange it served, even when the server is stopped
at once after a burst: a stop first gives every answer in flight, then indexes what was answered
(a recording's checker answers a moment after the client), sends each event stream its last rows, and
only then ends the stream, properly (the chunked body's last chunk), for every live mode and signal."""

from __future__ import annotations

import asyncio
import json
import re
import signal
from pathlib import Path

import aiohttp
import pytest

from proxy.core.model.access import TOKEN_HEADER
from tests.integration.cli.test_ui_live_no_drop import send
from tests.running import Running, commerce_proxy, stop_with

SECONDS = 60  # a bound on each wait, not a measure


async def pushed_paths(session: aiohttp.ClientSession, running: Running, ready: asyncio.Event) -> list[str]:
    """Every path the event stream pushes from cursor 0 until the server ends it."""
    found = re.search(r"ui: (http://[^/]+)/_proxy/ui/\?token=([A-Za-z0-9_-]+)", running.ui or "")
    assert found, running.ui
    ui, token = found.groups()
    paths: list[str] = []
    async with session.get(f"{ui}/_proxy/ui/api/events?cursor=0", headers={TOKEN_HEADER: token}) as stream:
        assert stream.status == 200, stream.status
        ready.set()
        body = (await stream.content.read()).decode()  # a stream cut without its last chunk raises here
    for block in body.split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.split("\n") if line and not line.startswith(":"))
        if fields.get("event") == "exchanges":
            paths += [row["path"] for row in json.loads(fields["data"])["exchanges"]]
    return paths


async def stopped_right_after(running: Running, base: str, numbers: range, signum: int) -> list[str]:
    async with aiohttp.ClientSession() as session:
        ready = asyncio.Event()
        following = asyncio.create_task(pushed_paths(session, running, ready))
        await asyncio.wait_for(ready.wait(), SECONDS)
        await send(session, base, numbers)
        code, err = await stop_with(running, signum)
        assert code == 0, err
        return await asyncio.wait_for(following, SECONDS)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
@pytest.mark.parametrize("mode", ["record", "spy", "replay"])
async def test_a_stop_right_after_a_burst_pushes_every_exchange_then_ends_the_stream(
    tmp_path: Path, products_upstream: str, mode: str, signum: int
) -> None:
    numbers = range(300)
    wanted = [f"/v2/products/{number}" for number in numbers]
    cassette = tmp_path / "burst.yaml"
    if mode == "replay":  # a cassette of the same burst to replay
        async with (
            commerce_proxy(
                "record", "--upstream", products_upstream, "--cassette", str(cassette), "--quiet", "--no-ui"
            ) as record,
            aiohttp.ClientSession() as session,
        ):
            await send(session, record.url, numbers)
            assert (await stop_with(record, signal.SIGINT))[0] == 0
        arguments = ["replay", "--cassette", str(cassette), "--quiet"]
    elif mode == "record":
        arguments = ["record", "--upstream", products_upstream, "--cassette", str(cassette), "--quiet"]
    else:
        arguments = ["spy", "--upstream", products_upstream, "--quiet"]
    async with commerce_proxy(*arguments) as running:
        pushed = await stopped_right_after(running, running.url, numbers, signum)
    assert sorted(pushed) == sorted(wanted), (len(pushed), sorted(set(wanted) - set(pushed))[:5])
    assert len(pushed) == len(set(pushed))
