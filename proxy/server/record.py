"""The recording proxy: forwards to the upstream, answers the client, journals every exchange.

The client gets the upstream's answer unchanged, except hop-by-hop headers and absolute links to the
upstream's origin, which point back at the proxy. The cassette keeps what the upstream really sent,
redacted before anything is written.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator

import aiohttp
from aiohttp import web
from yarl import URL

from proxy.core.bodies import body_from_bytes, dump_json
from proxy.core.exchange import Exchange, Headers, Response, without_headers
from proxy.core.hop_by_hop import end_to_end
from proxy.core.links import OriginRewriter
from proxy.server.answers import AnswerCache, serve_answer
from proxy.server.convert import (
    ADMIN_PREFIX,
    json_response,
    multidict,
    own_origin,
    raw_headers,
    read_request,
    web_response,
)
from proxy.server.replay import MAX_REQUEST_BYTES, admin_not_found, now_stamp
from proxy.server.serving import REQUEST_BODIES_AS_SENT
from proxy.server.wire import error_document
from proxy.store.recording import RecordingSession
from proxy.store.recording import RecordSettings as RecordSettings

log = logging.getLogger(__name__)

# aiohttp sets these itself for the request it sends upstream.
NOT_FORWARDED = frozenset({"host", "content-length"})


class UpstreamFailure(Exception):
    """The upstream could not give a complete answer; carries the status the client gets."""

    def __init__(self, status: int, title: str, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.title = title
        self.detail = detail


RECORDING = web.AppKey("recording", RecordingSession)
SESSION = web.AppKey("session", aiohttp.ClientSession)


def create_record_app(settings: RecordSettings) -> web.Application:
    """An aiohttp app that forwards, records and answers; the cassette is written at cleanup."""
    recording = RecordingSession(settings)
    cache = AnswerCache()
    # A base path in --upstream (a gateway's /commerce) is kept: requests go below it.
    upstream_base = str(URL(settings.upstream).with_query(None).with_fragment(None)).rstrip("/")
    app = web.Application(client_max_size=MAX_REQUEST_BYTES)
    app[RECORDING] = recording
    app[REQUEST_BODIES_AS_SENT] = True

    async def session_context(app: web.Application) -> AsyncIterator[None]:
        timeout = aiohttp.ClientTimeout(total=settings.upstream_timeout)
        connector = aiohttp.TCPConnector(limit=256)
        async with aiohttp.ClientSession(
            connector=connector,
            timeout=timeout,
            auto_decompress=False,
            cookie_jar=aiohttp.DummyCookieJar(),
        ) as session:
            app[SESSION] = session
            yield
        cassette = recording.finish()
        if settings.cassette is None:
            totals = recording.findings.to_json()["totals"]
            log.info(
                "checked %d exchanges: %s",
                recording.findings.exchanges,
                ", ".join(f"{rule} {item['count']}x" for rule, item in totals.items()) or "no findings",
            )
        elif cassette is None:
            log.info("nothing new recorded; %s left as it was", settings.cassette)
        else:
            log.info(
                "wrote %s: %d exchanges (%d new, %d answered from the cassette)",
                settings.cassette,
                len(cassette.exchanges),
                len(recording.recorded),
                recording.replayed,
            )

    async def health(request: web.Request) -> web.Response:
        mode = settings.mode if settings.cassette is not None else "spy"
        return json_response(200, {"status": "ok", "mode": mode, "recorded": len(recording.recorded)})

    async def findings(request: web.Request) -> web.Response:
        return json_response(200, recording.findings.to_json())

    rewriters: dict[str, OriginRewriter] = {}  # one per origin clients use to reach us

    def rewriter_to(origin: str) -> OriginRewriter:
        if origin not in rewriters:
            rewriters[origin] = OriginRewriter(upstream_base, origin)
        return rewriters[origin]

    async def handle(request: web.Request) -> web.StreamResponse:
        if request.path.startswith(ADMIN_PREFIX):
            return web_response(admin_not_found(request.method, request.path))
        sequence = recording.arrival()
        recorded_at = now_stamp()
        core, raw_body = await read_request(request)
        origin = own_origin(request)
        answer = recording.book.answer(core)
        if answer is not None:
            recording.replayed += 1
            return web_response(serve_answer(answer, cache, origin))
        started = time.perf_counter()
        try:
            status, reason, headers, body = await _forward(
                app[SESSION], upstream_base, request, raw_body, settings
            )
        except UpstreamFailure as failure:
            log.warning("%s %s: %s", core.method, core.target, failure.detail)
            return json_response(
                failure.status, error_document(failure.status, failure.title, failure.detail)
            )
        duration_ms = round((time.perf_counter() - started) * 1000, 3)
        response = Response(
            status=status, headers=headers, body=body_from_bytes(body, headers), reason=reason
        )
        recording.keep(sequence, Exchange(core, response, recorded_at, duration_ms))
        return _to_client(response, body, rewriter_to(origin))

    app.cleanup_ctx.append(session_context)
    app.router.add_get("/_proxy/health", health)
    app.router.add_get("/_proxy/findings", findings)
    app.router.add_route("*", "/{tail:.*}", handle)
    return app


async def _forward(
    session: aiohttp.ClientSession,
    upstream_base: str,
    request: web.Request,
    raw_body: bytes,
    settings: RecordSettings,
) -> tuple[int, str | None, Headers, bytes]:
    """Send the request upstream with its raw path and query unchanged; read the whole answer."""
    url = URL(upstream_base + request.raw_path, encoded=True)
    headers = end_to_end(raw_headers(request.raw_headers), NOT_FORWARDED)
    sent_names = {name.lower() for name, _ in headers}
    skip = {name for name in ("User-Agent", "Accept", "Accept-Encoding") if name.lower() not in sent_names}
    try:
        async with session.request(
            request.method,
            url,
            headers=multidict(headers),
            data=raw_body if raw_body else None,
            allow_redirects=False,
            skip_auto_headers=skip,
        ) as upstream:
            body = await _read_limited(upstream, settings.max_body_bytes)
            return upstream.status, upstream.reason, raw_headers(upstream.raw_headers), body
    except TimeoutError:
        raise UpstreamFailure(
            504,
            "Gateway Timeout",
            f"upstream {upstream_base} did not answer within {settings.upstream_timeout:g} s",
        ) from None
    except aiohttp.ClientConnectorError as error:
        raise UpstreamFailure(
            502,
            "Bad Gateway",
            f"cannot connect to upstream {upstream_base}: {error.os_error.strerror or error}",
        ) from None
    except aiohttp.ClientError as error:
        raise UpstreamFailure(
            502,
            "Bad Gateway",
            f"upstream {upstream_base} failed mid-answer: {type(error).__name__}: {error}",
        ) from None


async def _read_limited(upstream: aiohttp.ClientResponse, limit: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    async for chunk in upstream.content.iter_any():
        size += len(chunk)
        if size > limit:
            raise UpstreamFailure(
                502,
                "Bad Gateway",
                f"upstream answer is larger than --max-body-bytes ({limit} bytes)",
            )
        chunks.append(chunk)
    return b"".join(chunks)


def _to_client(response: Response, raw_body: bytes, rewriter: OriginRewriter) -> web.Response:
    """The upstream's answer for the client: the same bytes unless links must point back at us."""
    headers = end_to_end(response.headers, frozenset({"content-length"}))
    body = raw_body
    if rewriter.needed:
        headers = rewriter.headers(headers)
        document = response.body.value
        # Compressed bodies cannot be searched as bytes; plain ones usually need no walk at all.
        if response.body.kind == "json" and (response.body.decoded_from or rewriter.mentions_old(raw_body)):
            moved = rewriter.json(document)
            if moved is not document:
                body = dump_json(moved)
                headers = without_headers(headers, ["content-encoding"])
    return web.Response(status=response.status, reason=response.reason, headers=multidict(headers), body=body)
