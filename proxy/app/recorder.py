"""One recorded request, decided and kept by the use case, so the record and spy servers and the
mitmproxy addon only translate between the wire and these values.

A request is refused (its credential is the redaction placeholder), replayed (the cassette being
added to answers it; never a token request, whose recorded answer holds `<redacted>`), or forwarded.
A forwarded request's answer comes back here to be recorded, or turned into the status that says why
it was not: the upstream failing, an answer too large once decoded, a journal that cannot take it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

from proxy.app.live_check_worker import CheckWorker
from proxy.app.recording import RecordingSession, RecordSettings
from proxy.core.cassette.document import Cassette
from proxy.core.model.bodies import body_from_bytes
from proxy.core.model.exchange import Exchange, Headers, Request, Response
from proxy.core.redaction.redact import (
    RedactionPolicy,
    is_token_request,
    placeholder_credential,
    placeholder_refusal,
    redact_request,
)
from proxy.core.replay.book import Answer, ReplayBook
from proxy.core.rules.engine import Checker
from proxy.core.rules.findings import FindingsLog
from proxy.errors import BodyTooLarge, JournalError, NotRecordable
from proxy.store.clock import now_stamp

log = logging.getLogger(__name__)
# An exchange this large is redacted on a thread: its secrets are searched in time linear in its size,
# and the event loop keeps answering other clients meanwhile.
OFF_LOOP_BYTES = 256 * 1024


@dataclass(frozen=True, slots=True)
class Refuse:
    """The proxy's own answer (an error document): nothing is forwarded or recorded."""

    status: int
    title: str
    detail: str


@dataclass(frozen=True, slots=True)
class Replay:
    """The cassette being added to answers this request (`--mode new_episodes`)."""

    answer: Answer


@dataclass(frozen=True, slots=True)
class Forward:
    """Send it to the upstream; `recorded_at` is when it was sent, as its recording will say."""

    recorded_at: str


Decision = Refuse | Replay | Forward


@dataclass(frozen=True, slots=True)
class Answered:
    """What the upstream answered a forwarded request, as the wire gave it."""

    status: int
    reason: str | None
    headers: Headers
    body: bytes
    duration_ms: float
    sent_bytes: int  # the request's body on the wire: with the answer's, whether to redact on a thread


@dataclass(frozen=True, slots=True)
class Relay:
    """The upstream's answer goes to the client; `index` is the exchange's place in the cassette, or
    None when it was not recorded (a fresh token the cassette already holds)."""

    response: Response
    index: int | None


def decide(
    request: Request,
    redaction: RedactionPolicy,
    book: ReplayBook | None,
    now: Callable[[], str] = now_stamp,
) -> Decision:
    """What to do with one request: refuse a placeholder credential (forwarded, it would only record
    the service's refusal), answer from `book` what it holds (never a token request: the live token
    endpoint is always asked), forward the rest. `book` None: nothing is answered from a cassette."""
    where = placeholder_credential(request, redaction)
    if where is not None:
        detail = placeholder_refusal(where)
        log.warning("%s %s: %s", request.method, request.path, detail)
        return Refuse(401, "Unauthorized", detail)
    if book is not None and not is_token_request(request):
        answer = book.answer(request)
        if answer is not None:
            return Replay(answer)
    return Forward(now())


def upstream_base(upstream: str) -> str:
    """Where requests go: the upstream's origin and base path (a gateway's /commerce), no query."""
    parts = urlsplit(upstream)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, "", "")).rstrip("/")


def upstream_failure(stage: str, error: str, settings: RecordSettings) -> Refuse:
    """The status a client gets when the upstream gave no complete answer; `stage` is where it failed:
    connect, answer, size, timeout or invalid (an answer that cannot be relayed)."""
    base = upstream_base(settings.upstream)
    if stage == "timeout":
        detail = f"upstream {base} did not answer within {settings.upstream_timeout:g} s"
        return Refuse(504, "Gateway Timeout", detail)
    if stage == "connect":
        return Refuse(502, "Bad Gateway", f"cannot connect to upstream {base}: {error}")
    if stage == "size":
        limit, named = settings.max_body_bytes, settings.spelled("max_body_bytes")
        return Refuse(502, "Bad Gateway", f"upstream answer is larger than {named} ({limit} bytes)")
    if stage == "invalid":
        return Refuse(502, "Bad Gateway", f"upstream {base} gave an answer that cannot be relayed: {error}")
    return Refuse(502, "Bad Gateway", f"upstream {base} failed mid-answer: {error}")


class Recorder:
    """A recording (or spying) session behind a server: its live checker, in a child process when the
    rules can be loaded there, and each request's decision and recording."""

    def __init__(self, settings: RecordSettings) -> None:
        self.settings = settings
        self.worker: CheckWorker | None = None
        if settings.rules is not None and settings.rule_source is not None:
            ruleset, rule_config, contract = settings.rules, settings.rule_config, settings.contract
            self.worker = CheckWorker(
                settings.rule_source,
                lambda: Checker(ruleset, rule_config, contract=contract),
                settings.findings_kept,
                lines_direct=settings.lines_direct,
            )
        try:
            self.session = RecordingSession(settings, self.worker)
        except BaseException:
            if self.worker is not None:
                self.worker.close()  # the settings were refused (an existing cassette...): no checker left
            raise
        self.unrecorded = 0  # exchanges answered 507 because the journal could not be written

    def decide(self, request: Request) -> Decision:
        """`decide` with this session's redaction and the cassette it adds to; counts what is replayed."""
        decision = decide(request, self.settings.redaction, self.session.book)
        if isinstance(decision, Replay):
            self.session.replayed += 1
        return decision

    def failed(self, request: Request, stage: str, error: str) -> Refuse:
        """`upstream_failure`, logged with the request as recordings show it (a log has no secrets)."""
        refusal = upstream_failure(stage, error, self.settings)
        shown = self.shown(request)
        log.warning("%s %s: %s", shown.method, shown.target, refusal.detail)
        return refusal

    def shown(self, request: Request) -> Request:
        """The request as it is recorded: what may be logged or shown."""
        return redact_request(request, self.settings.redaction)

    async def record(self, request: Request, forward: Forward, answer: Answered) -> Relay | Refuse:
        """Record the upstream's answer before it goes out; a Refuse says why the client does not get
        it instead. A large exchange is redacted on a thread while the event loop answers others."""
        received = self._received(request, forward, answer)
        if not isinstance(received, Exchange):
            return received
        if answer.sent_bytes + len(answer.body) > OFF_LOOP_BYTES:  # other clients go on meanwhile
            redacted = await asyncio.to_thread(self.session.redacted, received)
        else:
            redacted = self.session.redacted(received)
        return self._kept(request, received.response, redacted)

    def record_now(self, request: Request, forward: Forward, answer: Answered) -> Relay | Refuse:
        """`record` on the caller's thread, for an adapter whose hooks are not coroutines (the
        mitmproxy addon)."""
        received = self._received(request, forward, answer)
        if not isinstance(received, Exchange):
            return received
        return self._kept(request, received.response, self.session.redacted(received))

    def _received(self, request: Request, forward: Forward, answer: Answered) -> Exchange | Relay | Refuse:
        """The exchange to record, or what the client gets without recording one: a refusal of an
        answer too large once decoded, or a fresh token the cassette already holds (new_episodes: a
        fresh token is no new episode)."""
        limit = self.settings.max_body_bytes
        try:
            body = body_from_bytes(answer.body, answer.headers, limit)
        except BodyTooLarge as error:
            named = self.settings.spelled("max_body_bytes")
            detail = f"upstream answer is larger than {named} ({limit} bytes) once decoded: {error}"
            return Refuse(502, "Bad Gateway", detail)
        response = Response(answer.status, answer.headers, body, answer.reason)
        if is_token_request(request) and self.session.book.holds(request):
            return Relay(response, None)
        return Exchange(request, response, forward.recorded_at, answer.duration_ms)

    def _kept(self, request: Request, response: Response, redacted: Exchange) -> Relay | Refuse:
        """Journal the redacted exchange; a journal that cannot take it is the client's answer."""
        try:
            return Relay(response, self.session.keep_redacted(redacted))
        except NotRecordable as error:  # the cassette could not read it back: relayed as a failure
            log.warning("%s %s: %s", request.method, request.path, error)
            detail = f"the upstream answered {response.status}, but {error}: this exchange is not recorded"
            return Refuse(502, "Not recorded", detail)
        except JournalError as error:  # disk full: an answer the client cannot mistake for recorded
            self.unrecorded += 1
            if self.unrecorded == 1:  # once: the rest are counted at stop
                log.error("%s; answering 507 to every exchange it cannot record", error)
            detail = f"the upstream answered {response.status}, but {error}: this exchange is not recorded"
            return Refuse(507, "Not recorded", detail)

    @property
    def mode(self) -> str:
        """The mode `/_proxy/health` reports: the record mode, or `spy`."""
        return self.settings.mode if self.settings.cassette is not None else "spy"

    async def findings(self) -> FindingsLog:
        """Every finding so far, once the checker has answered for every exchange answered so far."""
        await self.caught_up()
        return self.session.findings

    async def caught_up(self) -> None:
        """Return once the checker has answered for every exchange answered so far (its followers, a
        live UI's too, were told of each)."""
        if self.worker is not None:
            await self.worker.caught_up()

    async def finish(self, served: bool = True) -> None:
        """The session's end: the checker catches up and stops, the cassette is written, and what
        happened is logged in one line; nothing is logged for a session that never `served` (its port
        could not be bound: the error that says so is the run's one line)."""
        if self.worker is not None:
            await self.worker.caught_up()
            self.worker.close()
        self.end(served)

    def end(self, served: bool = True) -> Cassette | None:
        """`finish` for a session checked in this process (no checker process to wait for: the
        mitmproxy addon): the cassette written, or None when nothing new was recorded."""
        if self.unrecorded:
            log.error("%d exchanges were not recorded (the journal could not be written)", self.unrecorded)
        recording, settings = self.session, self.settings
        cassette = recording.finish()
        if not served:
            return cassette
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
        return cassette
