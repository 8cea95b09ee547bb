"""Serving stays within bounded memory whatever the clients send: replay keeps the encoded answers of a
few origins, not one set per Host header a client makes up."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

from proxy.store.files import read_cassette_file
from proxy.store.shipped import shipped_dir
from tests.running import commerce_proxy, stop_with

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
                writer.write(f"GET {target} HTTP/1.1\r\nHost: client-{number}.test\r\n\r\n".encode())
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
