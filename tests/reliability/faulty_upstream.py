"""An upstream that misbehaves on purpose, at the socket level: what aiohttp.web would not let us send.

Each path is one fault; `/ok/N` answers properly so a test can show the proxy still serves between them.
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import json
from collections.abc import AsyncIterator

SLOW_SECONDS = 3.0
HUGE_BYTES = 2 * 1024 * 1024


# Answers no client could read or no cassette hold, and bodies a JSON parser may change on the way.
EXACT_NUMBERS = b'{"big": 123456789012345678901234567890, "huge": 1e400, "tiny": 1e-400, "price": 12.50}'
LONE_SURROGATE = b'{"name": "\\ud800 half a pair"}'
BOMB = gzip.compress(b'{"data": "' + b"0" * 5_000_000 + b'"}')  # 5 MB once inflated
RAW_ANSWERS = {
    "/gzip-bomb": (
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\n"
        b"Content-Length: %d\r\n\r\n%s" % (len(BOMB), BOMB)
    ),
    "/status-600": b"HTTP/1.1 600 Beyond\r\nContent-Length: 2\r\n\r\n{}",
    "/status-099": b"HTTP/1.1 099 Below\r\nContent-Length: 2\r\n\r\n{}",
    "/endless-head": b"HTTP/1.1 200 OK\r\n"
    + b"X-Filler: "
    + b"z" * 100_000
    + b"\r\nContent-Length: 0\r\n\r\n",
    "/exact-numbers": (
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
        % (len(EXACT_NUMBERS), EXACT_NUMBERS)
    ),
    "/lone-surrogate": (
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
        % (len(LONE_SURROGATE), LONE_SURROGATE)
    ),
}


# Answers a test adds by path (a bomb in each coding, say) before it starts the upstream.
ADDED_ANSWERS: dict[str, bytes] = {}


def _answer(
    status: str, body: bytes, content_type: str = "application/json", length: int | None = None
) -> bytes:
    size = len(body) if length is None else length
    head = f"HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {size}\r\n\r\n"
    return head.encode() + body


async def _serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            path = lines[0].split(" ")[1]
            length = next(
                (int(line.split(":", 1)[1]) for line in lines if line.lower().startswith("content-length:")),
                0,
            )
            await reader.readexactly(length)
            if path == "/reset":  # half a status line, then a TCP reset
                writer.write(b"HTTP/1.1 200 O")
                await writer.drain()
                writer.transport.abort()
                return
            if path == "/slow":
                await asyncio.sleep(SLOW_SECONDS)
            if path == "/truncated":  # promises 100 bytes, sends 10, closes
                writer.write(_answer("200 OK", b'{"data": [', length=100))
                await writer.drain()
                writer.close()
                return
            if path in RAW_ANSWERS or path in ADDED_ANSWERS:
                writer.write(RAW_ANSWERS.get(path) or ADDED_ANSWERS[path])
            elif path == "/not-json":
                writer.write(_answer("200 OK", b"{this is not json"))
            elif path == "/5xx":
                errors = {"errors": [{"status": "503", "title": "Service Unavailable", "detail": "down"}]}
                writer.write(_answer("503 Service Unavailable", json.dumps(errors).encode()))
            elif path == "/huge":
                writer.write(_answer("200 OK", b'"' + b"x" * HUGE_BYTES + b'"'))
            else:
                writer.write(_answer("200 OK", json.dumps({"data": {"path": path}}).encode()))
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError):
        pass
    finally:
        writer.close()


@contextlib.asynccontextmanager
async def faulty_upstream(port: int = 0) -> AsyncIterator[str]:
    """Serve the faults on 127.0.0.1 and `port` (0: a free one); yields the base URL."""
    server = await asyncio.start_server(_serve, "127.0.0.1", port)
    port = server.sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.close()
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(server.wait_closed(), 5)
