"""A second Ctrl-C while `record` stops (an answer still in flight holds the stop) ends it at once, and
says so in one line: the cassette was not saved, and its journal, which keeps every exchange, is folded
in by the next command that loads the cassette. Before, it exited 130 without a word."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest
from aiohttp import web

from proxy.store.cassette_reader.loading import load_cassette
from tests.running import app_served, commerce_proxy


@pytest.fixture
async def slow_upstream() -> AsyncIterator[str]:
    """`/v2/fast/N` answers at once, `/v2/slow` after 4 s (it holds record's stop)."""

    async def fast(request: web.Request) -> web.Response:
        return web.json_response({"n": request.match_info["n"]})

    async def slow(_: web.Request) -> web.Response:
        await asyncio.sleep(4)
        return web.json_response({"late": True})

    app = web.Application()
    app.router.add_get("/v2/fast/{n}", fast)
    app.router.add_get("/v2/slow", slow)
    async with app_served(app) as url:
        yield url


@pytest.mark.parametrize("second", [signal.SIGINT, signal.SIGTERM])
async def test_a_second_interrupt_while_record_stops_says_what_is_kept(
    tmp_path: Path, slow_upstream: str, second: signal.Signals
) -> None:
    cassette = tmp_path / "c.yaml"
    async with (
        commerce_proxy(
            "record", "--upstream", slow_upstream, "--cassette", str(cassette), "--no-ui", "--quiet"
        ) as record,
        aiohttp.ClientSession() as session,
    ):
        for number in range(5):
            async with session.get(f"{record.url}/v2/fast/{number}") as answer:
                assert answer.status == 200
        held = asyncio.create_task(session.get(f"{record.url}/v2/slow"))
        await asyncio.sleep(0.5)
        record.process.send_signal(signal.SIGINT)  # the stop waits for the slow answer
        await asyncio.sleep(0.5)
        record.process.send_signal(second)
        _, err = await asyncio.wait_for(record.process.communicate(), 30)
        held.cancel()
    lines = err.decode().strip().splitlines()
    assert record.process.returncode == 130, err
    assert lines and "interrupted; the cassette was not saved: its journal keeps" in lines[-1], lines
    assert not cassette.exists() and cassette.with_name("c.yaml.journal").exists()
    loaded = load_cassette(cassette)  # the next command folds the journal in
    assert [exchange.request.path for exchange in loaded.cassette.exchanges] == [
        f"/v2/fast/{n}" for n in range(5)
    ]
