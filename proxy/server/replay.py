"""The replay server: cassettes served offline as a fake backend."""

from __future__ import annotations

from aiohttp import web

from proxy.core.exchange import Request
from proxy.core.replay_state import ReplayBook
from proxy.server.answers import AnswerCache, no_match_response, serve_answer
from proxy.server.convert import (
    ADMIN_PREFIX,
    error_document,
    json_response,
    own_origin,
    read_request,
)
from proxy.server.serving import REQUEST_BODIES_AS_SENT

MAX_REQUEST_BYTES = 50 * 1024 * 1024


def no_match(core: Request, book: ReplayBook) -> web.Response:
    """The 404 answer for a request no recording matches (secrets in it shown redacted)."""
    prepared = book.prepare(core)
    return no_match_response(prepared.method, prepared.target, book.closest(core))


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
        answer = book.answer(core)
        if answer is None:
            return no_match(core, book)
        return serve_answer(answer, cache, own_origin(request))

    app.router.add_get("/_proxy/health", health)
    app.router.add_post("/_proxy/reset", reset)
    app.router.add_route("*", "/{tail:.*}", handle)
    return app
