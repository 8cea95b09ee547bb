"""Serving stays within bounded memory whatever the clients send: replay keeps the encoded answers of a
few origins, not one set per Host header a client makes up."""

from __future__ import annotations

import asyncio
import gzip
import io
import json
import signal
from pathlib import Path

import aiohttp
import pytest

from proxy.core.cassette.document import Cassette
from proxy.store.cassette_reader.loading import read_cassette_file
from proxy.store.saving import save_cassette
from proxy.store.shipped import shipped_dir
from tests.codings import Coded, bombs, in_members
from tests.conftest import json_body, make_exchange, make_request
from tests.reliability.faulty_upstream import ADDED_ANSWERS, faulty_upstream
from tests.reliability.figures import write_figure
from tests.running import commerce_proxy, free_port, stop_with

HOSTS = 3_000
GROWTH_CEILING_MB = 30


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


async def ask_with_hosts(url: str, target: str, hosts: range) -> None:
    """GET `target` once per Host header in `hosts`, pipelined on one keep-alive connection."""
    address, port = url.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(address, int(port))
    try:
        for batch in range(hosts.start, hosts.stop, 100):
            for number in range(batch, min(batch + 100, hosts.stop)):
                writer.write(f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1:{1024 + number}\r\n\r\n".encode())
            await writer.drain()
            for _ in range(batch, min(batch + 100, hosts.stop)):
                head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
                length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
                await reader.readexactly(length)
    finally:
        writer.close()


async def test_replay_memory_stays_flat_across_thousands_of_host_headers() -> None:
    """3,000 requests for the largest recorded answer, each with its own Host: RSS grows by less than
    30 MB (one encoded answer per Host took about 30 KB each)."""
    cassette = shipped_dir("cassettes") / "demo-session.yaml"
    largest = max(read_cassette_file(cassette).exchanges, key=lambda one: len(str(one.response.body.value)))
    target = largest.request.path + (f"?{largest.request.query}" if largest.request.query else "")
    async with commerce_proxy("replay", "--cassette", str(cassette)) as replay:
        pid = replay.process.pid
        await ask_with_hosts(replay.url, target, range(100))
        before = rss_mb(pid)
        await ask_with_hosts(replay.url, target, range(100, 100 + HOSTS))
        growth = rss_mb(pid) - before
        code, err = await stop_with(replay, signal.SIGTERM)
    assert code == 0, err
    print(f"replay RSS growth over {HOSTS} Host headers: {growth:.1f} MB")
    assert growth < GROWTH_CEILING_MB, growth
    write_figure(
        "host_headers_flat",
        HOSTS,
        f"distinct Host headers replay served, RSS growing < {GROWTH_CEILING_MB} MB",
    )


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmHWM")


# Each coding's 1 GiB bomb, many small members adding up to 1 GiB, and chains with every coding first
CHAINS = ("gzip+br", "deflate+zstd", "raw-deflate+gzip", "br+raw-deflate", "zstd+deflate", "br+zstd+gzip")
SAMPLE = [bomb for bomb in bombs() if "+" not in bomb.name or bomb.name in CHAINS]
MEMBERS = in_members("gzip", b'{"data": [' + b", ".join(b'{"id": %d}' % n for n in range(3_000)) + b"]}", 5)


def raw_answer(bomb: Coded) -> bytes:
    lines = "".join(f"Content-Encoding: {line}\r\n" for line in bomb.lines)
    head = f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n{lines}Content-Length: {len(bomb.body)}\r\n\r\n"
    return head.encode() + bomb.body


async def test_compressed_bodies_are_inflated_within_the_limit(tmp_path: Path) -> None:
    """A request body in any coding or chain that inflates past 50 MiB gets 413 from record and replay
    (nothing forwarded or recorded); such an upstream answer gets 502 past --max-body-bytes; peak RSS
    stays low. An answer in many gzip members, its coding on two header lines, is recorded and
    replayed whole."""
    port = free_port()
    cassette = tmp_path / "c.yaml"
    record = ["record", "--upstream", f"http://127.0.0.1:{port}", "--cassette", str(cassette)]
    ADDED_ANSWERS.update({f"/bomb/{number}": raw_answer(bomb) for number, bomb in enumerate(SAMPLE)})
    ADDED_ANSWERS["/ok/members"] = raw_answer(Coded("members", MEMBERS, ("identity", "gzip")))
    async with faulty_upstream(port):
        async with (
            commerce_proxy(*record, "--max-body-bytes", "1000000") as proxy,
            aiohttp.ClientSession(auto_decompress=False) as session,
        ):
            for number, bomb in enumerate(SAMPLE):
                headers = [("Content-Type", "application/json"), *bomb.headers]
                async with session.post(
                    f"{proxy.url}/ok/bomb", data=io.BytesIO(bomb.body), headers=headers
                ) as answer:
                    assert answer.status == 413, bomb.name
                    assert "inflates past" in (await answer.json())["errors"][0]["detail"]
                async with session.get(f"{proxy.url}/bomb/{number}") as answer:
                    assert answer.status == 502, bomb.name
                    assert "larger than --max-body-bytes (1000000 bytes)" in await answer.text()
            async with session.get(f"{proxy.url}/gzip-bomb") as answer:
                assert answer.status == 502
            async with session.get(f"{proxy.url}/ok/members") as answer:
                assert answer.status == 200 and await answer.read() == MEMBERS
            peak = peak_rss_mb(proxy.process.pid)
            code, err = await stop_with(proxy, signal.SIGTERM)
        assert code == 0, err
    recorded = read_cassette_file(cassette).exchanges
    assert [exchange.request.path for exchange in recorded] == ["/ok/members"]
    assert recorded[0].response.body.value == json.loads(gzip.decompress(MEMBERS))
    assert peak < 200, peak
    async with (
        commerce_proxy("replay", "--cassette", str(cassette)) as replay,
        aiohttp.ClientSession() as session,
    ):
        for bomb in SAMPLE:
            headers = [("Content-Type", "application/json"), *bomb.headers]
            async with session.post(
                f"{replay.url}/ok/bomb", data=io.BytesIO(bomb.body), headers=headers
            ) as answer:
                assert answer.status == 413, bomb.name
        async with session.get(f"{replay.url}/ok/members") as answer:
            assert await answer.json() == json.loads(gzip.decompress(MEMBERS))
        peak = peak_rss_mb(replay.process.pid)
        code, err = await stop_with(replay, signal.SIGTERM)
    assert code == 0, err
    assert peak < 200, peak


async def test_a_head_that_trickles_in_is_cut_at_its_deadline() -> None:
    """A client sending its headers a byte at a time, each in time, still gets 408 once the head has
    taken longer than --head-timeout: the deadline counts from the head's first byte."""
    async with commerce_proxy("replay", "--examples", "--head-timeout", "2") as replay:
        address, port = replay.url.removeprefix("http://").split(":")
        reader, writer = await asyncio.open_connection(address, int(port))
        started = asyncio.get_running_loop().time()
        writer.write(b"GET /v2/products HTTP/1.1\r\n")
        answer = asyncio.create_task(reader.read(4096))
        for _ in range(25):  # at most 10 s of trickling
            if answer.done():
                break
            writer.write(b"X-Slow: a\r\n")
            await asyncio.sleep(0.4)
        got = await asyncio.wait_for(answer, 5)
        elapsed = asyncio.get_running_loop().time() - started
        writer.close()
        code, err = await stop_with(replay, signal.SIGTERM)
    assert got.startswith(b"HTTP/1.1 408"), got[:100]
    assert b"not complete within 2 s" in got
    assert elapsed < 5, elapsed
    assert code == 0, err


async def test_connections_past_the_cap_are_refused_and_others_served_after() -> None:
    """With --max-connections 20 held by half-open heads, the next client gets 503 at once; once they
    go, new clients are served again."""
    async with commerce_proxy("replay", "--examples", "--max-connections", "20") as replay:
        address, port = replay.url.removeprefix("http://").split(":")
        held = []
        for _ in range(20):
            reader, writer = await asyncio.open_connection(address, int(port))
            writer.write(b"GET /v2/products HTTP/1.1\r\n")  # a head that never ends
            held.append(writer)
        await asyncio.sleep(0.2)
        reader, writer = await asyncio.open_connection(address, int(port))
        refused = await asyncio.wait_for(reader.read(4096), 5)
        writer.close()
        for writer in held:
            writer.close()
        await asyncio.sleep(0.3)
        async with aiohttp.ClientSession() as session, session.get(f"{replay.url}/_proxy/health") as answer:
            assert answer.status == 200
        code, err = await stop_with(replay, signal.SIGTERM)
    assert refused.startswith(b"HTTP/1.1 503"), refused[:100]
    assert b"too many open connections" in refused
    assert code == 0, err


@pytest.mark.serial
async def test_explaining_a_miss_does_not_hold_up_other_clients(tmp_path: Path) -> None:
    """An unmatched 1.7 MB JSON body against 2,000 recorded POSTs: the 404 names the closest ones, and a
    health check sent meanwhile is answered within 2 s (comparing every leaf with every candidate
    once took 13 s, all clients waiting)."""
    recorded = tuple(
        make_exchange(
            make_request("POST", "/v2/things", body=json_body({"n": n, "items": list(range(20))})),
            body=json_body({"data": {"n": n}}),
        )
        for n in range(2_000)
    )
    cassette = tmp_path / "many.yaml"
    save_cassette(cassette, Cassette(recorded, "http://127.0.0.1:9"))
    large = json.dumps({"n": -1, "items": [{"id": n, "name": f"item {n}"} for n in range(60_000)]})
    async with commerce_proxy("replay", "--cassette", str(cassette)) as replay:
        async with aiohttp.ClientSession() as session:

            async def miss() -> tuple[int, dict[str, object]]:
                headers = {"Content-Type": "application/json"}
                body = io.BytesIO(large.encode())
                async with session.post(f"{replay.url}/v2/things", data=body, headers=headers) as answer:
                    return answer.status, await answer.json()

            async def health() -> float:
                await asyncio.sleep(0.05)
                started = asyncio.get_running_loop().time()
                async with session.get(f"{replay.url}/_proxy/health") as answer:
                    assert answer.status == 200
                return asyncio.get_running_loop().time() - started

            (status, document), waited = await asyncio.wait_for(asyncio.gather(miss(), health()), 60)
        code, err = await stop_with(replay, signal.SIGTERM)
    assert code == 0, err
    assert status == 404 and len(document["errors"][0]["meta"]["closest"]) == 3  # type: ignore[index]
    assert waited < 2, waited
