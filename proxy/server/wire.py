"""A lean HTTP/1.1 server: asyncio protocol, httptools (llhttp) parsing, answers written as ready bytes.

Replay answers from memory, so the serving path is its whole cost: aiohttp.web's request and response
objects cost about 70 µs a request, more than replay's matching; this, about a fifth of that. It keeps
what a client may rely on: keep-alive, pipelined requests answered in order, HTTP/1.0, `Expect:
100-continue`, HEAD, limits on header and body size (431, 413), 400 on bad input, idle connections
closed, write back-pressure, and a graceful stop that lets answers in flight finish. Every request
passes one gate before its body is read: its Host must name this machine (`HostPolicy`), so a web page
reaching us by DNS rebinding gets a 421 (a 403 on our own /_proxy/ paths, any spelling: `access.ours`)
and nothing else, and a request a browser sends for a page on another origin gets a 403. While the
server has a UI, every answer that is not ours (not a /_proxy/ path's, nor the wire's own refusal: those
carry `access.UI_HEADERS`) carries `access.OUTSIDE_UI` as it is written (`_extra`).

A handler gets an `Incoming` and returns an `Outgoing` (or an awaitable of one, only when it must wait),
`DROP` to cut the connection, a `Trickle` to send the body slowly, or a `Stream` of chunks (events).
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any, Final, cast

import httptools

from proxy.core.model.access import OUTSIDE_UI, UI_HEADERS, ours
from proxy.core.model.bodies import error_document
from proxy.core.model.exchange import Headers
from proxy.core.model.hosts import HostPolicy
from proxy.server.outgoing import NO_BODY_STATUSES as NO_BODY_STATUSES
from proxy.server.outgoing import Outgoing as Outgoing
from proxy.server.outgoing import framing, reason_phrase
from proxy.server.outgoing import json_answer as json_answer
from proxy.server.refusals import RequestRefused, target_refusal

log = logging.getLogger(__name__)

MAX_HEADER_BYTES = 64 * 1024
IDLE_SECONDS = 75.0  # keep-alive connections idle this long are closed (aiohttp's default too)
PARTIAL_SECONDS = 30.0  # a request body with no byte for this long is cut (a stalled upload)
HEAD_SECONDS = 30.0  # a request line and headers must be complete this long after their first byte
STREAM_END_S = 2.0  # at a stop, a stream not ended by itself after its last event is ended
MAX_CONNECTIONS = 1000  # open client connections; more are refused (503), below the usual 1024 files
MAX_PIPELINED = 64  # requests queued on one connection before reading pauses
SANDBOX_LINES: Final = "".join(f"\r\n{name}: {value}" for name, value in OUTSIDE_UI).encode("ascii")


@dataclass(slots=True)
class Incoming:
    """One request as received: method, raw target, header pairs (order, case, repeats kept), body bytes."""

    method: str
    target: str
    headers: Headers
    body: bytes
    http_version: str = "1.1"
    reached_at: str | None = None  # the local address the client connected to (for same-machine checks)
    reached_port: int | None = None  # and its port (the UI's cookie is named after it)
    for_ui: bool = False  # set by the door (`admin.answer_ours`) for every /_proxy/ path: not sandboxed

    def header(self, name: str) -> str | None:
        """The first value of a header, by case-insensitive name."""
        wanted = name.lower()
        for key, value in self.headers:
            if key.lower() == wanted:
                return value
        return None


@dataclass(frozen=True, slots=True)
class Trickle:
    """Send `answer` with its headers at once and its body in `pieces` spread over `seconds`."""

    answer: Outgoing
    seconds: float
    pieces: int = 10


@dataclass(frozen=True, slots=True)
class Stream:
    """An answer whose body is written chunked as `chunks` yields them (Server-Sent Events), until they
    end, the client goes away or the server stops; then the connection closes."""

    status: int
    headers: Headers
    chunks: AsyncIterator[bytes]


class Drop(Enum):
    """A handler's answer that closes the connection without a reply: its one member, `DROP`."""

    DROP = "drop"


DROP: Final = Drop.DROP
Reply = Outgoing | Trickle | Stream | Drop  # what a handler answers: mypy refuses anything else
Handler = Callable[[Incoming], Reply | Awaitable[Reply]]


@dataclass
class WireServer:
    """Serves `handler` on a port; `start` binds, `cleanup` stops gracefully and runs `on_cleanup`."""

    handler: Handler
    max_body: int = 50 * 1024 * 1024
    head_seconds: float = HEAD_SECONDS
    max_connections: int = MAX_CONNECTIONS
    hosts: HostPolicy = field(default_factory=HostPolicy)  # the Host names answered besides loopback
    has_ui: Callable[[], bool] = bool  # while true (a UI is on), answers but the UI's are sandboxed
    own_headers: dict[str, str] = field(default_factory=lambda: dict(UI_HEADERS))  # on the wire's own errors
    on_cleanup: list[Callable[[], Awaitable[None]]] = field(default_factory=list)
    on_stopping: list[Callable[[], None]] = field(default_factory=list)  # run first at a stop
    # run at a stop once every answer in flight is given, while streams (the UI's events) still run
    on_drained: list[Callable[[], Awaitable[None]]] = field(default_factory=list)
    bound: bool = field(default=False, init=False)
    address: str = field(default="", init=False)  # host:port bound, for requests without a Host header
    _server: asyncio.AbstractServer | None = field(default=None, init=False)
    _connections: set[_Connection] = field(default_factory=set, init=False)
    _sweeper: asyncio.Task[None] | None = field(default=None, init=False)

    async def start(self, host: str, port: int) -> int:
        """Bind and serve; returns the port bound (port 0 picks a free one)."""
        loop = asyncio.get_running_loop()
        self.hosts = replace(self.hosts, allowed=self.hosts.allowed | HostPolicy.of((), host).allowed)
        self._server = await loop.create_server(lambda: _Connection(self), host, port, reuse_address=True)
        self.bound = True
        self._sweeper = loop.create_task(self._sweep())
        bound_port = int(self._server.sockets[0].getsockname()[1])
        self.address = f"[{host}]:{bound_port}" if ":" in host else f"{host}:{bound_port}"
        return bound_port

    async def cleanup(self, timeout: float = 30.0) -> None:
        """Stop accepting, let answers in flight finish (up to `timeout`), close, run on_cleanup."""
        if self._server is not None:
            self._server.close()
            self._server = None
        for stopping in self.on_stopping:
            stopping()
        if self._sweeper is not None:
            self._sweeper.cancel()
            self._sweeper = None
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        for connection in list(self._connections):
            if not connection.streaming:
                connection.closing = True
            if not connection.busy:
                connection.close()
        await _until(lambda: not any(c.busy and not c.streaming for c in self._connections), deadline)
        # Every answer is given: what follows them (the UI's index and events) catches up, and each
        # stream ends by itself after its last event; one that does not is ended after STREAM_END_S.
        for callback in self.on_drained:
            await callback()
        self.on_drained.clear()
        await _until(
            lambda: not any(c.streaming for c in self._connections), min(deadline, loop.time() + STREAM_END_S)
        )
        for connection in list(self._connections):
            connection.closing = True
            connection.end_stream()  # an open stream would hold the stop for ever
        await _until(lambda: not any(c.busy for c in self._connections), deadline)
        for connection in list(self._connections):
            connection.close()
        # Closed is not sent: an answer still in a transport's buffer (a large export) is lost if the
        # process ends first, and the client gets a 200 cut short.
        await _until(lambda: not self._connections, deadline)
        for callback in self.on_cleanup:
            await callback()
        self.on_cleanup.clear()

    def error(self, status: int, detail: str) -> Outgoing:
        return json_answer(status, error_document(status, reason_phrase(status), detail), self.own_headers)

    async def _sweep(self) -> None:
        """Close connections idle too long, and requests that never finish arriving."""
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(1.0)
            now = loop.time()
            for connection in list(self._connections):
                idle = now - connection.last_activity
                started = connection.head_started
                if started is not None and now - started > self.head_seconds:  # slowloris: bytes trickle
                    detail = f"request line and headers not complete within {self.head_seconds:g} s"
                    connection.refuse(RequestRefused(408, detail))
                elif connection.partial and idle > PARTIAL_SECONDS:
                    connection.refuse(RequestRefused(408, "request not completed in time"))
                elif not connection.busy and not connection.partial and idle > IDLE_SECONDS:
                    connection.close()


async def _until(done: Callable[[], bool], deadline: float) -> None:
    """Wait until `done()` or the loop's clock passes `deadline`."""
    loop = asyncio.get_running_loop()
    while not done() and loop.time() < deadline:
        await asyncio.sleep(0.01)


class _Connection(asyncio.Protocol):
    """One client connection: parses requests, answers them in order, one at a time."""

    def __init__(self, server: WireServer) -> None:
        self.server = server
        self.loop = asyncio.get_running_loop()
        self.parser = httptools.HttpRequestParser(self)
        self.transport: asyncio.Transport | None = None
        self.queue: deque[tuple[Incoming, bool]] = deque()
        self.busy = False
        self.partial = False
        self.head_started: float | None = None  # when the head being read began (None: not in a head)
        self.closing = False
        self.last_activity = self.loop.time()
        self._writable: asyncio.Future[None] | None = None
        self._reading_paused = False
        self.reached: tuple[str | None, int | None] = (None, None)  # the local address and port reached
        self._next_chunk: asyncio.Future[bytes] | None = None  # a stream's chunk being waited for
        self.streaming = False  # answering with a stream (the UI's events), which ends by itself
        self._stream_ended = False  # `end_stream` ended it (not a cancelled task)
        self._reset()

    def _reset(self) -> None:
        self.url = b""
        self.header_pairs: list[tuple[str, str]] = []
        self.header_bytes = 0
        self.body_parts: list[bytes] = []
        self.body_size = 0
        self.name = b""

    # asyncio.Protocol

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's is not a subclass
        if len(self.server._connections) >= self.server.max_connections:
            log.warning(
                "refused a connection from %s: %d open already", self._peer(), len(self.server._connections)
            )
            detail = f"too many open connections (over {self.server.max_connections}); try again"
            self.transport.write(self.server.error(503, detail).wire(False, True))  # ours: UI_HEADERS
            self.transport.close()
            return
        self.server._connections.add(self)
        local = self.transport.get_extra_info("sockname")
        self.reached = (str(local[0]), int(local[1])) if isinstance(local, tuple) else (None, None)

    def connection_lost(self, exc: Exception | None) -> None:
        self.server._connections.discard(self)
        self.transport = None
        self.queue.clear()
        if self._writable is not None and not self._writable.done():
            self._writable.set_result(None)
        self.end_stream()

    def pause_writing(self) -> None:
        if self._writable is None or self._writable.done():
            self._writable = self.loop.create_future()

    def resume_writing(self) -> None:
        if self._writable is not None and not self._writable.done():
            self._writable.set_result(None)

    def data_received(self, data: bytes) -> None:
        self.last_activity = self.loop.time()
        if self.closing:
            return
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserUpgrade:
            self.closing = True  # the request before the upgrade is answered, then the connection ends
        except httptools.HttpParserError as error:
            # A callback's own refusal arrives wrapped (HttpParserCallbackError, the refusal as context).
            refused = error.__context__
            if isinstance(refused, RequestRefused):
                self.refuse(refused)
            else:
                self.refuse(RequestRefused(400, f"malformed request: {error}"))

    # httptools callbacks

    def on_message_begin(self) -> None:
        self.partial = True
        self.head_started = self.loop.time()
        self._reset()

    def on_url(self, url: bytes) -> None:
        self.url += url
        self._count(len(url))

    def on_header(self, name: bytes, value: bytes) -> None:
        self._count(len(name) + len(value))
        self.header_pairs.append((name.decode("latin-1"), value.decode("latin-1")))

    def on_headers_complete(self) -> None:
        self.head_started = None
        if (refused := target_refusal(self.parser.get_method(), self.url)) is not None:
            raise refused
        hosts, pairs = self.server.hosts, tuple(self.header_pairs)  # first: a foreign Host is a web page's
        foreign = hosts.refusal(pairs, self.reached[0]) or hosts.page_refusal(pairs, self.reached[0])
        if foreign is not None:  # our own paths refuse a foreign Host as the access decision does: 403
            mine = foreign.status == 421 and ours(self.url.partition(b"?")[0].decode("latin-1"))
            raise RequestRefused(403 if mine else foreign.status, foreign.detail)
        for name, value in self.header_pairs:
            lowered = name.lower()
            if lowered == "content-length" and value.strip().isdigit():
                if int(value) > self.server.max_body:
                    raise RequestRefused(413, f"request body over {self.server.max_body} bytes")
            elif lowered == "expect" and value.lower() == "100-continue" and self.transport is not None:
                self.transport.write(b"HTTP/1.1 100 Continue\r\n\r\n")

    def on_body(self, body: bytes) -> None:
        self.body_size += len(body)
        if self.body_size > self.server.max_body:
            raise RequestRefused(413, f"request body over {self.server.max_body} bytes")
        self.body_parts.append(body)

    def on_message_complete(self) -> None:
        self.partial = False
        incoming = Incoming(
            self.parser.get_method().decode("ascii", "replace"),
            self.url.decode("latin-1"),
            tuple(self.header_pairs),
            b"".join(self.body_parts),
            self.parser.get_http_version(),
            *self.reached,
        )
        self.queue.append((incoming, not self.parser.should_keep_alive()))
        self._reset()
        if len(self.queue) > MAX_PIPELINED and self.transport is not None and not self._reading_paused:
            self.transport.pause_reading()
            self._reading_paused = True
        if not self.busy:
            self._answer_queued()

    def _count(self, size: int) -> None:
        self.header_bytes += size
        if self.header_bytes > MAX_HEADER_BYTES:
            raise RequestRefused(431, f"request line and headers over {MAX_HEADER_BYTES} bytes")

    # answering

    def _answer_queued(self) -> None:
        """Answer queued requests in order; synchronous answers go out at once, without a task."""
        while self.queue and self.transport is not None:
            if self._writable is not None and not self._writable.done():
                self._wait(self._writable, None)
                return
            incoming, closing = self.queue.popleft()
            try:
                reply = self.server.handler(incoming)
            except Exception:  # the query is left out of the log: it may carry a secret
                log.exception("answering %s %s", incoming.method, incoming.target.partition("?")[0])
                reply = self.server.error(500, "the proxy failed to answer; see its log")
            if isinstance(reply, Outgoing):
                self._send(reply, incoming, closing)
            else:
                self._wait(reply, (incoming, closing))
                return
        if self._reading_paused and self.transport is not None:
            self.transport.resume_reading()
            self._reading_paused = False

    def _wait(self, pending: Any, request: tuple[Incoming, bool] | None) -> None:
        self.busy = True
        self.loop.create_task(self._finish(pending, request))

    async def _finish(self, pending: Any, request: tuple[Incoming, bool] | None) -> None:
        try:
            if request is None:
                await pending  # the transport's buffer drained
            else:
                incoming, closing = request
                try:
                    reply = await pending if isinstance(pending, Awaitable) else pending
                except Exception:
                    log.exception("answering %s %s", incoming.method, incoming.target.partition("?")[0])
                    reply = self.server.error(500, "the proxy failed to answer; see its log")
                if isinstance(reply, Trickle):
                    await self._trickle(reply, incoming, closing)
                elif isinstance(reply, Stream):
                    await self._stream(reply, incoming)
                elif isinstance(reply, Outgoing):
                    self._send(reply, incoming, closing)
                else:
                    self.abort()
        finally:
            self.busy = False
        self._answer_queued()

    def _send(self, reply: Outgoing, incoming: Incoming, closing: bool) -> None:
        if self.transport is None:
            return
        closing = closing or self.closing
        self.transport.write(reply.wire(incoming.method == "HEAD", closing, self._extra(incoming)))
        self.last_activity = self.loop.time()
        if closing:
            self.close()

    async def _trickle(self, trickle: Trickle, incoming: Incoming, closing: bool) -> None:
        answer = trickle.answer
        closing = closing or self.closing
        if self.transport is None:
            return
        self.transport.write(answer.wire(True, closing, self._extra(incoming)))
        if incoming.method != "HEAD":
            body = answer.body
            step = max(1, -(-len(body) // trickle.pieces))
            pieces = [body[start : start + step] for start in range(0, len(body), step)]
            for piece in pieces:
                await asyncio.sleep(trickle.seconds / len(pieces))
                if self.transport is None:
                    return
                self.transport.write(piece)
        if closing:
            self.close()

    async def _stream(self, stream: Stream, incoming: Incoming) -> None:
        head = [f"HTTP/1.1 {stream.status} {reason_phrase(stream.status)}"]
        head += [f"{name}: {value}" for name, value in stream.headers if not framing(name)]
        head += ["Transfer-Encoding: chunked", "Connection: close"]
        body = incoming.method != "HEAD"
        self.streaming = True
        try:
            if self.transport is not None:
                written = "\r\n".join(head).encode("latin-1", "replace") + self._extra(incoming)
                self.transport.write(written + b"\r\n\r\n")
            while body and self.transport is not None and not self.closing:
                self._next_chunk = asyncio.ensure_future(anext(stream.chunks))
                try:
                    chunk = await self._next_chunk
                except StopAsyncIteration:
                    break
                except asyncio.CancelledError:
                    if self._stream_ended:  # end_stream: the stream ends, properly
                        break
                    self.abort()  # this task is cancelled (the process dies): cut, never a clean end
                    raise
                if chunk and self.transport is not None:
                    self.transport.write(b"%x\r\n%b\r\n" % (len(chunk), chunk))
                if self._writable is not None and not self._writable.done():
                    await self._writable  # a slow reader: wait rather than buffer
            if body and self.transport is not None:
                self.transport.write(b"0\r\n\r\n")
        finally:
            self._next_chunk, self.closing, self.streaming = None, True, False
            if hasattr(stream.chunks, "aclose"):
                await stream.chunks.aclose()
            self.close()

    def _extra(self, incoming: Incoming) -> bytes:
        """`OUTSIDE_UI`'s lines while the server has a UI, on every answer that is not ours (ours, every
        /_proxy/ path and the wire's own refusals, carry `UI_HEADERS`); added on the way out, so never
        recorded nor checked."""
        if incoming.for_ui or not self.server.has_ui():
            return b""
        return SANDBOX_LINES

    def end_stream(self) -> None:
        """Stop waiting for a stream's next chunk: the server stops, or the client went away."""
        if self._next_chunk is not None and not self._next_chunk.done():
            self._stream_ended = True
            self._next_chunk.cancel()

    def refuse(self, refused: RequestRefused) -> None:
        """Answer a request we will not serve with its error status, then close the connection."""
        log.warning("refused a request from %s: %s", self._peer(), refused)
        self.closing = True
        self.queue.clear()
        if self.transport is not None and not self.busy:
            self.transport.write(self.server.error(refused.status, str(refused)).wire(False, True))
            self.close()

    def _peer(self) -> str:
        peer = self.transport.get_extra_info("peername") if self.transport is not None else None
        return f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) else "a client"

    def close(self) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.close()

    def abort(self) -> None:
        if self.transport is not None:
            self.transport.abort()
