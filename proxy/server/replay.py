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
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path

from proxy.app.replay_setup import ReplayOptions
from proxy.core.model.bodies import error_document
from proxy.core.model.exchange import Exchange, Request
from proxy.core.model.links import origin_of
from proxy.core.redaction.redact import redact_exchange
from proxy.core.replay.book import Answer, Miss, ReplayBook
from proxy.core.replay.faults import FAULT_TITLES, Fault, FaultPlan
from proxy.core.replay.simulation.answers import Simulated
from proxy.core.replay.usage import usage_report, usage_summary
from proxy.core.rules.engine import LiveChecker
from proxy.errors import CommerceProxyError
from proxy.server.answers import (
    NO_MATCH_HEADER,
    AnswerCache,
    no_match_response,
    serve_answer,
    serve_simulated,
)
from proxy.server.convert import ADMIN_PREFIX, core_request, core_response
from proxy.server.wire import (
    DROP,
    Incoming,
    Outgoing,
    Reply,
    Trickle,
    WireServer,
    json_answer,
)
from proxy.store.cassette_names import resolve_cassette_name
from proxy.store.files import load_cassette
from proxy.store.saving import write_atomically

log = logging.getLogger(__name__)
MAX_REQUEST_BYTES = 50 * 1024 * 1024
CASSETTE_HEADER = "X-Commerce-Cassette"
SLOW_CHUNKS = 10


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


def no_match(core: Request, book: ReplayBook, miss: Miss) -> Outgoing:
    """The 404 answer for a request nothing answers (secrets in it shown redacted)."""
    prepared = book.prepare(core)
    return no_match_response(prepared.method, prepared.target, miss.near, miss.reason)


def respond(
    book: ReplayBook, cache: AnswerCache, core: Request, origin: str
) -> tuple[Outgoing, float | None]:
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


def admin_not_found(method: str, path: str) -> Outgoing:
    """Admin paths are ours: an unknown one is a 404, never forwarded or recorded."""
    return json_answer(404, error_document(404, "Not Found", f"no admin endpoint {method} {path}"))


AdminRoutes = dict[str, tuple[str, Callable[[], Outgoing | Awaitable[Outgoing]]]]


def answer_admin(routes: AdminRoutes, method: str, path: str) -> Outgoing | Awaitable[Outgoing]:
    """An admin endpoint's answer from `routes` (path: method, builder); 404 or 405 otherwise."""
    known = routes.get(path)
    if known is None:
        return admin_not_found(method, path)
    allowed, build = known
    if method != allowed and not (allowed == "GET" and method == "HEAD"):
        document = error_document(405, "Method Not Allowed", f"{path} takes {allowed}")
        return json_answer(405, document, headers={"Allow": allowed})
    return build()


def fault_response(fault: Fault) -> Outgoing:
    """429/500/503 in the API's error shape, marked as injected."""
    status = fault.status or 500
    headers = {"X-Commerce-Proxy": "fault"}
    if status == 429:
        headers["Retry-After"] = "1"
    detail = f"fault injected by commerce-proxy (--fault {fault.text})"
    return json_answer(status, error_document(status, FAULT_TITLES[status], detail), headers=headers)


async def _after(seconds: float, reply: Reply) -> Reply:
    await asyncio.sleep(seconds)
    return reply


def create_replay_app(
    book: ReplayBook, options: ReplayOptions | None = None, live: LiveChecker | None = None
) -> WireServer:
    """A server answering every request from the book (or the cassette a header names).

    The common request, a recorded answer with no faults or latency, is answered synchronously with
    bytes encoded once per recording (AnswerCache): one index lookup and one write.
    """
    options = options or ReplayOptions()
    library = Library(book, options)
    plan = FaultPlan(options.faults, options.fault_seed)
    cache = AnswerCache()
    checked = 0

    def health() -> Outgoing:
        return json_answer(200, {"status": "ok", "mode": "replay", "exchanges": len(book.recordings)})

    def reset() -> Outgoing:
        library.reset()
        plan.reset()
        return json_answer(200, {"status": "ok", "rewound": True})

    def usage() -> Outgoing:
        return json_answer(200, usage_report(library.books()))

    def findings() -> Outgoing:
        if live is None:
            return json_answer(
                404, error_document(404, "Not Found", "replay is not checking: start it with --check")
            )
        return json_answer(200, live.log.to_json())

    admin: AdminRoutes = {
        "/_proxy/health": ("GET", health),
        "/_proxy/reset": ("POST", reset),
        "/_proxy/usage": ("GET", usage),
        "/_proxy/findings": ("GET", findings),
    }

    def check(core: Request, answer: Outgoing, chosen: ReplayBook) -> None:
        """Check the answer served (not a miss: that 404 is ours, not the API's) with its request."""
        nonlocal checked
        if live is None or any(name == NO_MATCH_HEADER for name, _ in answer.headers):
            return
        exchange = Exchange(core, core_response(answer), now_stamp())
        live.check(redact_exchange(exchange, chosen.redaction), checked)
        checked += 1

    def serve(
        chosen: ReplayBook, core: Request, origin: str, fault: Fault | None
    ) -> Reply | Awaitable[Reply]:
        answer, recorded_ms = respond(chosen, cache, core, origin)
        check(core, answer, chosen)
        reply: Reply = answer
        if fault is not None and fault.kind == "slow":
            reply = Trickle(answer, options.slow_body_ms / 1000, SLOW_CHUNKS)
        delay = options.latency.seconds(recorded_ms)
        return _after(delay, reply) if delay else reply

    async def serve_named(name: str, core: Request, origin: str, fault: Fault | None) -> Reply:
        try:
            chosen = await library.book_for(name)
        except CommerceProxyError as error:
            log.warning("%s %s: %s", core.method, library.default.prepare(core).target, error)
            document = error_document(400, f"Unusable {CASSETTE_HEADER}", str(error))
            return json_answer(400, document, headers={NO_MATCH_HEADER: "bad-cassette"})
        reply = serve(chosen, core, origin, fault)
        return await reply if isinstance(reply, Awaitable) else reply

    def handle(incoming: Incoming) -> Reply | Awaitable[Reply]:
        path, _, query = incoming.target.partition("?")
        if path.startswith(ADMIN_PREFIX):
            return answer_admin(admin, incoming.method, path)
        core = core_request(incoming, path, query)
        if isinstance(core, Outgoing):
            return core
        fault = plan.decide(core.method, core.target, core.path) if plan.faults else None
        if fault is not None:
            log.info("fault %s: %s %s", fault.text, core.method, library.default.prepare(core).target)
            if fault.kind == "drop":
                return DROP
            if fault.status is not None:
                return fault_response(fault)
        origin = origin_of("http://" + (incoming.header("Host") or server.address))
        name = incoming.header(CASSETTE_HEADER)
        if name is not None:
            return serve_named(name, core, origin, fault)
        return serve(library.default, core, origin, fault)

    async def report_usage() -> None:
        if not server.bound:
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

    server = WireServer(handle, max_body=MAX_REQUEST_BYTES)
    server.on_cleanup.append(report_usage)
    return server
