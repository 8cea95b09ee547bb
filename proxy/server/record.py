"""The recording proxy: forwards to the upstream, answers the client, journals every exchange.

The client gets the upstream's answer unchanged, except hop-by-hop headers and absolute links to the
upstream's origin, which point back at the proxy. The cassette keeps what the upstream really sent,
redacted before anything is written.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable

from proxy.app.recorder import Answered, Forward, Recorder, Refuse, Relay, Replay, upstream_base
from proxy.app.recording import RecordingSession, RecordSettings
from proxy.app.ui_setup import ui_token
from proxy.core.model.access import ours
from proxy.core.model.bodies import dump_json, error_document
from proxy.core.model.exchange import Request, Response, without_headers
from proxy.core.model.hop_by_hop import end_to_end
from proxy.core.model.links import OriginRewriter, origin_of
from proxy.server.admin import Door, answer_ours, record_routes
from proxy.server.answers import AnswerCache, serve_answer
from proxy.server.convert import core_request, served_here
from proxy.server.replay import MAX_REQUEST_BYTES
from proxy.server.upstream import UpstreamError, UpstreamPool
from proxy.server.watching import FORWARDED, Seen, Watch
from proxy.server.wire import Incoming, Outgoing, Reply, WireServer, json_answer

# The upstream client sets these itself for the request it sends.
NOT_FORWARDED = frozenset({"host", "content-length"})


class RecordProxy:
    """Forwards, records and answers; the cassette is written at cleanup. `server` is what is served,
    `recorder` the use case each request goes through, `recording` its session; `watch` is told of
    every request served (the pytest plugin's exchanges).

    The upstream is reached through a pool of keep-alive connections (`UpstreamPool`) and answers go
    out through the wire server: a recorded exchange costs its checking and journaling, little else.
    """

    def __init__(self, settings: RecordSettings, watch: Watch | None = None) -> None:
        # A base path in --upstream (a gateway's /commerce) is kept: requests go below it. The pool
        # comes first: a refused --ca-bundle must stop the start before a journal or a checker exists.
        self.settings = settings
        self.watch = watch
        self.pool = UpstreamPool(
            upstream_base(settings.upstream),
            settings.upstream_timeout,
            settings.max_body_bytes,
            ca_bundle=settings.ca_bundle,
            authorization=settings.upstream_authorization,
        )
        self.recorder = Recorder(settings)
        self.cache = AnswerCache()
        self.rewriters: dict[str, OriginRewriter] = {}  # one per origin clients use to reach us
        self.door = Door(record_routes(self), ui_token())  # the UI's, when one is opened on it
        self.server = WireServer(self.handle, max_body=MAX_REQUEST_BYTES, has_ui=self.door.has_ui)
        self.server.on_cleanup.append(self.finish)

    @property
    def recording(self) -> RecordingSession:
        return self.recorder.session

    def handle(self, incoming: Incoming) -> Reply | Awaitable[Reply]:
        """The wire's request as a core request, the use case's decision, its answer on the wire."""
        path, _, query = incoming.target.partition("?")
        if (route := ours(path)) is not None:  # any spelling of a /_proxy/ path: never forwarded
            return answer_ours(self.door, incoming, route, self.server.hosts)
        if (here := served_here(incoming, path)) is not None:
            return here
        core = core_request(incoming, path, query)
        if isinstance(core, Outgoing):
            return core
        decision = self.recorder.decide(core)
        if isinstance(decision, Refuse):
            return _refused(decision)
        origin = origin_of("http://" + (incoming.header("Host") or self.server.address))
        if isinstance(decision, Replay):
            served = serve_answer(decision.answer, self.cache, origin)
            if self.watch is not None:
                self.watch(Seen.of(core, self.recording.book, decision.answer, served.status))
            return served
        return self.forward(incoming, core, decision, origin)

    async def forward(self, incoming: Incoming, core: Request, decision: Forward, origin: str) -> Reply:
        started = time.perf_counter()
        headers = end_to_end(incoming.headers, NOT_FORWARDED)
        answer = None
        try:
            answer = await self.pool.send(incoming.method, incoming.target, headers, incoming.body)
        except UpstreamError as error:
            result: Relay | Refuse = self.recorder.failed(core, error.stage, str(error))
        else:
            duration_ms = round((time.perf_counter() - started) * 1000, 3)
            answered = Answered(
                answer.status, answer.reason, answer.headers, answer.body, duration_ms, len(incoming.body)
            )
            result = await self.recorder.record(core, decision, answered)
        if isinstance(result, Refuse):
            reply, index = _refused(result), None
        else:
            assert answer is not None
            head = incoming.method == "HEAD"
            reply, index = (
                _to_client(result.response, answer.body, self.rewriter_to(origin), head),
                result.index,
            )
        if self.watch is not None:
            self.watch(self._seen(core, reply.status, index))
        return reply

    def _seen(self, core: Request, status: int, index: int | None) -> Seen:
        """What the watcher is told of a forwarded request: recorded at `index`, or only forwarded."""
        cassette = self.settings.cassette
        recorded = index is not None and cassette is not None  # spy checks exchanges, writes none
        shown = self.recorder.shown(core)
        if recorded:
            assert index is not None
            return Seen(core, shown, status, index, str(cassette))
        return Seen(core, shown, status, FORWARDED, None)

    def rewriter_to(self, origin: str) -> OriginRewriter:
        if origin not in self.rewriters:
            self.rewriters[origin] = OriginRewriter(upstream_base(self.settings.upstream), origin)
        return self.rewriters[origin]

    async def finish(self) -> None:
        self.pool.close()
        await self.recorder.finish(served=self.server.bound)  # a port never bound: nothing to tell


def create_record_app(settings: RecordSettings, watch: Watch | None = None) -> WireServer:
    """The record (or spy, with no cassette) server, ready to start."""
    return RecordProxy(settings, watch).server


def _refused(refusal: Refuse) -> Outgoing:
    """The proxy's own answer: an error document with the use case's status."""
    return json_answer(refusal.status, error_document(refusal.status, refusal.title, refusal.detail))


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
