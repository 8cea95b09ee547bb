"""A mitmproxy addon that records (and checks) traffic into a cassette, for clients that can only be
pointed at a forward proxy, HTTPS included:

    mitmdump -s proxy/mitm/addon.py --set cassette=cassettes/phone.yaml

Each flow goes through the same `Recorder` as `record`: its decision on the request (a placeholder
credential refused; in new_episodes, what the cassette holds answered from it, never a token request;
the rest forwarded by mitmproxy), then the answer recorded (redaction, the crash-safe journal, the
rules) or turned into the status saying why it was not, and the atomic cassette write when mitmdump
stops. One cassette holds one service: the origin is `cassette_origin`, else the cassette's own
(new_episodes), else the first one seen.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from mitmproxy import ctx, exceptions, http
from mitmproxy.addonmanager import Loader

from proxy.app.project_rules import RulesInForce, project_rules
from proxy.app.record_setup import record_settings
from proxy.app.recorder import Answered, Forward, Recorder, Refuse, Replay, decide
from proxy.app.recording import (
    RECORD_MODES,
    RecordingSession,
    RecordSettings,
    recorded_upstream,
    refuse_existing,
)
from proxy.core.model.bodies import dump_json, error_document
from proxy.core.model.links import origin_of
from proxy.errors import BodyTooLarge, CommerceProxyError
from proxy.mitm.flows import flow_headers, flow_origin, request_from_flow, stamp
from proxy.server.answers import AnswerCache, serve_answer

if TYPE_CHECKING:
    from proxy.server.wire import Outgoing

# Named, not __name__: `mitmdump -s addon.py` imports this file as `addon`, and OursPrefixed knows our
# lines by the `proxy.` of their logger.
log = logging.getLogger("proxy.mitm.addon")
ANSWERED = "commerce_proxy_answered"  # flow metadata: answered by the addon, not sent, not recorded
# How the addon's options spell the settings the use cases name in their messages.
SPELLINGS = {"mode": "cassette_mode", "origin": "cassette_origin"}


class OursPrefixed(logging.Filter):
    """Our lines in mitmproxy's event log start `commerce-proxy: `, as they do from the command line
    (the use cases log plain messages; each adapter says whose they are)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.name.startswith("proxy.") and not str(record.msg).startswith("commerce-proxy: "):
            record.msg = f"commerce-proxy: {record.msg}"
        return True


class CassetteRecorder:
    """Options `cassette`, `cassette_mode`, `cassette_origin`, `cassette_check`, `cassette_config`,
    `cassette_redact_header` and `cassette_redact_json_path`."""

    def __init__(self) -> None:
        self.recorder: Recorder | None = None
        self.in_force: RulesInForce | None = None
        self.origin: str | None = None
        self.skipped: Counter[str] = Counter()
        self.cache = AnswerCache()  # the cassette's answers, built once each

    @property
    def session(self) -> RecordingSession | None:
        return self.recorder.session if self.recorder is not None else None

    def load(self, loader: Loader) -> None:
        for handler in logging.getLogger().handlers:  # mitmproxy's event log
            if not any(isinstance(known, OursPrefixed) for known in handler.filters):
                handler.addFilter(OursPrefixed())
        loader.add_option("cassette", str, "", "commerce-proxy: record exchanges into this cassette (YAML)")
        loader.add_option(
            "cassette_mode",
            str,
            "once",
            "once: only a new cassette; new_episodes: add to it; all: replace it",
            choices=[mode for mode in RECORD_MODES if mode != "none"],
        )
        loader.add_option(
            "cassette_origin",
            str,
            "",
            "record only this origin, e.g. https://api.example (default: first seen)",
        )
        loader.add_option("cassette_check", bool, True, "check each exchange against the documented rules")
        loader.add_option(
            "cassette_config", str, "", "commerce-proxy.yaml or pyproject.toml (default: found)"
        )
        loader.add_option("cassette_redact_header", Sequence[str], [], "another header to redact")
        loader.add_option("cassette_redact_json_path", Sequence[str], [], "a dotted JSON path to redact")

    def configure(self, updated: set[str]) -> None:
        if not updated & {"cassette", "cassette_mode", "cassette_origin", "cassette_config"}:
            return
        options = ctx.options
        if not options.cassette:
            return
        if self.recorder is not None:
            raise exceptions.OptionsError("cassette options cannot change while recording")
        path = Path(options.cassette)
        try:
            config = Path(options.cassette_config) if options.cassette_config else None
            self.in_force = project_rules(Path.cwd(), config)
            self.origin = self._chosen_origin(path)
            if self.origin is not None:
                self.recorder = Recorder(self._settings(self.origin))
            else:  # refused now, not at the first flow
                refuse_existing(path, options.cassette_mode, SPELLINGS)
        except CommerceProxyError as error:
            raise exceptions.OptionsError(f"commerce-proxy: {error}") from None

    def _chosen_origin(self, path: Path) -> str | None:
        options = ctx.options
        if options.cassette_origin:
            if "://" not in options.cassette_origin:
                raise CommerceProxyError(f"cassette_origin {options.cassette_origin!r}: expected a URL")
            return str(options.cassette_origin).rstrip("/")
        if options.cassette_mode == "new_episodes" and path.exists():
            return recorded_upstream(path)
        return None

    def _settings(self, upstream: str) -> RecordSettings:
        options = ctx.options
        in_force = self.in_force
        assert in_force is not None
        return record_settings(
            upstream,
            Path(options.cassette),
            in_force,
            mode=options.cassette_mode,
            checking=options.cassette_check,
            redact_headers=options.cassette_redact_header,
            redact_json_paths=options.cassette_redact_json_path,
            spellings=SPELLINGS,
        )

    def _recorder_for(self, origin: str) -> Recorder | None:
        """The recorder of the cassette's origin, made at its first flow; None when recording stopped
        (it could not start)."""
        if self.origin is None:
            self.origin = origin
        if self.recorder is None:
            try:
                self.recorder = Recorder(self._settings(self.origin))
            except CommerceProxyError as error:
                log.error("not recording: %s", error)
                ctx.options.update(cassette="")
                return None
        return self.recorder

    def request(self, flow: http.HTTPFlow) -> None:
        """The recorder's decision before the request is sent: a refusal is answered here; so is a
        request the cassette answers (new_episodes), from the cassette; the rest is forwarded. A flow
        to another origin is only refused (a placeholder credential), never answered from the cassette."""
        if not ctx.options.cassette or self.in_force is None:
            return
        origin = flow_origin(flow)
        recorder = self._recorder_for(origin)
        if recorder is None:
            return
        try:
            request = request_from_flow(flow)
        except BodyTooLarge:
            return  # answered when its response comes
        if origin != origin_of(self.origin or origin):
            decision = decide(request, recorder.settings.redaction, None)
        else:
            decision = recorder.decide(request)
        if isinstance(decision, Refuse):
            flow.metadata[ANSWERED] = True
            flow.response = _answer(decision.status, decision.title, decision.detail)
        elif isinstance(decision, Replay):
            flow.metadata[ANSWERED] = True
            flow.response = _replayed(serve_answer(decision.answer, self.cache, origin))
        # Forward: mitmproxy sends it; `response` records it. Flow metadata holds only what `mitmdump -w`
        # can write (a flow file is serialized), so no decision object is kept on the flow.

    def response(self, flow: http.HTTPFlow) -> None:
        """Record each completed exchange of the recorded origin through the recorder; its refusal
        (an answer too large, a journal that cannot take it) replaces the upstream's answer."""
        answer = flow.response
        if not ctx.options.cassette or flow.metadata.get(ANSWERED) or answer is None:
            return
        origin = flow_origin(flow)
        recorder = self._recorder_for(origin)
        if recorder is None:
            return
        if origin != origin_of(self.origin or origin):
            self.skipped[origin] += 1
            return
        try:
            request = request_from_flow(flow)
        except BodyTooLarge as error:  # a gzip bomb: answered as a failure, never inflated whole
            log.error("not recorded: %s", error)
            flow.response = _answer(502, "Not recorded", str(error))
            return
        sent = flow.request
        forward = Forward(stamp(sent.timestamp_start) or stamp(time.time()) or "")
        duration = 0.0
        if answer.timestamp_end and sent.timestamp_start:
            duration = round((answer.timestamp_end - sent.timestamp_start) * 1000, 3)
        answered = Answered(
            answer.status_code,
            answer.reason or None,
            flow_headers(answer.headers.fields),
            answer.raw_content or b"",
            duration,
            len(sent.raw_content or b""),
        )
        result = recorder.record_now(request, forward, answered)
        if isinstance(result, Refuse):
            flow.response = _answer(result.status, result.title, result.detail)

    def done(self) -> None:
        """Write the cassette (atomically) when mitmdump stops."""
        if self.recorder is None:
            return
        self.recorder.end()
        for origin, count in self.skipped.items():
            log.info("not recorded: %d exchange(s) with %s (another origin)", count, origin)
        self.recorder = None


def _answer(status: int, title: str, detail: str) -> http.Response:
    """The addon's own JSON error answer, in place of the upstream's."""
    return http.Response.make(
        status, dump_json(error_document(status, title, detail)), {"Content-Type": "application/json"}
    )


def _replayed(served: Outgoing) -> http.Response:
    """A recorded answer as mitmproxy's response, its bytes as the cassette has them (never encoded again)."""
    headers = http.Headers(
        [(name.encode("latin-1"), value.encode("latin-1")) for name, value in served.headers]
    )
    response = http.Response.make(served.status, b"", headers)
    response.raw_content = served.body
    response.headers["content-length"] = str(len(served.body))
    if served.reason:
        response.reason = served.reason
    return response


addons = [CassetteRecorder()]
