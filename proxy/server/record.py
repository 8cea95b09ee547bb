"""The recording proxy: forwards to the upstream, answers the client, journals every exchange.

The client gets the upstream's answer unchanged, except hop-by-hop headers and absolute links to the
upstream's origin, which point back at the proxy. The cassette keeps what the upstream really sent,
redacted before anything is written.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable
from dataclasses import dataclass, field
from urllib.parse import urlsplit, urlunsplit

from proxy.app.live_check_worker import CheckWorker
from proxy.app.recording import RecordingSession
from proxy.app.recording import RecordSettings as RecordSettings
from proxy.core.model.bodies import body_from_bytes, dump_json, error_document
from proxy.core.model.exchange import Exchange, Request, Response, without_headers
from proxy.core.model.hop_by_hop import end_to_end
from proxy.core.model.links import OriginRewriter, origin_of
from proxy.core.redaction.redact import (
    is_token_request,
    placeholder_credential,
    placeholder_refusal,
    redact_request,
)
from proxy.core.rules.engine import Checker
from proxy.errors import BodyTooLarge, JournalError, NotRecordable
from proxy.server.admin import answer_admin, record_routes
from proxy.server.answers import AnswerCache, serve_answer
from proxy.server.convert import ADMIN_PREFIX, core_request
from proxy.server.replay import MAX_REQUEST_BYTES
from proxy.server.upstream import UpstreamError, UpstreamPool
from proxy.server.watching import FORWARDED, Seen, Watch
from proxy.server.wire import Incoming, Outgoing, Reply, WireServer, json_answer
from proxy.store.clock import now_stamp

log = logging.getLogger(__name__)
# An exchange this large is redacted on a thread: its secrets are searched in time linear in its size,
# and the event loop keeps answering other clients meanwhile.
OFF_LOOP_BYTES = 256 * 1024

# The upstream client sets these itself for the request it sends.
NOT_FORWARDED = frozenset({"host", "content-length"})


class UpstreamFailure(Exception):
    """The upstream could not give a complete answer; carries the status the client gets."""

    def __init__(self, status: int, title: str, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.title = title
        self.detail = detail


@dataclass
class RecordServer(WireServer):
    """The wire server that forwards and records; `recording` is its session (findings, exchanges)."""

    recording: RecordingSession = field(default=None)  # type: ignore[assignment]  # set at creation
    watch: Watch | None = None  # told of every request served (the pytest plugin's exchanges)


class RecordProxy:
    """Forwards, records and answers; the cassette is written at cleanup.

    The upstream is reached through a pool of keep-alive connections (`UpstreamPool`) and answers go
    out through the wire server: a recorded exchange costs its checking and journaling, little else.
    """

    def __init__(self, settings: RecordSettings) -> None:
        # A base path in --upstream (a gateway's /commerce) is kept: requests go below it. The pool
        # comes first: a refused --ca-bundle must stop the start before a journal or a checker exists.
        self.settings = settings
        parts = urlsplit(settings.upstream)
        self.upstream_base = urlunsplit((parts.scheme, parts.netloc, parts.path, "", "")).rstrip("/")
        self.pool = UpstreamPool(
            self.upstream_base,
            settings.upstream_timeout,
            settings.max_body_bytes,
            ca_bundle=settings.ca_bundle,
            authorization=settings.upstream_authorization,
        )
        self.worker: CheckWorker | None = None
        if settings.rules is not None and settings.rule_source is not None:
            ruleset, rule_config = settings.rules, settings.rule_config
            self.worker = CheckWorker(
                settings.rule_source, lambda: Checker(ruleset, rule_config), settings.findings_kept
            )
        try:
            self.recording = RecordingSession(settings, self.worker)
        except BaseException:
            if self.worker is not None:
                self.worker.close()  # the settings were refused (an existing cassette...): no checker left
            raise
        self.cache = AnswerCache()
        self.unrecorded = 0  # exchanges answered 507 because the journal could not be written
        self.rewriters: dict[str, OriginRewriter] = {}  # one per origin clients use to reach us
        self.admin = record_routes(self)
        self.server = RecordServer(self.handle, max_body=MAX_REQUEST_BYTES, recording=self.recording)
        self.server.on_cleanup.append(self.finish)

    def handle(self, incoming: Incoming) -> Reply | Awaitable[Reply]:
        path, _, query = incoming.target.partition("?")
        if path.startswith(ADMIN_PREFIX):
            return answer_admin(self.admin, incoming, path, self.server.hosts)
        recording = self.recording
        core = core_request(incoming, path, query)
        if isinstance(core, Outgoing):
            return core
        placeholder = placeholder_credential(core, self.settings.redaction)
        if placeholder is not None:
            return _placeholder_refused(core, placeholder)
        origin = origin_of("http://" + (incoming.header("Host") or self.server.address))
        # A replayed token is `<redacted>`: the token endpoint is always asked live.
        answer = None if is_token_request(core) else recording.book.answer(core)
        if answer is not None:
            recording.replayed += 1
            served = serve_answer(answer, self.cache, origin)
            if self.server.watch is not None:
                self.server.watch(Seen.of(core, recording.book, answer, served.status))
            return served
        if self.server.watch is not None:
            return self.watched(incoming, core, origin, self.server.watch)
        return self.forward(incoming, core, origin)

    async def watched(self, incoming: Incoming, core: Request, origin: str, watch: Watch) -> Reply:
        """`forward`, telling `watch` what the upstream answered and whether it was recorded."""
        kept: list[int] = []
        reply = await self.forward(incoming, core, origin, kept)
        status = reply.status if isinstance(reply, Outgoing) else 0
        shown = redact_request(core, self.settings.redaction)
        cassette = str(self.settings.cassette) if self.settings.cassette is not None else None
        recorded = bool(kept) and cassette is not None  # spy keeps exchanges for its checks, writes none
        watch(Seen(core, shown, status, kept[0] if recorded else FORWARDED, cassette if recorded else None))
        return reply

    async def forward(
        self, incoming: Incoming, core: Request, origin: str, kept: list[int] | None = None
    ) -> Reply:
        settings = self.settings
        recorded_at = now_stamp()
        started = time.perf_counter()
        headers = end_to_end(incoming.headers, NOT_FORWARDED)
        try:
            answer = await self.pool.send(incoming.method, incoming.target, headers, incoming.body)
        except UpstreamError as error:
            status, title, detail = _failure(error, self.upstream_base, settings)
            shown = redact_request(core, settings.redaction)  # a log is read by people: no secrets in it
            log.warning("%s %s: %s", shown.method, shown.target, detail)
            return json_answer(status, error_document(status, title, detail))
        duration_ms = round((time.perf_counter() - started) * 1000, 3)
        try:
            body = body_from_bytes(answer.body, answer.headers, settings.max_body_bytes)
        except BodyTooLarge as error:
            detail = f"upstream answer is larger than --max-body-bytes ({settings.max_body_bytes} bytes) "
            detail += f"once decoded: {error}"
            return json_answer(502, error_document(502, "Bad Gateway", detail))
        response = Response(status=answer.status, headers=answer.headers, body=body, reason=answer.reason)
        head = incoming.method == "HEAD"
        if is_token_request(core) and self.recording.book.holds(core):
            # new_episodes: the cassette has this token exchange already; a fresh token is no new episode
            return _to_client(response, answer.body, self.rewriter_to(origin), head)
        exchange = Exchange(core, response, recorded_at, duration_ms)
        if len(incoming.body) + len(answer.body) > OFF_LOOP_BYTES:  # other clients go on meanwhile
            redacted = await asyncio.to_thread(self.recording.redacted, exchange)
        else:
            redacted = self.recording.redacted(exchange)
        try:
            index = self.recording.keep_redacted(redacted)
        except NotRecordable as error:  # the cassette could not read it back: relayed as a failure
            log.warning("%s %s: %s", core.method, core.path, error)
            detail = f"the upstream answered {response.status}, but {error}: this exchange is not recorded"
            return json_answer(502, error_document(502, "Not recorded", detail))
        except JournalError as error:  # disk full: an answer the client cannot mistake for recorded
            self.unrecorded += 1
            if self.unrecorded == 1:  # once: the rest are counted at stop
                log.error("%s; answering 507 to every exchange it cannot record", error)
            detail = f"the upstream answered {response.status}, but {error}: this exchange is not recorded"
            return json_answer(507, error_document(507, "Not recorded", detail))
        if kept is not None:
            kept.append(index)
        return _to_client(response, answer.body, self.rewriter_to(origin), head)

    def rewriter_to(self, origin: str) -> OriginRewriter:
        if origin not in self.rewriters:
            self.rewriters[origin] = OriginRewriter(self.upstream_base, origin)
        return self.rewriters[origin]

    async def finish(self) -> None:
        self.pool.close()
        if self.unrecorded:
            log.error("%d exchanges were not recorded (the journal could not be written)", self.unrecorded)
        if self.worker is not None:
            await self.worker.caught_up()
            self.worker.close()
        recording, settings = self.recording, self.settings
        cassette = recording.finish()
        if recording.live is not None and recording.live.logged:  # each finding was logged as it came
            log.info("%s", recording.findings.summary())  # one line for the session
        if settings.cassette is not None and cassette is None:
            log.info("nothing new recorded; %s left as it was", settings.cassette)
        elif cassette is not None and recording.re_recorded is not None:
            counted = recording.re_recorded
            log.info(
                "wrote %s: %d exchanges (%d kept unchanged, %d changed, %d new; %d answered from the "
                "cassette)",
                settings.cassette,
                len(cassette.exchanges),
                counted.unchanged,
                counted.changed,
                counted.new,
                recording.replayed,
            )
        elif cassette is not None:
            log.info(
                "wrote %s: %d exchanges (%d new, %d answered from the cassette)",
                settings.cassette,
                len(cassette.exchanges),
                recording.recorded,
                recording.replayed,
            )


def create_record_app(settings: RecordSettings) -> RecordServer:
    """The record (or spy, with no cassette) server, ready to start."""
    return RecordProxy(settings).server


def _placeholder_refused(request: Request, where: str) -> Outgoing:
    """The proxy's own 401 for a request whose credential is the redaction placeholder: forwarded, it
    would only record the service's refusal into the cassette."""
    detail = placeholder_refusal(where)
    log.warning("%s %s: %s", request.method, request.path, detail)
    return json_answer(401, error_document(401, "Unauthorized", detail))


def _failure(error: UpstreamError, upstream_base: str, settings: RecordSettings) -> tuple[int, str, str]:
    """The status, title and detail a client gets when the upstream gave no complete answer."""
    if error.stage == "timeout":
        return (
            504,
            "Gateway Timeout",
            (f"upstream {upstream_base} did not answer within {settings.upstream_timeout:g} s"),
        )
    if error.stage == "connect":
        return 502, "Bad Gateway", f"cannot connect to upstream {upstream_base}: {error}"
    if error.stage == "size":
        limit = settings.max_body_bytes
        return 502, "Bad Gateway", f"upstream answer is larger than --max-body-bytes ({limit} bytes)"
    if error.stage == "invalid":
        return 502, "Bad Gateway", f"upstream {upstream_base} gave an answer that cannot be relayed: {error}"
    return 502, "Bad Gateway", f"upstream {upstream_base} failed mid-answer: {error}"


def _to_client(response: Response, raw_body: bytes, rewriter: OriginRewriter, head: bool) -> Outgoing:
    """The upstream's answer for the client: the same bytes unless links must point back at us."""
    headers = end_to_end(response.headers, frozenset({"content-length"}))
    body = raw_body
    if rewriter.needed:
        headers = rewriter.headers(headers)
        # Compressed bodies cannot be searched as bytes; plain ones usually need no walk at all.
        moved_text = None
        if response.body.kind == "json" and not response.body.decoded_from:
            moved_text = rewriter.json_bytes(raw_body)
        if moved_text is not None:
            body = moved_text
        elif response.body.kind == "json" and (response.body.decoded_from or rewriter.mentions_old(raw_body)):
            document = response.body.value
            moved = rewriter.json(document)
            if moved is not document:
                body = dump_json(moved)
                headers = without_headers(headers, ["content-encoding"])
    length = None
    if head:  # a HEAD answer has no body but says how long the GET's would be
        sizes = [value for name, value in response.headers if name.lower() == "content-length"]
        length = int(sizes[0]) if sizes and sizes[0].isdigit() else 0
    return Outgoing(response.status, headers, body, response.reason, length=length)
