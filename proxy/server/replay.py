"""The replay server: cassettes served offline as a fake backend.

Requests are answered by the book of the cassettes given on the command line, or, with an
`X-Commerce-Cassette: NAME` header, by that one cassette from the cassette folder (its own sequences and
simulated state). Usage, latency and faults wrap around the answer. With a live checker, each answer
served (recorded or simulated) is checked with the request that got it.
"""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from aiohttp import web

from proxy.core.conformance import LiveChecker
from proxy.core.exchange import Exchange, Request
from proxy.core.faults import FAULT_TITLES, Fault, FaultPlan, Latency
from proxy.core.redaction import redact_exchange
from proxy.core.replay_state import Answer, Miss, ReplayBook
from proxy.core.simulation.answers import Simulated
from proxy.core.usage import usage_report, usage_summary
from proxy.errors import CommerceProxyError
from proxy.server.answers import (
    NO_MATCH_HEADER,
    AnswerCache,
    no_match_response,
    serve_answer,
    serve_simulated,
)
from proxy.server.convert import (
    ADMIN_PREFIX,
    core_response,
    error_document,
    json_response,
    own_origin,
    read_request,
)
from proxy.server.serving import LISTENING, REQUEST_BODIES_AS_SENT, Listening
from proxy.store.cassette_names import resolve_cassette_name
from proxy.store.files import load_cassette, write_atomically

log = logging.getLogger(__name__)
MAX_REQUEST_BYTES = 50 * 1024 * 1024
CASSETTE_HEADER = "X-Commerce-Cassette"
SLOW_CHUNKS = 10


@dataclass(frozen=True, slots=True)
class ReplayOptions:
    """What `replay` is told besides its cassettes: the header's folder, timing, faults, usage file."""

    folder: Path | None = None
    latency: Latency = field(default_factory=Latency)
    faults: tuple[Fault, ...] = ()
    fault_seed: int = 0
    slow_body_ms: float = 3000.0
    usage_report: Path | None = None


class Library:
    """The default book, and one book per cassette a request names by header, loaded on first use."""

    def __init__(self, book: ReplayBook, options: ReplayOptions) -> None:
        self.default = book
        self.options = options
        self.chosen: dict[Path, ReplayBook] = {}
        self._loading = asyncio.Lock()

    async def book_for(self, name: str | None) -> ReplayBook:
        """The book that answers a request with this header value (None: no header)."""
        if name is None:
            return self.default
        if self.options.folder is None:
            raise CommerceProxyError(
                f"{CASSETTE_HEADER} needs a cassette folder: start replay with --cassette-dir DIR "
                "(or a folder as --cassette)"
            )
        path = resolve_cassette_name(self.options.folder, name)
        async with self._loading:
            book = self.chosen.get(path)
            if book is None:
                loaded = await asyncio.to_thread(load_cassette, path)
                for note in loaded.notes:
                    log.warning("%s", note)
                book = ReplayBook.build(
                    [
                        (
                            str(self.options.folder / path.relative_to(self.options.folder.resolve())),
                            loaded.cassette,
                        )
                    ],
                    self.default.policy,
                    self.default.redaction,
                    simulate=self.default.simulate,
                )
                book.label = name
                self.chosen[path] = book
        return book

    def books(self) -> list[ReplayBook]:
        """Every book in use, the default first."""
        return [self.default, *self.chosen.values()]

    def reset(self) -> None:
        """Rewind every sequence and simulated state."""
        for book in self.books():
            book.reset()


def no_match(core: Request, book: ReplayBook, miss: Miss) -> web.Response:
    """The 404 answer for a request nothing answers (secrets in it shown redacted)."""
    prepared = book.prepare(core)
    return no_match_response(prepared.method, prepared.target, miss.near, miss.reason)


def respond(
    book: ReplayBook, cache: AnswerCache, core: Request, origin: str
) -> tuple[web.Response, float | None]:
    """The recorded or simulated answer (or the 404 of a miss), and the recorded upstream time."""
    result = book.respond(core, now_stamp())
    if isinstance(result, Answer):
        return serve_answer(result, cache, origin), result.recording.exchange.duration_ms
    if isinstance(result, Simulated):
        if result.template is None:  # a refusal: no links to move, no recorded time to copy
            return serve_simulated(result, None, origin), None
        template = book.recordings[result.template]
        return serve_simulated(result, template.upstream, origin), template.exchange.duration_ms
    return no_match(core, book, result), None


def now_stamp() -> str:
    """The current time as the service writes it (ISO 8601, microseconds, Z)."""
    return datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def admin_not_found(request: web.Request) -> web.Response:
    """Admin paths are ours: an unknown one is a 404, never forwarded or recorded."""
    return json_response(
        404, error_document(404, "Not Found", f"no admin endpoint {request.method} {request.path}")
    )


def fault_response(fault: Fault) -> web.Response:
    """429/500/503 in the API's error shape, marked as injected."""
    status = fault.status or 500
    headers = {"X-Commerce-Proxy": "fault"}
    if status == 429:
        headers["Retry-After"] = "1"
    detail = f"fault injected by commerce-proxy (--fault {fault.text})"
    return json_response(status, error_document(status, FAULT_TITLES[status], detail), headers=headers)


async def drop_connection(request: web.Request) -> web.StreamResponse:
    """Close the connection without an answer, as a crashed server or a cut network does."""
    transport = request.transport
    if transport is not None:
        transport.abort()
    raise asyncio.CancelledError  # aiohttp ends the handler quietly on a closed connection


async def slow_body(request: web.Request, answer: web.Response, seconds: float) -> web.StreamResponse:
    """The same answer, its body trickled out in pieces over `seconds` (headers go out at once)."""
    body = answer.body if isinstance(answer.body, bytes) else b""
    stream = web.StreamResponse(status=answer.status, reason=answer.reason, headers=answer.headers)
    stream.content_length = len(body)
    await stream.prepare(request)
    step = max(1, -(-len(body) // SLOW_CHUNKS))
    pieces = [body[start : start + step] for start in range(0, len(body), step)] or [b""]
    for piece in pieces:
        await asyncio.sleep(seconds / len(pieces))
        await stream.write(piece)
    await stream.write_eof()
    return stream


def create_replay_app(
    book: ReplayBook, options: ReplayOptions | None = None, live: LiveChecker | None = None
) -> web.Application:
    """An aiohttp app answering every request from the book (or the cassette a header names)."""
    options = options or ReplayOptions()
    app = web.Application(client_max_size=MAX_REQUEST_BYTES)
    library = Library(book, options)
    plan = FaultPlan(options.faults, options.fault_seed)
    cache = AnswerCache()
    app[REQUEST_BODIES_AS_SENT] = True  # bodies are decoded for matching by the core, as recorded
    app[LISTENING] = Listening()

    async def health(request: web.Request) -> web.Response:
        return json_response(200, {"status": "ok", "mode": "replay", "exchanges": len(book.recordings)})

    async def reset(request: web.Request) -> web.Response:
        library.reset()
        plan.reset()
        return json_response(200, {"status": "ok", "rewound": True})

    async def usage(request: web.Request) -> web.Response:
        return json_response(200, usage_report(library.books()))

    async def findings(request: web.Request) -> web.Response:
        if live is None:
            return json_response(
                404, error_document(404, "Not Found", "replay is not checking: start it with --check")
            )
        return json_response(200, live.log.to_json())

    checked = 0

    def check(core: Request, answer: web.Response, chosen: ReplayBook, recorded_at: str) -> None:
        """Check the answer served (not a miss: that 404 is ours, not the API's) with its request."""
        nonlocal checked
        if live is None or NO_MATCH_HEADER in answer.headers:
            return
        exchange = redact_exchange(Exchange(core, core_response(answer), recorded_at), chosen.redaction)
        live.check(exchange, checked)
        checked += 1

    async def handle(request: web.Request) -> web.StreamResponse:
        if request.path.startswith(ADMIN_PREFIX):
            return admin_not_found(request)
        core, _ = await read_request(request)
        fault = plan.decide(core.method, core.target, core.path) if plan.faults else None
        if fault is not None:
            log.info("fault %s: %s %s", fault.text, core.method, core.target)
            if fault.kind == "drop":
                return await drop_connection(request)
            if fault.status is not None:
                return fault_response(fault)
        try:
            chosen = await library.book_for(request.headers.get(CASSETTE_HEADER))
        except CommerceProxyError as error:
            log.warning("%s %s: %s", core.method, core.target, error)
            document = error_document(400, f"Unusable {CASSETTE_HEADER}", str(error))
            return json_response(400, document, headers={NO_MATCH_HEADER: "bad-cassette"})
        answer, recorded_ms = respond(chosen, cache, core, own_origin(request))
        check(core, answer, chosen, now_stamp())
        delay = options.latency.seconds(recorded_ms)
        if delay:
            await asyncio.sleep(delay)
        if fault is not None and fault.kind == "slow":
            return await slow_body(request, answer, options.slow_body_ms / 1000)
        return answer

    async def report_usage(app: web.Application) -> None:
        if not app[LISTENING].bound:
            return  # never served (the port was taken): nothing to report, no file to write
        report = usage_report(library.books())
        for line in usage_summary(report):
            log.info("%s", line)
        if options.usage_report is not None:
            try:
                write_atomically(
                    options.usage_report, json.dumps(report, indent=2) + "\n", "the usage report"
                )
            except CommerceProxyError as error:
                log.error("%s", error)
            else:
                log.info("wrote the usage report to %s", options.usage_report)

    app.on_cleanup.append(report_usage)
    app.router.add_get("/_proxy/health", health)
    app.router.add_post("/_proxy/reset", reset)
    app.router.add_get("/_proxy/usage", usage)
    app.router.add_get("/_proxy/findings", findings)
    app.router.add_route("*", "/{tail:.*}", handle)
    return app
