"""A mitmproxy addon that records (and checks) traffic into a cassette, for clients that can only be
pointed at a forward proxy, HTTPS included:

    mitmdump -s proxy/mitm/addon.py --set cassette=cassettes/phone.yaml

It hands each completed flow to the same `RecordingSession` as `record`: redaction, the crash-safe
journal, the rules, and the atomic cassette write when mitmdump stops. One cassette holds one service:
the origin is `cassette_origin`, else the cassette's own (new_episodes), else the first one seen.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from mitmproxy import ctx, exceptions, http
from mitmproxy.addonmanager import Loader

from proxy.app.recording import RECORD_MODES, RecordingSession, RecordSettings
from proxy.core.model.bodies import dump_json, error_document
from proxy.core.model.links import origin_of
from proxy.core.redaction.redact import RedactionPolicy, placeholder_credential, placeholder_refusal
from proxy.errors import BodyTooLarge, CommerceProxyError, JournalError, NotRecordable
from proxy.mitm.flows import exchange_from_flow, request_from_flow
from proxy.store.files import read_cassette_file
from proxy.store.rule_files import RulesInForce, load_project_rules

log = logging.getLogger(__name__)
REFUSED = "commerce_proxy_refused"  # flow metadata: answered by the addon, not sent, not recorded


class CassetteRecorder:
    """Options `cassette`, `cassette_mode`, `cassette_origin`, `cassette_check`, `cassette_config`,
    `cassette_redact_header` and `cassette_redact_json_path`."""

    def __init__(self) -> None:
        self.session: RecordingSession | None = None
        self.engine: RulesInForce | None = None
        self.origin: str | None = None
        self.skipped: Counter[str] = Counter()

    def load(self, loader: Loader) -> None:
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
        if self.session is not None:
            raise exceptions.OptionsError("cassette options cannot change while recording")
        path = Path(options.cassette)
        try:
            config = Path(options.cassette_config) if options.cassette_config else None
            self.engine = load_project_rules(config, None, Path.cwd())
            self.origin = self._chosen_origin(path)
            if self.origin is not None:
                self.session = RecordingSession(self._settings(self.origin))
            elif options.cassette_mode == "once" and path.exists():
                raise CommerceProxyError(
                    f"{path} exists and cassette_mode once records only new cassettes: "
                    "set cassette_mode=new_episodes to add to it or all to replace it"
                )
        except CommerceProxyError as error:
            raise exceptions.OptionsError(f"commerce-proxy: {error}") from None

    def _chosen_origin(self, path: Path) -> str | None:
        options = ctx.options
        if options.cassette_origin:
            if "://" not in options.cassette_origin:
                raise CommerceProxyError(f"cassette_origin {options.cassette_origin!r}: expected a URL")
            return str(options.cassette_origin).rstrip("/")
        if options.cassette_mode == "new_episodes" and path.exists():
            return read_cassette_file(path).upstream
        return None

    def _policy(self) -> RedactionPolicy:
        engine = self.engine
        assert engine is not None
        return engine.project.redaction.extended(
            headers=ctx.options.cassette_redact_header, json_paths=ctx.options.cassette_redact_json_path
        )

    def _settings(self, upstream: str) -> RecordSettings:
        options = ctx.options
        engine = self.engine
        assert engine is not None
        return RecordSettings(
            upstream=upstream,
            cassette=Path(options.cassette),
            mode=options.cassette_mode,
            redaction=self._policy(),
            rules=engine.ruleset if options.cassette_check else None,
            rule_config=engine.project.config,
        )

    def request(self, flow: http.HTTPFlow) -> None:
        """A request whose credential is the redaction placeholder (built from a replayed answer) is
        answered 401 here: sent on, it would only get the service's refusal recorded."""
        if not ctx.options.cassette or self.engine is None:
            return
        try:
            where = placeholder_credential(request_from_flow(flow), self._policy())
        except BodyTooLarge:
            return  # answered when its response comes
        if where is not None:
            detail = placeholder_refusal(where)
            log.warning(
                "commerce-proxy: %s %s: %s", flow.request.method, flow.request.path.partition("?")[0], detail
            )
            flow.metadata[REFUSED] = True
            flow.response = http.Response.make(
                401,
                dump_json(error_document(401, "Unauthorized", detail)),
                {"Content-Type": "application/json"},
            )

    def response(self, flow: http.HTTPFlow) -> None:
        """Journal and check each completed exchange of the recorded origin."""
        if not ctx.options.cassette or flow.metadata.get(REFUSED):
            return
        try:
            imported = exchange_from_flow(flow)
        except BodyTooLarge as error:  # a gzip bomb: answered as a failure, never inflated whole
            log.error("commerce-proxy: not recorded: %s", error)
            flow.response = http.Response.make(
                502,
                dump_json(error_document(502, "Not recorded", str(error))),
                {"Content-Type": "application/json"},
            )
            return
        if imported is None:
            return
        if self.origin is None:
            self.origin = imported.origin
        if imported.origin != origin_of(self.origin):
            self.skipped[imported.origin] += 1
            return
        if self.session is None:
            try:
                self.session = RecordingSession(self._settings(self.origin))
            except CommerceProxyError as error:
                log.error("commerce-proxy: not recording: %s", error)
                ctx.options.update(cassette="")
                return
        try:
            self.session.keep(imported.exchange)
        except JournalError as error:  # disk full: the client must not take this answer as recorded
            log.error("commerce-proxy: %s", error)
            status = 502 if isinstance(error, NotRecordable) else 507
            detail = f"the server answered {flow.response.status_code if flow.response else '?'}, but {error}"
            flow.response = http.Response.make(
                status,
                dump_json(error_document(status, "Not recorded", detail)),
                {"Content-Type": "application/json"},
            )

    def done(self) -> None:
        """Write the cassette (atomically) when mitmdump stops."""
        if self.session is None:
            return
        cassette = self.session.finish()
        path = ctx.options.cassette
        if cassette is None:
            log.info("commerce-proxy: nothing recorded; %s left as it was", path)
        else:
            log.info("commerce-proxy: wrote %s: %d exchanges", path, len(cassette.exchanges))
        for origin, count in self.skipped.items():
            log.info("commerce-proxy: not recorded: %d exchange(s) with %s (another origin)", count, origin)
        self.session = None


addons = [CassetteRecorder()]
