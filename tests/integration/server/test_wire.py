"""The lean wire server under what clients really send: raw bytes over a socket, checked byte for byte."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest

from proxy.server.wire import DROP, Incoming, Outgoing, Reply, Trickle, WireServer

Connect = Callable[[], Awaitable[tuple[asyncio.StreamReader, asyncio.StreamWriter]]]


def echo(incoming: Incoming) -> Reply | Awaitable[Reply]:
    """Answers with what it got, so a test sees how the request was parsed."""
    if incoming.target == "/drop":
        return DROP
    if incoming.target == "/slow":
        return Trickle(Outgoing(200, (("Content-Type", "text/plain"),), b"0123456789"), 0.05)
    if incoming.target.startswith("/wait"):
        return waited(incoming)
    if incoming.target == "/boom":
        raise RuntimeError("handler bug")
    text = f"{incoming.method} {incoming.target} {len(incoming.body)} {incoming.header('x-tag')}"
    return Outgoing(200, (("Content-Type", "text/plain"), ("X-Seen", incoming.http_version)), text.encode())


ARRIVED: dict[str, asyncio.Event] = {}  # a test waits on the event of a target the handler has in hand


async def waited(incoming: Incoming) -> Reply:
    if incoming.target in ARRIVED:
        ARRIVED[incoming.target].set()
    await asyncio.sleep(0.05)  # the handler's own work: it answers a little later
    return Outgoing(200, (), f"waited {incoming.target}".encode())


@pytest.fixture
async def server() -> AsyncIterator[WireServer]:
    wire = WireServer(echo, max_body=1000)
    await wire.start("127.0.0.1", 0)
    yield wire
    await wire.cleanup(timeout=1)


@pytest.fixture
def connect(server: WireServer) -> Connect:
    host, port = server.address.rsplit(":", 1)

    async def opened() -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        return await asyncio.open_connection(host, int(port))

    return opened


async def read_answer(reader: asyncio.StreamReader, head_only: bool = False) -> tuple[str, bytes]:
    head = (await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)).decode("latin-1")
    length = next(
        (int(line.split(":")[1]) for line in head.split("\r\n") if line.lower().startswith("content-length")),
        0,
    )
    body = b"" if head_only else await asyncio.wait_for(reader.readexactly(length), 5)
    return head, body


async def test_keep_alive_answers_many_requests_on_one_connection(connect: Connect) -> None:
    reader, writer = await connect()
    for number in range(3):
        writer.write(f"GET /n{number}?a=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Tag: t{number}\r\n\r\n".encode())
        head, body = await read_answer(reader)
        assert head.startswith("HTTP/1.1 200 OK\r\n")
        assert "Content-Length: " in head and "Connection: close" not in head
        assert body == f"GET /n{number}?a=1 0 t{number}".encode()
    writer.close()


async def test_pipelined_requests_are_answered_in_order_even_when_one_waits(connect: Connect) -> None:
    reader, writer = await connect()
    writer.write(
        b"GET /wait1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /fast HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    )
    assert (await read_answer(reader))[1] == b"waited /wait1"
    assert (await read_answer(reader))[1] == b"GET /fast 0 None"
    writer.close()


async def test_bodies_chunked_or_sized_arrive_whole(connect: Connect) -> None:
    reader, writer = await connect()
    writer.write(b"POST /p HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\n\r\nhello")
    assert (await read_answer(reader))[1] == b"POST /p 5 None"
    writer.write(
        b"POST /c HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n"
    )
    assert (await read_answer(reader))[1] == b"POST /c 5 None"
    writer.close()


async def test_head_gets_the_length_but_no_body(connect: Connect) -> None:
    reader, writer = await connect()
    writer.write(b"HEAD /h HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /after HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    head, _ = await read_answer(reader, head_only=True)
    assert "Content-Length: 14" in head  # the GET body's length ("HEAD /h 0 None")
    assert (await read_answer(reader))[1] == b"GET /after 0 None"  # nothing stray between the two
    writer.close()


async def test_http10_and_connection_close_end_the_connection(connect: Connect) -> None:
    for request in (b"GET /old HTTP/1.0\r\n\r\n", b"GET /bye HTTP/1.1\r\nConnection: close\r\n\r\n"):
        reader, writer = await connect()
        writer.write(request)
        head, _ = await read_answer(reader)
        assert "Connection: close" in head
        assert await asyncio.wait_for(reader.read(), 5) == b""  # closed by the server
        writer.close()


async def test_expect_continue_is_answered_before_the_body(connect: Connect) -> None:
    reader, writer = await connect()
    writer.write(b"PUT /e HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 3\r\nExpect: 100-continue\r\n\r\n")
    assert await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5) == b"HTTP/1.1 100 Continue\r\n\r\n"
    writer.write(b"abc")
    assert (await read_answer(reader))[1] == b"PUT /e 3 None"
    writer.close()


@pytest.mark.parametrize(
    ("request_bytes", "status"),
    [
        (b"NOT HTTP AT ALL\r\n\r\n", 400),
        (b"POST /big HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5000\r\n\r\n", 413),
        (
            b"POST /big HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n7d0\r\n"
            + b"x" * 2000,
            413,
        ),
        (b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"y" * 70_000 + b"\r\n\r\n", 431),
    ],
)
async def test_bad_or_oversized_requests_get_an_error_and_a_closed_connection(
    connect: Connect, request_bytes: bytes, status: int
) -> None:
    reader, writer = await connect()
    writer.write(request_bytes)
    head, body = await read_answer(reader)
    assert head.startswith(f"HTTP/1.1 {status} ")
    assert b'"errors"' in body
    assert await asyncio.wait_for(reader.read(), 5) == b""
    writer.close()


async def test_a_handler_failure_is_a_500_and_the_connection_lives_on(connect: Connect) -> None:
    reader, writer = await connect()
    writer.write(
        b"GET /boom HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /next HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    )
    assert (await read_answer(reader))[0].startswith("HTTP/1.1 500 ")
    assert (await read_answer(reader))[1] == b"GET /next 0 None"
    writer.close()


async def test_drop_cuts_the_connection_and_trickle_sends_the_body_in_pieces(connect: Connect) -> None:
    reader, writer = await connect()
    writer.write(b"GET /drop HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    assert await asyncio.wait_for(reader.read(), 5) == b""
    writer.close()
    reader, writer = await connect()
    writer.write(b"GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
    pieces = []
    while sum(map(len, pieces)) < 10:
        pieces.append(await asyncio.wait_for(reader.read(100), 5))
    assert b"".join(pieces) == b"0123456789" and len(pieces) > 1
    writer.close()


async def test_cleanup_lets_an_answer_in_flight_finish_and_runs_the_cleanup_callbacks(
    server: WireServer, connect: Connect
) -> None:
    ran: list[str] = []

    async def callback() -> None:
        ran.append("cleanup")

    server.on_cleanup.append(callback)
    reader, writer = await connect()
    arrived = ARRIVED["/wait-late"] = asyncio.Event()
    writer.write(b"GET /wait-late HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    await asyncio.wait_for(arrived.wait(), 5)
    stopping = asyncio.create_task(server.cleanup(timeout=5))
    head, body = await read_answer(reader)
    assert body == b"waited /wait-late" and "Connection: close" in head
    await stopping
    assert ran == ["cleanup"]
    with pytest.raises(OSError):
        await connect()
    writer.close()


async def test_a_request_that_never_finishes_arriving_is_cut_with_408(
    connect: Connect, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("proxy.server.wire.PARTIAL_SECONDS", 0.1)
    reader, writer = await connect()
    writer.write(b"GET /slowloris HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: ")  # and then nothing more
    head, _ = await read_answer(reader)
    assert head.startswith("HTTP/1.1 408 ")
    assert await asyncio.wait_for(reader.read(), 5) == b""
    writer.close()
