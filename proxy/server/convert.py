"""Converting between aiohttp messages and core values, at the adapter boundary only."""

from __future__ import annotations

import json
from typing import Any

from aiohttp import web
from multidict import CIMultiDict

from proxy.core.bodies import body_from_bytes
from proxy.core.exchange import Headers, Request, Response
from proxy.core.links import origin_of
from proxy.server.wire import Outgoing

ADMIN_PREFIX = "/_proxy/"


def raw_headers(pairs: tuple[tuple[bytes, bytes], ...]) -> Headers:
    """Header pairs exactly as they came over the wire (order, case, repeats)."""
    return tuple((name.decode("latin-1"), value.decode("latin-1")) for name, value in pairs)


async def read_request(request: web.Request) -> tuple[Request, bytes]:
    """The core request and the body bytes as received (still content-encoded, if they were)."""
    raw_body = await request.read()
    headers = raw_headers(request.raw_headers)
    path, _, query = request.raw_path.partition("?")
    core = Request(
        method=request.method,
        path=path,
        query=query,
        headers=headers,
        body=body_from_bytes(raw_body, headers),
    )
    return core, raw_body


def core_response(answer: Outgoing) -> Response:
    """The core value of an answer we built (replay's), to check what a client was really served."""
    return Response(
        status=answer.status,
        headers=answer.headers,
        body=body_from_bytes(answer.body, answer.headers),
        reason=answer.reason,
    )


def own_origin(request: web.Request) -> str:
    """The origin the client used to reach us, for rewriting links back to ourselves."""
    return origin_of(f"{request.scheme}://{request.host}")


def multidict(headers: Headers) -> CIMultiDict[str]:
    """Core headers as the multidict aiohttp takes."""
    return CIMultiDict(headers)


def json_response(status: int, document: Any, headers: dict[str, str] | None = None) -> web.Response:
    """A JSON answer of our own (admin endpoints, errors in the API's shape)."""
    return web.Response(
        status=status,
        body=json.dumps(document, ensure_ascii=False).encode("utf-8"),
        content_type="application/json",
        headers=headers,
    )


def web_response(answer: Outgoing) -> web.Response:
    """An answer built for the wire server, as aiohttp sends it (record's replayed answers)."""
    return web.Response(
        status=answer.status, reason=answer.reason, headers=multidict(answer.headers), body=answer.body
    )
