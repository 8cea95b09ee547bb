"""The wire server's streamed answer (`Stream`, what Server-Sent Events go out as): chunked on the wire,
ended by its iterator, by the client going away, or by the server stopping, which it never holds up."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from proxy.server.wire import Incoming, Outgoing, Reply, Stream, WireServer


class Source:
    """Chunks a test hands out one by one; `closed` is set when the stream's iterator was closed."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[bytes | None] = asyncio.Queue()
        self.closed = asyncio.Event()
        self.started = asyncio.Event()

    async def chunks(self) -> AsyncIterator[bytes]:
        self.started.set()
        try:
            while (chunk := await self.queue.get()) is not None:
                yield chunk
        finally:
            self.closed.set()


async def serving(source: Source) -> WireServer:
    def handle(incoming: Incoming) -> Reply:
        if incoming.target == "/plain":
            return Outgoing(200, (), b"plain")
        return Stream(200, (("Content-Type", "text/event-stream"),), source.chunks())

    server = WireServer(handle)
    await server.start("127.0.0.1", 0)
    return server


async def opened(server: WireServer) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    host, port = server.address.rsplit(":", 1)
    return await asyncio.open_connection(host, int(port))


async def test_a_stream_is_written_chunked_as_it_comes_and_ends_with_its_iterator() -> None:
    """Each chunk is on the wire before the next exists; the end is the zero chunk, then the close."""
    source = Source()
    server = await serving(source)
    try:
        reader, writer = await opened(server)
        writer.write(b"GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        head = (await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)).decode("latin-1")
        assert head.startswith("HTTP/1.1 200 OK\r\n")
        assert "Transfer-Encoding: chunked" in head and "Content-Length" not in head
        assert "Content-Type: text/event-stream" in head and "Connection: close" in head
        for text in (b"data: one\n\n", b"data: two\n\n" * 1000):
            await source.queue.put(text)
            size_line = await asyncio.wait_for(reader.readuntil(b"\r\n"), 10)
            assert int(size_line, 16) == len(text)
            assert await asyncio.wait_for(reader.readexactly(len(text) + 2), 10) == text + b"\r\n"
        await source.queue.put(None)
        assert await asyncio.wait_for(reader.read(), 10) == b"0\r\n\r\n"  # then EOF: closed
        await asyncio.wait_for(source.closed.wait(), 10)
        writer.close()
    finally:
        await server.cleanup(timeout=1)


async def test_a_client_going_away_ends_the_stream_and_closes_its_iterator() -> None:
    source = Source()
    server = await serving(source)
    try:
        reader, writer = await opened(server)
        writer.write(b"GET /events HTTP/1.1\r\n\r\n")
        await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
        await asyncio.wait_for(source.started.wait(), 10)
        writer.close()
        await asyncio.wait_for(source.closed.wait(), 10)  # the iterator's cleanup ran: nothing left waiting
        for _ in range(200):
            if not server._connections:
                break
            await asyncio.sleep(0.01)
        assert not server._connections
    finally:
        await server.cleanup(timeout=1)


async def test_stopping_the_server_ends_open_streams_and_is_not_held_up_by_them() -> None:
    """cleanup's grace period is for answers in flight; a stream waiting for its next chunk is ended at
    once (with its zero chunk), so a 30 s grace is not spent waiting on it."""
    source = Source()
    server = await serving(source)
    streams = []
    for _ in range(3):
        reader, writer = await opened(server)
        writer.write(b"GET /events HTTP/1.1\r\n\r\n")
        await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
        streams.append((reader, writer))
    await source.queue.put(b"x")
    await asyncio.wait_for(server.cleanup(timeout=30), 10)
    assert source.closed.is_set()
    rest = b"".join([await asyncio.wait_for(reader.read(), 10) for reader, _ in streams])
    assert rest.count(b"0\r\n\r\n") == 3
    for _, writer in streams:
        writer.close()


async def test_head_of_a_stream_is_its_head_alone_and_plain_answers_are_unchanged() -> None:
    source = Source()
    server = await serving(source)
    try:
        reader, writer = await opened(server)
        writer.write(b"HEAD /events HTTP/1.1\r\n\r\n")
        answer = await asyncio.wait_for(reader.read(), 10)
        assert answer.startswith(b"HTTP/1.1 200 OK\r\n") and answer.endswith(b"\r\n\r\n")
        assert b"0\r\n\r\n" not in answer.partition(b"\r\n\r\n")[2]
        writer.close()
        reader, writer = await opened(server)
        writer.write(b"GET /plain HTTP/1.1\r\nConnection: close\r\n\r\n")
        assert (await asyncio.wait_for(reader.read(), 10)).endswith(
            b"Content-Length: 5\r\nConnection: close\r\n\r\nplain"
        )
        writer.close()
    finally:
        await server.cleanup(timeout=1)
