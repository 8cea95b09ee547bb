"""The `/_proxy/` admin endpoints of the record, spy and replay servers, all in this module.

They answer JSON and are never forwarded, recorded or checked; a path under /_proxy/ that is not
listed here is a 404, and a listed one asked with another method a 405. Every request for one of them,
and for the UI under /_proxy/ui/ when the server has one, first passes the one access decision
(`proxy/core/model/access.py:decide_access`): the UI needs the server's token, a route that changes
state (not GET) needs it in a header and refuses what a browser marks as sent by another origin.

  record, spy  GET /_proxy/health    mode and how many exchanges were recorded
               GET /_proxy/findings  every finding so far (waits for the live checker to catch up)
  replay       GET /_proxy/health    mode and how many exchanges the cassettes hold
               POST /_proxy/reset    rewind every sequence, simulated state and fault plan (token)
               GET /_proxy/usage     recordings never used, requests that missed, simulated answers
               GET /_proxy/findings  the findings of `replay --check`
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Protocol

from proxy.app.recorder import Recorder
from proxy.core.model.access import UI_HEADERS as UI_HEADERS  # what every /_proxy/ answer carries
from proxy.core.model.access import UI_PATH, Refuse, SetCookie, decide_access
from proxy.core.model.bodies import error_document
from proxy.core.model.exchange import Headers
from proxy.core.model.hosts import HostPolicy
from proxy.core.replay.faults import FaultPlan
from proxy.core.replay.usage import usage_report
from proxy.core.rules.engine import LiveChecker
from proxy.server.library import Library
from proxy.server.wire import DROP, Incoming, Outgoing, Reply, Stream, Trickle, json_answer

AdminRoutes = dict[str, tuple[str, Callable[[], Outgoing | Awaitable[Outgoing]]]]


class UiAnswering(Protocol):
    """The UI's routes, as the door hands them a request it let through (`ui_routes.UiRoutes`)."""

    def answer(self, incoming: Incoming, path: str, query: str) -> Reply | Awaitable[Reply]: ...


@dataclass
class Door:
    """A server's `/_proxy/` routes and who may use them: its admin routes, its access token, and its
    UI (None: no UI, its paths are 404s)."""

    routes: AdminRoutes
    token: str
    ui: UiAnswering | None = None

    def has_ui(self) -> bool:
        """Whether the UI is on: then every answer the wire writes outside it is sandboxed."""
        return self.ui is not None


def answer_ours(door: Door, incoming: Incoming, path: str, hosts: HostPolicy) -> Reply | Awaitable[Reply]:
    """The answer to a request for a `/_proxy/` path: the access decision first, then the UI or the
    admin route."""
    ui = path.startswith(UI_PATH) or path == UI_PATH.rstrip("/")
    if ui and door.ui is None:
        return with_ui_headers(admin_not_found(incoming.method, path))
    incoming.for_ui = True  # ours: its answer carries UI_HEADERS (`with_ui_headers`), not the sandbox
    query = incoming.target.partition("?")[2]
    decision = decide_access(  # judged as the route it names, whatever the spelling of the target
        incoming.method,
        path + (f"?{query}" if query else ""),
        incoming.headers,
        door.token,
        hosts,
        incoming.reached_at,
        incoming.reached_port,
    )
    if isinstance(decision, Refuse):
        return json_answer(decision.status, error_document(403, "Forbidden", decision.detail), UI_HEADERS)
    if isinstance(decision, SetCookie):
        headers = (("Location", decision.location), ("Set-Cookie", decision.cookie), *UI_HEADERS.items())
        return Outgoing(303, headers, b"")
    if ui:
        assert door.ui is not None
        if path == UI_PATH.rstrip("/"):
            return Outgoing(308, (("Location", UI_PATH), *UI_HEADERS.items()), b"")
        return with_ui_headers(door.ui.answer(incoming, path, query))
    return with_ui_headers(answer_admin(door.routes, incoming, path))


def with_ui_headers(reply: Reply | Awaitable[Reply]) -> Reply | Awaitable[Reply]:
    """`reply` with each of the UI's security headers it lacks: every answer on a `/_proxy/` path
    carries them (a 404, a 405, an admin route's JSON alike), whichever route made it."""
    if isinstance(reply, Outgoing):
        missing = _missing(reply.headers)
        if not missing:
            return reply
        return Outgoing(reply.status, (*reply.headers, *missing), reply.body, reply.reason, reply.length)
    if isinstance(reply, Stream):
        return replace(reply, headers=(*reply.headers, *_missing(reply.headers)))
    if isinstance(reply, Trickle):
        answer = with_ui_headers(reply.answer)
        assert isinstance(answer, Outgoing)
        return replace(reply, answer=answer)
    if reply is DROP:
        return reply
    return _headed_later(reply)


async def _headed_later(reply: Awaitable[Reply]) -> Reply:
    headed = with_ui_headers(await reply)
    assert not isinstance(headed, Awaitable)
    return headed


def _missing(headers: Headers) -> tuple[tuple[str, str], ...]:
    present = {name.lower() for name, _ in headers}
    return tuple((name, value) for name, value in UI_HEADERS.items() if name.lower() not in present)


def answer_admin(routes: AdminRoutes, incoming: Incoming, path: str) -> Outgoing | Awaitable[Outgoing]:
    """An admin endpoint's answer from `routes` (path: method, builder); 404 or 405 otherwise."""
    method = incoming.method
    known = routes.get(path)
    if known is None:
        return admin_not_found(method, path)
    allowed, build = known
    if method != allowed and not (allowed == "GET" and method == "HEAD"):
        document = error_document(405, "Method Not Allowed", f"{path} takes {allowed}")
        return json_answer(405, document, headers={"Allow": allowed})
    return build()


def ui_closed() -> Outgoing:
    """A UI request that arrives while its server stops (the UI's view closed): 503."""
    document = error_document(503, "Service Unavailable", "the server is stopping: its UI is closed")
    return json_answer(503, document, UI_HEADERS)


def admin_not_found(method: str, path: str) -> Outgoing:
    """Admin paths are ours: an unknown one is a 404, never forwarded or recorded."""
    return json_answer(404, error_document(404, "Not Found", f"no admin endpoint {method} {path}"))


class Recording(Protocol):
    """What the record and spy endpoints read of their server."""

    @property
    def recorder(self) -> Recorder: ...


def record_routes(server: Recording) -> AdminRoutes:
    """The endpoints of `record` and `spy`."""

    def health() -> Outgoing:
        recorder = server.recorder
        return json_answer(
            200, {"status": "ok", "mode": recorder.mode, "recorded": recorder.session.recorded}
        )

    async def findings() -> Outgoing:
        found = await server.recorder.findings()  # every exchange answered so far is in the findings
        return json_answer(200, found.to_json())

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
