"""What the commands that serve until stopped share: the wire limits applied, the ready line, serving.

The server modules are imported when a command runs, so other commands do not pay for them.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import inspect
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, cast

from proxy.cli.output import say

if TYPE_CHECKING:
    from proxy.app.live_ui import LiveUi
    from proxy.app.project_rules import RulesInForce
    from proxy.app.traffic_view import TrafficView
    from proxy.app.ui_action_cases import ActionSetting, Send
    from proxy.core.model.exchange import Request, Response
    from proxy.server.record import RecordProxy
    from proxy.server.replay import Replayer
    from proxy.server.serving import Servable
    from proxy.server.ui_action_routes import ActionRoutes
    from proxy.server.ui_routes import UiRoutes
    from proxy.server.wire import Incoming, Reply


SETTLE_S = 3.0  # at most, that a first UI API call waits for what came before it to be indexed
API_PREFIX = "/_proxy/ui/api/"  # the calls that wait (the page's files answer at once)


def announce(message: str) -> None:
    """The ready line (`listening on http://HOST:PORT ...`): on stdout, at once, for scripts to wait on."""
    say(message, flush=True)


def serve(
    app: Servable, arguments: argparse.Namespace, ready: Callable[[str], str], ui_token: str | None = None
) -> int:
    """Serve `app` with the command line's wire limits and allowed hosts until stopped; `ready(url)` is the
    ready line, followed by the UI's address with its token when the server has a UI."""
    from proxy.core.model.access import ui_address
    from proxy.server.serving import run_served, serve_until_stopped
    from proxy.server.wire import WireServer

    if isinstance(app, WireServer):
        from proxy.core.model.hosts import HostPolicy

        app.head_seconds = arguments.head_timeout
        app.max_connections = arguments.max_connections
        app.hosts = HostPolicy.of(arguments.allow_host, allowing="--allow-host NAME")

    def announced(url: str) -> None:
        announce(ready(url))
        if ui_token is not None:
            announce(f"ui: {ui_address(url, ui_token)}")

    run_served(serve_until_stopped(app, arguments.host, arguments.port, announced))
    return 0


def ui_actions(view: TrafficView, setting: ActionSetting | None) -> ActionRoutes | None:
    """The UI's action routes over `view` (None: no setting, no actions)."""
    if setting is None:
        return None
    from proxy.app.ui_action_cases import UiActions
    from proxy.app.ui_setup import filter_parser
    from proxy.server.ui_action_routes import ActionRoutes

    return ActionRoutes(UiActions(view, setting), filter_parser())


def open_live_ui(
    arguments: argparse.Namespace,
    mode: str,
    served: RecordProxy | Replayer,
    in_force: RulesInForce,
    sources: Sequence[str],
    cassette: str | None = None,
) -> str | None:
    """The UI of `record`, `spy` or `replay` (`mode`) on its server, unless `--no-ui`; the token to
    print (None: no UI). `in_force`: the rules the command loaded, shown as it checks with them."""
    if arguments.no_ui:
        return None
    live_ui_on(mode, served, in_force, sources, cassette)
    return served.door.token


def live_ui_on(
    mode: str,
    served: RecordProxy | Replayer,
    in_force: RulesInForce,
    sources: Sequence[str],
    cassette: str | None = None,
) -> LiveUi:
    """The live UI use case (`proxy.app.live_ui`) wired to a server's traffic and routes, closed by
    the server's cleanup; the commands' and the pytest plugin's (`--commerce-ui`) one way to open it."""
    from proxy.app.live_ui import LiveUiRequest, live_ui

    caught_up: Callable[[], Awaitable[None]] | None = None  # record, spy: their checker's
    if mode == "replay":  # no isinstance: the other command's server module is not imported
        replayer = cast("Replayer", served)
        ui = live_ui(LiveUiRequest(mode, in_force, replayer.library.default.redaction, sources))
        replayer.shown = ui.answered
    else:
        proxy = cast("RecordProxy", served)
        settings = proxy.settings
        asked = LiveUiRequest(
            mode,
            in_force,
            settings.redaction,
            sources,
            cassette,
            upstream=settings.upstream,
            send=_resend_through(proxy),
            sends_authorization=proxy.pool.authorization is not None,
            # a checker in its own process makes the entries there (the in-process one has no such call)
            checker_entries=getattr(proxy.recording.live, "make_entries", None),
        )
        ui = live_ui(asked)
        proxy.recording.follow(ui.checked)
        caught_up = proxy.recorder.caught_up
    routes = RoutesOnDemand(ui, caught_up)
    served.door.ui = routes

    async def close() -> None:  # after the server's own cleanup: a record's cassette is written first
        ui.close()

    served.server.on_stopping.append(routes.stop)
    served.server.on_drained.append(routes.finish)
    served.server.on_cleanup.append(close)
    return ui


class RoutesOnDemand:
    """A live server's UI routes, made by the first UI request: a server nobody looks at never reads
    the page's files or imports the actions."""

    def __init__(self, ui: LiveUi, caught_up: Callable[[], Awaitable[None]] | None = None) -> None:
        self._ui = ui
        self._routes: UiRoutes | None = None
        self._caught_up = caught_up  # a recording's live checker: every exchange answered is checked
        self._settled = False  # an API call has waited for what came before the first one

    def answer(self, incoming: Incoming, path: str, query: str) -> Reply | Awaitable[Reply]:
        view = self._ui.view()
        if view is None:  # a late request while the server stops: its UI is closed
            from proxy.server.admin import ui_closed

            return ui_closed()
        if self._routes is None:
            from proxy.app.ui_setup import filter_parser, page_files
            from proxy.server.ui_routes import UiRoutes

            actions = ui_actions(view, self._ui.setting())
            self._routes = UiRoutes(view, filter_parser(), page_files(), actions=actions)
        if path.startswith(API_PREFIX) and not self._settled:  # what came before: indexed first
            return self._settled_answer(self._routes, incoming, path, query)
        return self._routes.answer(incoming, path, query)

    def stop(self) -> None:
        """At a stop, before anything else: an action not done yet is given up (`UiRoutes.stop`)."""
        if self._routes is not None:
            self._routes.stop()

    async def finish(self) -> None:
        """At a stop, once every answer is given: index them all (as `_settled_answer` waits), then end
        the page's event streams after their last rows. Nothing to do if no page came."""
        if self._routes is None:
            return
        await self._settle()
        self._routes.finish()

    async def _settle(self) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + SETTLE_S
        if self._caught_up is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._caught_up(), SETTLE_S)
        await asyncio.to_thread(self._ui.settled, max(0.0, deadline - loop.time()))

    async def _settled_answer(self, routes: UiRoutes, incoming: Incoming, path: str, query: str) -> Reply:
        """The answer once every exchange answered before it is indexed: checked (a recording's checker
        answers a moment after the client got its answer), handed over from the backlog and flushed
        into the index, however quickly the hand-over went (waited for off the loop, SETTLE_S in all at
        most: longer, the answer has what is indexed by then)."""
        await self._settle()
        self._settled = True
        answer = routes.answer(incoming, path, query)
        return await answer if inspect.isawaitable(answer) else answer


def _resend_through(proxy: RecordProxy) -> Send:
    """A resend through the server's own upstream client (its module imported on the first one)."""

    async def send(request: Request) -> Response:
        from proxy.server.ui_action_routes import pool_sender

        return await pool_sender(proxy.pool)(request)

    return send
