"""Writers of one cassette at once: `cassette` edits (processes) and a `record --mode new_episodes` that
stops while they run. Every one exits 0 and every change is in the cassette at the end: each writer
takes the cassette's lock and reads the cassette again under it before writing."""

from __future__ import annotations

import asyncio
import signal
import sys
from pathlib import Path

import aiohttp

from proxy.core.cassette.document import Cassette
from proxy.store.cassette_reader.loading import read_cassette_file
from proxy.store.saving import save_cassette
from tests.conftest import make_exchange, make_request
from tests.reliability.faulty_upstream import faulty_upstream
from tests.reliability.figures import write_figure
from tests.running import commerce_proxy, free_port, stop_with

EDITS = 8  # edit processes at once, each setting a header of its own exchange
RECORDED = 6  # exchanges the recording adds


async def _edit(cassette: Path, index: int) -> tuple[int, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "proxy",
        "cassette",
        "set",
        str(cassette),
        str(index),
        f"resp.header.x-edit-{index}",
        f"edit {index}",
        "--no-check",
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    _, err = await asyncio.wait_for(process.communicate(), 120)
    return process.returncode or 0, err.decode()


async def test_edits_and_a_recording_at_once_all_succeed_and_all_are_kept(tmp_path: Path) -> None:
    """16 edit processes, half of them ending while a recording runs, the rest while it stops: all
    exit 0, nothing lost."""
    port = free_port()
    upstream = f"http://127.0.0.1:{port}"
    cassette = tmp_path / "c.yaml"
    base = tuple(make_exchange(make_request(path=f"/v2/base/{number}")) for number in range(2 * EDITS))
    save_cassette(cassette, Cassette(base, upstream))
    async with faulty_upstream(port):
        record = ["record", "--upstream", upstream, "--cassette", str(cassette), "--mode", "new_episodes"]
        async with commerce_proxy(*record) as proxy:
            edits = [asyncio.ensure_future(_edit(cassette, index)) for index in range(EDITS)]
            async with aiohttp.ClientSession() as session:
                for number in range(RECORDED):
                    async with session.get(f"{proxy.url}/ok/{number}") as answer:
                        assert answer.status == 200
            # half the edits end while the recording runs (its base is older than they are), the
            # others still run as it stops and writes the cassette
            results = await asyncio.gather(*edits[: EDITS // 2])
            later = [asyncio.ensure_future(_edit(cassette, index)) for index in range(EDITS, 2 * EDITS)]
            code, err = await stop_with(proxy, signal.SIGTERM)
            results += await asyncio.gather(*edits[EDITS // 2 :], *later)
    assert code == 0, err
    assert [result for result in results if result[0] != 0] == []
    exchanges = read_cassette_file(cassette).exchanges
    paths = [exchange.request.path for exchange in exchanges]
    assert paths == [f"/v2/base/{n}" for n in range(2 * EDITS)] + [f"/ok/{n}" for n in range(RECORDED)]
    for index in range(2 * EDITS):
        assert (f"x-edit-{index}", f"edit {index}") in exchanges[index].response.headers, index
    write_figure(
        "concurrent_writes_kept",
        2 * EDITS + RECORDED,
        "edits and recorded exchanges written at once, every one kept",
    )


async def test_two_edits_at_once_both_succeed_and_both_are_kept(tmp_path: Path) -> None:
    """A second writer, many times over: pairs of edits of one cassette, each pair at once."""
    cassette = tmp_path / "c.yaml"
    base = tuple(make_exchange(make_request(path=f"/v2/base/{number}")) for number in range(2 * EDITS))
    save_cassette(cassette, Cassette(base, "http://127.0.0.1:9"))
    for pair in range(EDITS):
        results = await asyncio.gather(_edit(cassette, 2 * pair), _edit(cassette, 2 * pair + 1))
        assert [result for result in results if result[0] != 0] == [], pair
    exchanges = read_cassette_file(cassette).exchanges
    for index in range(2 * EDITS):
        assert (f"x-edit-{index}", f"edit {index}") in exchanges[index].response.headers, index
