"""The recording proxy's client to the upstream: pooled keep-alive HTTP/1.1 connections, httptools parsing.

aiohttp's ClientSession was the recording path's largest single cost after the rules: a request object,
a response object, a stream reader and a connector lookup per request, about 200 µs here. A proxy needs
none of that: it has the request's method, raw target, headers and whole body, and wants the whole
answer back. This client writes the request as one buffer on an idle pooled connection and parses the
answer with llhttp (the parser the wire server uses), about a fifth of the cost. It keeps what a proxy
must: the raw target byte for byte, headers in order with their case, TLS for https upstreams, bodies
framed by length, chunks or the connection's end, 1xx answers skipped, HEAD answers without a body, a
limit on the answer's size, a timeout, and one retry on a fresh connection when a pooled one turns out
to have been closed by the upstream before it answered anything.
"""

from __future__ import annotations

import asyncio
import ssl
from dataclasses import dataclass
from pathlib import Path
from typing import cast
from urllib.parse import urlsplit

import httptools

from proxy.core.model.access import without_our_credentials
from proxy.core.model.exchange import Headers
from proxy.errors import UsageError

NOT_SENT = frozenset({"host", "content-length", "transfer-encoding", "connection", "keep-alive"})
MAX_HEAD_BYTES = 64 * 1024  # an answer's status line and headers; the wire server allows clients as much


def tls_context(ca_bundle: Path | None) -> ssl.SSLContext:
    """Verifying TLS for an https upstream: the system's CAs, or only those in `ca_bundle` (a private CA).

    Certificates and host names are always verified; there is no switch to turn that off.
    """
    if ca_bundle is None:
        return ssl.create_default_context()
    try:
        return ssl.create_default_context(cafile=str(ca_bundle))
    except FileNotFoundError:
        raise UsageError(f"--ca-bundle {ca_bundle}: no such file") from None
    except (OSError, ssl.SSLError) as error:
        reason = getattr(error, "reason", None) or error.strerror or str(error)
        raise UsageError(f"--ca-bundle {ca_bundle}: not a PEM file of CA certificates ({reason})") from None


class UpstreamError(Exception):
    """The upstream gave no complete answer; `stage` says whether it was connecting or answering."""

    def __init__(self, stage: str, detail: str) -> None:
        super().__init__(detail)
        self.stage = stage  # "connect", "answer", "size", "timeout" or "invalid"


@dataclass(frozen=True, slots=True)
class UpstreamAnswer:
    status: int
    reason: str | None
    headers: Headers
    body: bytes


class UpstreamPool:
    """Idle keep-alive connections to one upstream origin, reused most recently used first."""

    def __init__(
        self,
        base: str,
        timeout: float,
        max_body: int,
        idle_limit: int = 256,
        ca_bundle: Path | None = None,
        authorization: str | None = None,
    ) -> None:
        self.authorization = authorization  # sent when a request has none (credentials in --upstream)
        parts = urlsplit(base)
        self.secure = parts.scheme == "https"
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or (443 if self.secure else 80)
        default_port = (parts.port is None) or parts.port == (443 if self.secure else 80)
        shown = f"[{self.host}]" if ":" in self.host else self.host
        self.host_header = shown if default_port else f"{shown}:{self.port}"
        self.prefix = parts.path.rstrip("/")
        self.timeout = timeout
        self.max_body = max_body
        self.idle_limit = idle_limit
        self._idle: list[_Connection] = []
        self._ssl = tls_context(ca_bundle) if self.secure else None

    async def send(self, method: str, target: str, headers: Headers, body: bytes) -> UpstreamAnswer:
        """Send one request (target: raw path and query below the base path) and read the whole answer."""
        wire = self._encode(method, self.prefix + target, headers, body)
        try:
            return await asyncio.wait_for(self._exchange(method, wire), self.timeout)
        except TimeoutError:
            raise UpstreamError("timeout", f"no answer within {self.timeout:g} s") from None

    async def _exchange(self, method: str, wire: bytes) -> UpstreamAnswer:
        while self._idle:
            connection = self._idle.pop()
            if connection.closed:
                continue
            try:
                return await self._over(connection, method, wire)
            except _Stale:
                continue  # closed by the upstream while idle, before any byte of an answer: try another
        return await self._over(await self._connect(), method, wire)

    async def _over(self, connection: _Connection, method: str, wire: bytes) -> UpstreamAnswer:
        try:
            answer, reusable = await connection.request(wire, method == "HEAD")
        except BaseException:
            connection.close()
            raise
        if reusable and len(self._idle) < self.idle_limit:
            self._idle.append(connection)
        else:
            connection.close()
        return answer

    async def _connect(self) -> _Connection:
        loop = asyncio.get_running_loop()
        try:
            _, protocol = await loop.create_connection(
                lambda: _Connection(self.max_body), self.host, self.port, ssl=self._ssl
            )
        except OSError as error:
            raise UpstreamError("connect", error.strerror or str(error)) from None
        return protocol

    def _encode(self, method: str, target: str, headers: Headers, body: bytes) -> bytes:
        lines = [f"{method} {target} HTTP/1.1", f"Host: {self.host_header}"]
        # Every request to an upstream is written here (record, spy, resend, verify): our UI's token
        # and cookies never leave the process, whatever a client sent beside its own.
        headers = without_our_credentials(headers)
        lines.extend(f"{name}: {value}" for name, value in headers if name.lower() not in NOT_SENT)
        if self.authorization and not any(name.lower() == "authorization" for name, _ in headers):
            lines.append(f"Authorization: {self.authorization}")
        if body or method in ("POST", "PUT", "PATCH"):
            lines.append(f"Content-Length: {len(body)}")
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1", "replace") + body

    def close(self) -> None:
        """Close every idle connection."""
        for connection in self._idle:
            connection.close()
        self._idle.clear()


class _Stale(Exception):
    """A pooled connection was closed before it answered anything: the request can go on another."""


class _Connection(asyncio.Protocol):
    """One connection to the upstream, one request at a time."""

    def __init__(self, max_body: int) -> None:
        self.max_body = max_body
        self.transport: asyncio.Transport | None = None
        self.closed = False
        self._waiter: asyncio.Future[tuple[UpstreamAnswer, bool]] | None = None
        self._used = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)

    async def request(self, wire: bytes, head_only: bool) -> tuple[UpstreamAnswer, bool]:
        """Write the request; the answer and whether the connection can carry another request."""
        assert self.transport is not None
        self._parser = httptools.HttpResponseParser(self)
        self._head_only = head_only
        self._reason: str | None = None
        self._headers: list[tuple[str, str]] = []
        self._body: list[bytes] = []
        self._size = 0
        self._head_size = 0
        self._received = False
        self._headers_done = False
        self._framed = False
        self._waiter = asyncio.get_running_loop().create_future()
        fresh = not self._used
        self._used = True
        self.transport.write(wire)
        try:
            return await self._waiter
        except _Stale:
            if fresh:
                detail = "the upstream closed the connection without answering"
                raise UpstreamError("answer", detail) from None
            raise

    # asyncio.Protocol

    def data_received(self, data: bytes) -> None:
        self._received = True
        if self._waiter is None or self._waiter.done():
            self.close()  # bytes nobody asked for: this connection cannot be trusted
            return
        try:
            self._parser.feed_data(data)
        except httptools.HttpParserError as error:
            cause = error.__context__
            if isinstance(cause, UpstreamError):
                self._fail(cause)
            else:
                self._fail(UpstreamError("answer", f"malformed answer: {error}"))

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self.transport = None
        if self._waiter is None or self._waiter.done():
            return
        if self._headers_done and not self._framed and not self._head_only:
            self._complete(reusable=False)  # an answer delimited by the connection's end
        elif not self._received:
            self._waiter.set_exception(_Stale())
        else:
            self._fail(UpstreamError("answer", "the upstream closed the connection mid-answer"))

    # httptools callbacks

    def on_status(self, status: bytes) -> None:
        self._count_head(len(status))
        self._reason = status.decode("latin-1")

    def on_header(self, name: bytes, value: bytes) -> None:
        self._count_head(len(name) + len(value))
        self._headers.append((name.decode("latin-1"), value.decode("latin-1")))

    def _count_head(self, size: int) -> None:
        self._head_size += size
        if self._head_size > MAX_HEAD_BYTES:
            raise UpstreamError("invalid", f"its status line and headers are over {MAX_HEAD_BYTES} bytes")

    def on_headers_complete(self) -> None:
        status = self._parser.get_status_code()
        if not 100 <= status <= 599:  # no client could read it, nor a cassette hold it
            raise UpstreamError("invalid", f"it answered with status {status}, outside 100-599")
        if 100 <= status < 200 and status != 101:
            self._headers.clear()  # an interim answer (100 Continue): the real one follows
            return
        self._headers_done = True
        framing = ("content-length", "transfer-encoding")
        self._framed = any(name.lower() in framing for name, _ in self._headers)
        if self._head_only:
            self._complete(reusable=False)  # llhttp would wait for the body a HEAD answer never has

    def on_body(self, body: bytes) -> None:
        self._size += len(body)
        if self._size > self.max_body:
            raise UpstreamError("size", f"the answer is larger than {self.max_body} bytes")
        self._body.append(body)

    def on_message_complete(self) -> None:
        if self._headers_done:
            self._complete(reusable=self._parser.should_keep_alive())

    def _complete(self, reusable: bool) -> None:
        if self._waiter is None or self._waiter.done():
            return
        answer = UpstreamAnswer(
            self._parser.get_status_code(), self._reason, tuple(self._headers), b"".join(self._body)
        )
        self._waiter.set_result((answer, reusable and not self.closed))

    def _fail(self, error: UpstreamError) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_exception(error)
        self.close()

    def close(self) -> None:
        self.closed = True
        if self.transport is not None and not self.transport.is_closing():
            self.transport.close()
