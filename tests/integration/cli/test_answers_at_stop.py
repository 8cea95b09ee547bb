"""An answer the server began to send before a stop reaches its client whole: the process does not end
while an answer is still in a socket's buffer (a client reading a large body slowly), for any size
past what the kernel buffers and either signal. Once it is sent, the process exits."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import pytest

from proxy.core.cassette.document import Cassette, dump_cassette
from proxy.core.model.bodies import body_from_bytes
from proxy.core.model.exchange import Exchange, Request, Response
from tests.running import commerce_proxy

TEXT = (("Content-Type", "text/plain; charset=utf-8"),)


def cassette_of(path: Path, size: int) -> None:
    body = body_from_bytes((b"0123456789abcdef" * (size // 16 + 1))[:size], TEXT)
    exchange = Exchange(
        Request("GET", "/v2/big", "", (), body_from_bytes(b"", ())), Response(200, TEXT, body)
    )
    path.write_text(dump_cassette(Cassette((exchange,))), encoding="utf-8")


async def read_slowly(reader: asyncio.StreamReader, size: int) -> bytes:
    """The rest of a body of `size` bytes, read 256 KiB at a time with a pause between (a slow client)."""
    got = bytearray()
    while len(got) < size:
        piece = await reader.read(256 * 1024)
        if not piece:
            break
        got += piece
        await asyncio.sleep(0.01)
    return bytes(got)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
@pytest.mark.parametrize("size", [6_000_000, 24_000_000])
async def test_an_answer_begun_before_a_stop_is_sent_whole(tmp_path: Path, size: int, signum: int) -> None:
    cassette = tmp_path / "big.yaml"
    cassette_of(cassette, size)
    async with commerce_proxy("replay", "--cassette", str(cassette), "--no-ui", "--quiet") as replay:
        host, port = replay.url.removeprefix("http://").rsplit(":", 1)
        reader, writer = await asyncio.open_connection(host, int(port))
        writer.write(f"GET /v2/big HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
        await writer.drain()
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
        assert head.startswith(b"HTTP/1.1 200"), head[:80]
        length = next(
            int(line.split(b":", 1)[1])
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length:")
        )
        assert length == size
        replay.process.send_signal(signum)
        await asyncio.sleep(0.3)  # the server is stopping while most of the body is still to be read
        body = await asyncio.wait_for(read_slowly(reader, size), 60)
        writer.close()
        code = await asyncio.wait_for(replay.process.wait(), 30)
    assert len(body) == size, f"{len(body):,} of {size:,} bytes before the connection closed"
    assert body[:16] == b"0123456789abcdef"
    assert code == 0
