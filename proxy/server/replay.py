"""The replay server: cassettes served offline as a fake backend."""

from __future__ import annotations

from datetime import UTC, datetime

from aiohttp import web

from proxy.core.exchange import Request
from proxy.core.replay_state import Answer, Miss, ReplayBook
from proxy.core.simulation.answers import Simulated
from proxy.server.answers import AnswerCache, no_match_response, serve_answer, serve_simulated
from proxy.server.convert import (
    ADMIN_PREFIX,
    error_document,
    json_response,
    own_origin,
    read_request,
)
from proxy.server.serving import REQUEST_BODIES_AS_SENT

MAX_REQUEST_BYTES = 50 * 1024 * 1024


def no_match(core: Request, book: ReplayBook, miss: Miss | None = None) -> web.Response:
    """The 404 answer for a request no recording matches (secrets in it shown redacted)."""
    prepared = book.prepare(core)
    miss = miss or book.missed(core, None)
    return no_match_response(prepared.method, prepared.target, miss.near, miss.reason)


def respond(book: ReplayBook, cache: AnswerCache, core: Request, origin: str) -> web.Response:
    """The recorded or simulated answer to a request, or the 404 of a miss."""
    result = book.respond(core, now_stamp())
    if isinstance(result, Answer):
        return serve_answer(result, cache, origin)
    if isinstance(result, Simulated):
        upstream = book.recordings[result.template].upstream if result.template is not None else None
        return serve_simulated(result, upstream or book.upstream(), origin)
    return no_match(core, book, result)


def now_stamp() -> str:
    """The current time as the service writes it (ISO 8601, microseconds, Z)."""
    return datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def admin_not_found(request: web.Request) -> web.Response:
    """Admin paths are ours: an unknown one is a 404, never forwarded or recorded."""
    return json_response(
        404, error_document(404, "Not Found", f"no admin endpoint {request.method} {request.path}")
    )


def create_replay_app(book: ReplayBook) -> web.Application:
    """An aiohttp app answering every request from the book."""
    app = web.Application(client_max_size=MAX_REQUEST_BYTES)
    cache = AnswerCache()
    app[REQUEST_BODIES_AS_SENT] = True  # bodies are decoded for matching by the core, as recorded

    async def health(request: web.Request) -> web.Response:
        return json_response(200, {"status": "ok", "mode": "replay", "exchanges": len(book.recordings)})

    async def reset(request: web.Request) -> web.Response:
        book.reset()
        return json_response(200, {"status": "ok", "rewound": True})

    async def handle(request: web.Request) -> web.Response:
        if request.path.startswith(ADMIN_PREFIX):
            return admin_not_found(request)
        core, _ = await read_request(request)
        return respond(book, cache, core, own_origin(request))

    app.router.add_get("/_proxy/health", health)
    app.router.add_post("/_proxy/reset", reset)
    app.router.add_route("*", "/{tail:.*}", handle)
    return app
