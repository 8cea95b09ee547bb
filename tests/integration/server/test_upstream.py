"""The recording proxy's upstream client against raw sockets: framing, reuse, stale connections, limits."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest

from proxy.server.upstream import UpstreamError, UpstreamPool

Script = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


@pytest.fixture
async def upstream() -> AsyncIterator[Callable[[Script], Awaitable[str]]]:
    """Start a raw TCP upstream that runs a script per connection; every connection is closed after."""
    servers: list[asyncio.Server] = []
    running: set[asyncio.Task[None]] = set()

    async def start(script: Script) -> str:
        async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            task = asyncio.current_task()
            assert task is not None
            running.add(task)
            try:
                await script(reader, writer)
            except (asyncio.IncompleteReadError, ConnectionError):
                pass
            finally:
                writer.close()
                running.discard(task)

        server = await asyncio.start_server(handler, "127.0.0.1", 0)
        servers.append(server)
        return f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/base"

    yield start
    for task in list(running):
        task.cancel()
    await asyncio.gather(*running, return_exceptions=True)
    for server in servers:
        server.close()
        await server.wait_closed()


async def read_request(reader: asyncio.StreamReader) -> tuple[str, bytes]:
    head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
    length = next(
        (int(line.split(":")[1]) for line in head.split("\r\n") if line.lower().startswith("content-length")),
        0,
    )
    return head, await reader.readexactly(length)


async def test_keeps_the_raw_target_and_headers_and_reuses_the_connection(upstream) -> None:  # type: ignore[no-untyped-def]
    seen: list[str] = []
    connections = 0

    async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal connections
        connections += 1
        while True:
            try:
                head, body = await read_request(reader)
            except asyncio.IncompleteReadError:
                return
            seen.append(head + body.decode())
            writer.write(b"HTTP/1.1 201 Made It\r\nX-Up: 1\r\nx-up: 2\r\nContent-Length: 2\r\n\r\nok")

    pool = UpstreamPool(await upstream(script), timeout=5, max_body=1000)
    for _ in range(3):
        answer = await pool.send(
            "POST", "/v2/x?page[limit]=2&a=%2F", (("X-Case", "Kept"), ("Host", "evil")), b"{}"
        )
        assert (answer.status, answer.reason, answer.body) == (201, "Made It", b"ok")
        assert answer.headers == (("X-Up", "1"), ("x-up", "2"), ("Content-Length", "2"))
    assert connections == 1
    assert seen[0].startswith("POST /base/v2/x?page[limit]=2&a=%2F HTTP/1.1\r\nHost: 127.0.0.1:")
    assert (
        "X-Case: Kept\r\n" in seen[0]
        and "evil" not in seen[0]
        and seen[0].endswith("Content-Length: 2\r\n\r\n{}")
    )
    pool.close()


async def test_chunked_close_delimited_interim_and_head_answers(upstream) -> None:  # type: ignore[no-untyped-def]
    answers = iter(
        [
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n",
            b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nz",
            b"HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n",
            b"HTTP/1.1 200 OK\r\n\r\nuntil the end",
        ]
    )

    async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        answer = next(answers)
        writer.write(answer)
        if answer.endswith(b"until the end"):
            writer.close()
            return
        await asyncio.sleep(0.2)
        writer.close()

    pool = UpstreamPool(await upstream(script), timeout=5, max_body=1000)
    assert (await pool.send("GET", "/a", (), b"")).body == b"abcde"
    assert (await pool.send("PUT", "/b", (("Expect", "100-continue"),), b"x")).body == b"z"
    head = await pool.send("HEAD", "/c", (), b"")
    assert head.body == b"" and ("Content-Length", "99") in head.headers
    assert (await pool.send("GET", "/d", (), b"")).body == b"until the end"
    pool.close()


async def test_a_pooled_connection_the_upstream_closed_is_retried_on_a_fresh_one(upstream) -> None:  # type: ignore[no-untyped-def]
    connections = 0
    closed = asyncio.Event()

    async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal connections
        connections += 1
        await read_request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n1")
        await writer.drain()
        writer.close()  # keep-alive was not refused, but the connection is gone by the next request
        await writer.wait_closed()
        closed.set()

    pool = UpstreamPool(await upstream(script), timeout=5, max_body=1000)
    assert (await pool.send("GET", "/1", (), b"")).body == b"1"
    await asyncio.wait_for(closed.wait(), 5)
    assert (await pool.send("GET", "/2", (), b"")).body == b"1"
    assert connections == 2
    pool.close()


async def test_failures_are_named_by_stage(upstream) -> None:  # type: ignore[no-untyped-def]
    async def big(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n" + b"x" * 5000)

    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await asyncio.sleep(5)

    async def cut(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc")
        writer.close()

    cases = [(big, 5.0, "size"), (silent, 0.2, "timeout"), (cut, 5.0, "answer")]
    for script, timeout, stage in cases:
        pool = UpstreamPool(await upstream(script), timeout=timeout, max_body=1000)
        with pytest.raises(UpstreamError) as raised:
            await pool.send("GET", "/", (), b"")
        assert raised.value.stage == stage
        pool.close()
    unused = UpstreamPool("http://127.0.0.1:9/", timeout=5, max_body=1000)
    with pytest.raises(UpstreamError) as raised:
        await unused.send("GET", "/", (), b"")
    assert raised.value.stage == "connect"
