"""The replay server: cassettes served offline as a fake backend.

Requests are answered by the book of the cassettes given on the command line, or, with an
`X-Commerce-Cassette: NAME` header, by that one cassette from the cassette folder (its own sequences and
simulated state). Usage, latency and faults wrap around the answer. With a live checker, each answer
served (recorded or simulated) is checked with the request that got it.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING

from proxy.app.replay_setup import ReplayOptions, replay_clock, write_usage_report
from proxy.app.ui_setup import ui_token
from proxy.core.model.access import ours
from proxy.core.model.bodies import error_document
from proxy.core.model.exchange import Exchange, Request
from proxy.core.model.links import origin_of
from proxy.core.redaction.redact import redact_exchange
from proxy.core.replay.book import Answer, Miss, Recording, ReplayBook
from proxy.core.replay.clock import moves_to_now, token_answer_now
from proxy.core.replay.faults import FAULT_TITLES, Fault, FaultPlan
from proxy.core.replay.simulation.answers import Simulated
from proxy.core.replay.usage import usage_report, usage_summary
from proxy.core.rules.engine import Checked, LiveChecker
from proxy.core.rules.findings import SIMULATED, Finding
from proxy.errors import CommerceProxyError
from proxy.server.admin import Door, answer_ours, replay_routes
from proxy.server.answers import (
    NO_MATCH_HEADER,
    AnswerCache,
    no_match_response,
    serve_answer,
    serve_simulated,
)
from proxy.server.convert import core_request, core_response, served_here
from proxy.server.library import CASSETTE_HEADER, Library
from proxy.server.watching import Seen, Watch
from proxy.server.wire import (
    DROP,
    Incoming,
    Outgoing,
    Reply,
    Trickle,
    WireServer,
    json_answer,
)

if TYPE_CHECKING:
    from proxy.app.traffic_view import Answered

log = logging.getLogger(__name__)
# What the UI's view is handed for each answer: how to make the exchange shown, its findings and how
# it was answered, called off the serving path (by the view's indexing thread).
Made = tuple[Exchange, list[Finding], "Answered"]
Shown = Callable[[Callable[[], Made], int], None]  # and the bodies' bytes it holds
Result = Answer | Simulated | Miss
MAX_REQUEST_BYTES = 50 * 1024 * 1024
SLOW_CHUNKS = 10


def no_match(core: Request, book: ReplayBook, miss: Miss, logged: bool = True) -> Outgoing:
    """The 404 answer for a request nothing answers (secrets in it shown redacted)."""
    prepared = book.prepare(core)
    return no_match_response(prepared.method, prepared.target, miss.near, miss.reason, logged)


def respond(
    book: ReplayBook, cache: AnswerCache, core: Request, origin: str, logged: bool = True
) -> tuple[Outgoing, float | None, Recording | None, Answer | Simulated | Miss]:
    """The recorded or simulated answer (or the 404 of a miss), the recorded upstream time, the
    recording that answered (None when simulated or missed), and the book's verdict."""
    result = book.respond(core, replay_clock)  # read only by a simulation
    if isinstance(result, Answer):
        recording = result.recording
        return serve_answer(result, cache, origin), recording.exchange.duration_ms, recording, result
    if isinstance(result, Simulated):
        if result.template is None:  # a refusal: no links to move, no recorded time to copy
            return serve_simulated(result, None, origin), None, None, result
        template = book.recordings[result.template]
        answer = serve_simulated(result, template.upstream, origin)
        return answer, template.exchange.duration_ms, None, result
    return no_match(core, book, result, logged), None, None, result


def how_answered(result: Answer | Simulated | Miss) -> Answered:
    """What the UI says of an answer: the recording that gave it (as `cassette show` names it), a
    simulation, or a miss with the simulator's reason or the closest recording's differences."""
    from proxy.app.traffic_view import Answered  # the UI's modules, imported when a UI shows one

    if isinstance(result, Answer):
        return Answered("recording", f"{result.recording.cassette}#{result.recording.index}")
    if isinstance(result, Simulated):
        return Answered("simulated")
    closest = "; ".join(
        f"{near.recording.cassette}#{near.recording.index} differs in "
        + ", ".join(difference.where for difference in near.differences[:3])
        for near in result.near
    )
    return Answered("miss", None, "; ".join(part for part in (result.reason, closest) if part) or None)


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


class Replayer:
    """A server answering every request from the book (or the cassette a header names).

    The common request, a recorded answer with no faults or latency, is answered synchronously with
    bytes encoded once per recording (AnswerCache): one index lookup and one write.
    """

    def __init__(
        self,
        book: ReplayBook,
        options: ReplayOptions | None = None,
        live: LiveChecker | None = None,
        watch: Watch | None = None,
    ) -> None:
        self.options = options or ReplayOptions()
        self.watch = watch  # told of every request served; it explains misses, so they are not logged
        self.library = Library(book, self.options)
        self.plan = FaultPlan(self.options.faults, self.options.fault_seed)
        self.live = live
        self.cache = AnswerCache()
        self.simulated = 0  # simulated answers checked, numbered apart from the recordings
        self.shown: Shown | None = None  # the UI's view, told of every answer and how it was made
        self.door = Door(replay_routes(self), ui_token())  # the UI's, when one is opened on it
        self.server = WireServer(self.handle, max_body=MAX_REQUEST_BYTES, has_ui=self.door.has_ui)
        self.server.on_cleanup.append(self.report_usage)

    def handle(self, incoming: Incoming) -> Reply | Awaitable[Reply]:
        path, _, query = incoming.target.partition("?")
        if (route := ours(path)) is not None:  # any spelling of a /_proxy/ path: never forwarded
            return answer_ours(self.door, incoming, route, self.server.hosts)
        if (here := served_here(incoming, path)) is not None:
            return here
        core = core_request(incoming, path, query)
        if isinstance(core, Outgoing):
            return core
        fault = self.plan.decide(core.method, core.target, core.path) if self.plan.faults else None
        if fault is not None:
            target = self.library.default.prepare(core).target
            log.info("fault %s: %s %s", fault.text, core.method, target)
            if fault.kind == "drop":
                return DROP
            if fault.status is not None:
                faulted = fault_response(fault)
                if self.shown is not None:
                    self.shown(partial(_faulted, core, faulted, replay_clock(), fault.text), _size(faulted))
                return faulted
        origin = origin_of("http://" + (incoming.header("Host") or self.server.address))
        name = incoming.header(CASSETTE_HEADER)
        if name is not None:
            return self.serve_named(name, core, origin, fault)
        return self.serve(self.library.default, core, origin, fault)

    def serve(
        self, chosen: ReplayBook, core: Request, origin: str, fault: Fault | None
    ) -> Reply | Awaitable[Reply]:
        answer, recorded_ms, recording, result = respond(chosen, self.cache, core, origin, self.watch is None)
        if self.watch is not None:
            self.watch(Seen.of(core, chosen, result, answer.status))
        if recording is not None and self.options.time == "now" and moves_to_now(recording.exchange):
            headers, body = token_answer_now(recording.exchange, answer.headers, answer.body, time.time())
            length = None if answer.length == len(answer.body) else answer.length  # HEAD keeps its own
            answer = Outgoing(answer.status, headers, body, answer.reason, length)
        if self.live is not None or self.shown is not None:
            self.observe(core, answer, chosen, recording, result)
        reply: Reply = answer
        if fault is not None and fault.kind == "slow":
            reply = Trickle(answer, self.options.slow_body_ms / 1000, SLOW_CHUNKS)
        delay = self.options.latency.seconds(recorded_ms)
        return _after(delay, reply) if delay else reply

    async def serve_named(self, name: str, core: Request, origin: str, fault: Fault | None) -> Reply:
        try:
            chosen = await self.library.book_for(name)
        except CommerceProxyError as error:
            log.warning("%s %s: %s", core.method, self.library.default.prepare(core).target, error)
            document = error_document(400, f"Unusable {CASSETTE_HEADER}", str(error))
            return json_answer(400, document, headers={NO_MATCH_HEADER: "bad-cassette"})
        reply = self.serve(chosen, core, origin, fault)
        return await reply if isinstance(reply, Awaitable) else reply

    def observe(
        self,
        core: Request,
        answer: Outgoing,
        chosen: ReplayBook,
        recording: Recording | None,
        result: Answer | Simulated | Miss,
    ) -> None:
        """Check the answer served (not a miss: that 404 is ours, not the API's) with its request, and
        show it with how it was made. A recorded answer's findings carry its cassette and index there
        (what `cassette show FILE N` opens); a simulated one's are numbered apart, in the order they
        were served."""
        at = replay_clock() if recording is None else None  # a simulated answer is as new as now
        # A miss's 404 and a simulation's refusal are ours, not the API's: shown, never checked.
        if self.live is None or any(name == NO_MATCH_HEADER for name, _ in answer.headers):
            if self.shown is not None:  # the view redacts and builds what it is handed, off this path
                self.shown(partial(_served, core, answer, recording, at, result), _size(answer))
            return
        exchange = redact_exchange(_exchange_served(core, answer, recording, at), chosen.redaction)
        if recording is None:
            index, cassette = self.simulated, SIMULATED
            self.simulated += 1
        else:
            index, cassette = recording.index, recording.cassette
        found = self.live.checker.check(exchange, index)
        findings = [replace(finding, cassette=cassette) for finding in found]
        self.live.report(Checked(index, exchange, findings))
        if self.shown is not None:
            self.shown(partial(_checked, exchange, findings, result), _size(answer))

    async def report_usage(self) -> None:
        if not self.server.bound:
            return  # never served (the port was taken): nothing to report, no file to write
        report = usage_report(self.library.books())
        for line in usage_summary(report):
            log.info("%s", line)
        target = self.options.usage_report
        if target is not None:
            try:
                write_usage_report(target, report)
            except CommerceProxyError as error:
                log.error("%s", error)
            else:
                log.info("wrote the usage report to %s", target)


def _size(answer: Outgoing) -> int:
    """About what one answer held for the UI keeps alive: its body, and a request of a few heads."""
    return len(answer.body) + 1024


def _exchange_served(
    core: Request, answer: Outgoing, recording: Recording | None, at: str | None
) -> Exchange:
    """The exchange served: a recorded answer is as old as its recording, or its cassette's last
    confirmation (what the max_age rule judges); a simulated one, as old as `at` (when served)."""
    if recording is None:
        return Exchange(core, core_response(answer), at)
    recorded = recording.exchange
    return Exchange(core, core_response(answer), recorded.recorded_at, confirmed_at=recorded.confirmed_at)


def _served(
    core: Request,
    answer: Outgoing,
    recording: Recording | None,
    at: str | None,
    result: Answer | Simulated | Miss,
) -> tuple[Exchange, list[Finding], Answered]:
    return _exchange_served(core, answer, recording, at), [], how_answered(result)


def _checked(exchange: Exchange, findings: list[Finding], result: Result) -> Made:
    return exchange, findings, how_answered(result)


def _faulted(
    core: Request, answer: Outgoing, at: str, fault: str
) -> tuple[Exchange, list[Finding], Answered]:
    from proxy.app.traffic_view import Answered

    return Exchange(core, core_response(answer), at), [], Answered("fault", None, f"--fault {fault}")


def create_replay_app(
    book: ReplayBook,
    options: ReplayOptions | None = None,
    live: LiveChecker | None = None,
    watch: Watch | None = None,
) -> WireServer:
    """The replay server for `book`, ready to start; `watch` is told of every request it serves."""
    return Replayer(book, options, live, watch).server
