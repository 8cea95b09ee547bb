"""The recording proxy: forwards to the upstream, answers the client, journals every exchange.

The client gets the upstream's answer unchanged, except hop-by-hop headers and absolute links to the
upstream's origin, which point back at the proxy. The cassette keeps what the upstream really sent,
redacted before anything is written.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import aiohttp
from aiohttp import web
from yarl import URL

from proxy.core.bodies import body_from_bytes, dump_json
from proxy.core.cassette import Cassette
from proxy.core.conformance import Checker
from proxy.core.exchange import Exchange, Headers, Response, without_headers
from proxy.core.findings import Finding, FindingsLog
from proxy.core.hop_by_hop import end_to_end
from proxy.core.links import OriginRewriter, origin_of
from proxy.core.matching import MatchPolicy
from proxy.core.redaction import RedactionPolicy, redact_exchange
from proxy.core.replay_state import ReplayBook
from proxy.core.rule_config import RuleConfig
from proxy.core.ruleset import RuleSet
from proxy.errors import UsageError
from proxy.server.answers import AnswerCache, serve_answer
from proxy.server.convert import (
    ADMIN_PREFIX,
    error_document,
    json_response,
    multidict,
    own_origin,
    raw_headers,
    read_request,
)
from proxy.server.replay import MAX_REQUEST_BYTES, admin_not_found, now_stamp
from proxy.server.serving import REQUEST_BODIES_AS_SENT
from proxy.store.files import load_cassette, save_cassette
from proxy.store.journal import JournalMode, JournalWriter, journal_path

log = logging.getLogger(__name__)

RecordMode = Literal["once", "new_episodes", "all", "none"]
# Info findings (an undocumented endpoint...) are routine: `--quiet` hides them, not warnings or errors.
LOG_LEVELS = {"error": logging.ERROR, "warning": logging.WARNING, "info": logging.INFO}
RECORD_MODES: tuple[RecordMode, ...] = ("once", "new_episodes", "all", "none")
# aiohttp sets these itself for the request it sends upstream.
NOT_FORWARDED = frozenset({"host", "content-length"})


@dataclass(frozen=True, slots=True)
class RecordSettings:
    """Everything `record` is told on the command line."""

    upstream: str
    cassette: Path | None  # None: `spy`, which checks traffic and writes nothing
    mode: RecordMode = "once"
    redaction: RedactionPolicy = field(default_factory=RedactionPolicy)
    match: MatchPolicy = field(default_factory=MatchPolicy)
    upstream_timeout: float = 30.0
    max_body_bytes: int = 50 * 1024 * 1024
    rules: RuleSet | None = None  # None: no live checking
    rule_config: RuleConfig = field(default_factory=RuleConfig)
    findings_kept: int = 1000


class UpstreamFailure(Exception):
    """The upstream could not give a complete answer; carries the status the client gets."""

    def __init__(self, status: int, title: str, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.title = title
        self.detail = detail


class Recording:
    """A recording in progress: the base it adds to, the journal, and what arrived so far."""

    def __init__(self, settings: RecordSettings) -> None:
        self.settings = settings
        self.base = prepare_base(settings)
        journal_mode: JournalMode = "append" if settings.mode == "new_episodes" else "replace"
        self.journal: JournalWriter | None = None
        if settings.cassette is not None:
            settings.cassette.parent.mkdir(parents=True, exist_ok=True)
            self.journal = JournalWriter(journal_path(settings.cassette), journal_mode, settings.upstream)
        replayed_from = [(settings.cassette.name, self.base)] if settings.cassette is not None else []
        self.book = ReplayBook.build(
            replayed_from if settings.mode == "new_episodes" else [],
            settings.match,
            settings.redaction,
        )
        self.findings = FindingsLog(settings.findings_kept)
        self.checker = (
            Checker(settings.rules, settings.rule_config, cassette=None)
            if settings.rules is not None
            else None
        )
        self.cache = AnswerCache()
        self.recorded: list[tuple[int, Exchange]] = []
        self.replayed = 0
        self._next_sequence = 0

    def arrival(self) -> int:
        """Number the next request in order of arrival."""
        self._next_sequence += 1
        return self._next_sequence

    def keep(self, sequence: int, exchange: Exchange) -> None:
        """Journal a redacted exchange before its answer goes out, so an acknowledged one survives."""
        redacted = redact_exchange(exchange, self.settings.redaction)
        if self.journal is not None:
            self.journal.append(sequence, redacted)
            self.recorded.append((sequence, redacted))
        if self.checker is not None:
            self.report(self.checker.check(redacted, sequence))

    def report(self, findings: list[Finding]) -> None:
        """Log each finding as one line as it happens, and keep it for GET /_proxy/findings."""
        self.findings.add(findings)
        for finding in findings:
            log.log(
                LOG_LEVELS[finding.severity],
                "%s %s #%d %s %s: %s",
                finding.severity,
                finding.rule,
                finding.exchange,
                finding.method,
                finding.target,
                finding.message,
            )

    def finish(self) -> Cassette | None:
        """Write the cassette atomically in arrival order and drop the journal.

        With nothing new recorded PATH is left as it was (None): a run that failed to bind its port,
        or saw no traffic, neither creates an empty cassette nor rewrites an old one.
        """
        if self.journal is None or self.settings.cassette is None:
            return None  # spy: nothing to write
        new = tuple(exchange for _, exchange in sorted(self.recorded, key=lambda item: item[0]))
        cassette = None
        if new:
            cassette = Cassette(exchanges=self.base.exchanges + new, upstream=self.settings.upstream)
            save_cassette(self.settings.cassette, cassette)
        self.journal.close(remove=True)
        return cassette


def prepare_base(settings: RecordSettings) -> Cassette:
    """What the new recording adds to, by mode; recovers a crashed recording's journal first."""
    path = settings.cassette
    if path is None:
        return Cassette(upstream=settings.upstream)
    if settings.mode == "once" and journal_path(path).exists():
        for note in load_cassette(path).notes:  # a first recording that crashed: keep what it got
            log.warning("%s", note)
    exists = path.exists() or journal_path(path).exists()
    if settings.mode == "once" and exists:
        raise UsageError(
            f"{path} exists and --mode once records only new cassettes: use --mode new_episodes "
            "to add to it, --mode all to replace it, or `replay` to serve it"
        )
    if not exists or settings.mode == "all":
        return Cassette(upstream=settings.upstream)  # `all` replaces, so a broken old file is no obstacle
    loaded = load_cassette(path)
    for note in loaded.notes:
        log.warning("%s", note)
    recorded_from = loaded.cassette.upstream
    if (
        loaded.cassette.exchanges
        and recorded_from
        and origin_of(recorded_from) != origin_of(settings.upstream)
    ):
        raise UsageError(
            f"{path} was recorded from {recorded_from}; adding episodes from {settings.upstream} would mix "
            "origins in one cassette: use the same --upstream, another cassette, or --mode all"
        )
    return loaded.cassette


RECORDING = web.AppKey("recording", Recording)
SESSION = web.AppKey("session", aiohttp.ClientSession)


def create_record_app(settings: RecordSettings) -> web.Application:
    """An aiohttp app that forwards, records and answers; the cassette is written at cleanup."""
    recording = Recording(settings)
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
            return admin_not_found(request)
        sequence = recording.arrival()
        recorded_at = now_stamp()
        core, raw_body = await read_request(request)
        origin = own_origin(request)
        answer = recording.book.answer(core)
        if answer is not None:
            recording.replayed += 1
            return serve_answer(answer, recording.cache, origin)
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
