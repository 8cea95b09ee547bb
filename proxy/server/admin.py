"""The `/_proxy/` admin endpoints of the record, spy and replay servers, all in this module.

They answer JSON and are never forwarded, recorded or checked; a path under /_proxy/ that is not
listed here is a 404, and a listed one asked with another method a 405. A route that changes state
(not GET) refuses, with a 403, a request a browser marks as sent by a page on another origin.

  record, spy  GET /_proxy/health    mode and how many exchanges were recorded
               GET /_proxy/findings  every finding so far (waits for the live checker to catch up)
  replay       GET /_proxy/health    mode and how many exchanges the cassettes hold
               POST /_proxy/reset    rewind every sequence, simulated state and fault plan
               GET /_proxy/usage     recordings never used, requests that missed, simulated answers
               GET /_proxy/findings  the findings of `replay --check`
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Protocol

from proxy.app.live_check_worker import CheckWorker
from proxy.app.recording import RecordingSession, RecordSettings
from proxy.core.model.bodies import error_document
from proxy.core.model.hosts import HostPolicy, cross_site_refusal
from proxy.core.replay.faults import FaultPlan
from proxy.core.replay.usage import usage_report
from proxy.core.rules.engine import LiveChecker
from proxy.server.library import Library
from proxy.server.wire import Incoming, Outgoing, json_answer

AdminRoutes = dict[str, tuple[str, Callable[[], Outgoing | Awaitable[Outgoing]]]]


def answer_admin(
    routes: AdminRoutes, incoming: Incoming, path: str, hosts: HostPolicy
) -> Outgoing | Awaitable[Outgoing]:
    """An admin endpoint's answer from `routes` (path: method, builder); 404 or 405 otherwise, and 403
    for a state-changing route asked from a page on another origin."""
    method = incoming.method
    known = routes.get(path)
    if known is None:
        return admin_not_found(method, path)
    allowed, build = known
    if method != allowed and not (allowed == "GET" and method == "HEAD"):
        document = error_document(405, "Method Not Allowed", f"{path} takes {allowed}")
        return json_answer(405, document, headers={"Allow": allowed})
    if allowed != "GET":
        why = cross_site_refusal(incoming.headers, hosts, incoming.reached_at)
        if why is not None:
            detail = f"{method} {path} changes this server's state; refused because {why}"
            return json_answer(403, error_document(403, "Forbidden", detail))
    return build()


def admin_not_found(method: str, path: str) -> Outgoing:
    """Admin paths are ours: an unknown one is a 404, never forwarded or recorded."""
    return json_answer(404, error_document(404, "Not Found", f"no admin endpoint {method} {path}"))


class Recording(Protocol):
    """What the record and spy endpoints read of their server."""

    @property
    def settings(self) -> RecordSettings: ...
    @property
    def recording(self) -> RecordingSession: ...
    @property
    def worker(self) -> CheckWorker | None: ...


def record_routes(server: Recording) -> AdminRoutes:
    """The endpoints of `record` and `spy`."""

    def health() -> Outgoing:
        settings = server.settings
        mode = settings.mode if settings.cassette is not None else "spy"
        return json_answer(200, {"status": "ok", "mode": mode, "recorded": server.recording.recorded})

    async def findings() -> Outgoing:
        if server.worker is not None:
            await server.worker.caught_up()  # every exchange answered so far is in the findings
        return json_answer(200, server.recording.findings.to_json())

    return {"/_proxy/health": ("GET", health), "/_proxy/findings": ("GET", findings)}


class Replaying(Protocol):
    """What the replay endpoints read of their server."""

    @property
    def library(self) -> Library: ...
    @property
    def plan(self) -> FaultPlan: ...
    @property
    def live(self) -> LiveChecker | None: ...


def replay_routes(server: Replaying) -> AdminRoutes:
    """The endpoints of `replay`."""

    def health() -> Outgoing:
        held = len(server.library.default.recordings)
        return json_answer(200, {"status": "ok", "mode": "replay", "exchanges": held})

    def reset() -> Outgoing:
        server.library.reset()
        server.plan.reset()
        return json_answer(200, {"status": "ok", "rewound": True})

    def usage() -> Outgoing:
        return json_answer(200, usage_report(server.library.books()))

    def findings() -> Outgoing:
        if server.live is None:
            return json_answer(
                404, error_document(404, "Not Found", "replay is not checking: start it with --check")
            )
        return json_answer(200, server.live.log.to_json())

    return {
        "/_proxy/health": ("GET", health),
        "/_proxy/reset": ("POST", reset),
        "/_proxy/usage": ("GET", usage),
        "/_proxy/findings": ("GET", findings),
    }
