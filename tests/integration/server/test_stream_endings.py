"""A stream (the UI's events) ends with its last chunk only when it really ended: its rows ran out, or
the server stopped in order (`end_stream`). When its task is cancelled instead (a second Ctrl-C: the
process dies), the connection is cut, so a client sees an incomplete body rather than a complete
one missing rows. An outsider found a double SIGINT ending streams as if they were whole (curl 0)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from proxy.server.serving import start
from proxy.server.wire import Incoming, Stream, WireServer


def stream_server(rows: int, then_wait: bool) -> WireServer:
    async def chunks() -> AsyncIterator[bytes]:
        for number in range(rows):
            yield f"data: {number}\n\n".encode()
        if then_wait:
            await asyncio.sleep(3600)

    def handle(_: Incoming) -> Stream:
        return Stream(200, (("Content-Type", "text/event-stream"),), chunks())

    return WireServer(handle)


async def body_of(url: str, until: bytes) -> tuple[bytes, asyncio.StreamReader, asyncio.StreamWriter]:
    host, port = url.removeprefix("http://").rsplit(":", 1)
    reader, writer = await asyncio.open_connection(host, int(port))
    writer.write(f"GET /events HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
    await writer.drain()
    got = b""
    while until not in got:
        got += await asyncio.wait_for(reader.read(65536), 10)
    return got, reader, writer


async def rest(reader: asyncio.StreamReader) -> bytes:
    got = b""
    while piece := await asyncio.wait_for(reader.read(65536), 10):
        got += piece
    return got


@pytest.mark.parametrize("rows", [1, 3, 50])
async def test_a_cancelled_streams_connection_is_cut_without_its_last_chunk(rows: int) -> None:
    server = stream_server(rows, then_wait=True)
    runner, url = await start(server, "127.0.0.1", 0)
    try:
        got, reader, writer = await body_of(url, f"data: {rows - 1}\n\n".encode())
        tasks = [task for task in asyncio.all_tasks() if "_finish" in repr(task.get_coro())]
        assert tasks
        for task in tasks:
            task.cancel()  # as asyncio.run cancels what is left when the process is interrupted
        got += await rest(reader)
        writer.close()
    finally:
        await runner.cleanup()
    assert not got.endswith(b"0\r\n\r\n"), got[-40:]


@pytest.mark.parametrize("then_wait", [False, True])
async def test_a_stream_that_ends_or_is_ended_by_a_stop_ends_with_its_last_chunk(then_wait: bool) -> None:
    server = stream_server(3, then_wait)
    runner, url = await start(server, "127.0.0.1", 0)
    got, reader, writer = await body_of(url, b"data: 2\n\n")
    if then_wait:
        await runner.cleanup()  # a stop in order: end_stream
    got += await rest(reader)
    writer.close()
    if not then_wait:
        await runner.cleanup()
    assert got.endswith(b"0\r\n\r\n"), got[-40:]
