"""What the commands that serve until stopped share: the wire limits applied, the ready line, serving.

The server modules are imported when a command runs, so other commands do not pay for them.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING

from proxy.cli.output import say

if TYPE_CHECKING:
    from proxy.app.project_rules import RulesInForce
    from proxy.app.traffic_view import TrafficView
    from proxy.app.ui_action_cases import ActionSetting
    from proxy.server.admin import Door
    from proxy.server.record import RecordProxy
    from proxy.server.serving import Servable
    from proxy.server.ui_action_routes import ActionRoutes
    from proxy.server.wire import WireServer


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


def open_ui(door: Door, server: WireServer, view: TrafficView, setting: ActionSetting | None = None) -> str:
    """Serve the UI over `view` on a server's door (closed with the server), with its actions when a
    `setting` says what they may do; the token to print."""
    from proxy.app.ui_setup import filter_parser, page_files
    from proxy.server.ui_routes import UiRoutes, attach_ui

    attach_ui(door, server, UiRoutes(view, filter_parser(), page_files(), actions=ui_actions(view, setting)))
    return door.token


def ui_actions(view: TrafficView, setting: ActionSetting | None) -> ActionRoutes | None:
    """The UI's action routes over `view` (None: no setting, no actions)."""
    if setting is None:
        return None
    from proxy.app.ui_action_cases import UiActions
    from proxy.app.ui_setup import filter_parser
    from proxy.server.ui_action_routes import ActionRoutes

    return ActionRoutes(UiActions(view, setting), filter_parser())


def forwarding_actions(mode: str, proxy: RecordProxy, in_force: RulesInForce) -> ActionSetting:
    """What the actions of `record` and `spy` may do: resend through the server's upstream client."""
    from proxy.app.ui_action_cases import ActionSetting
    from proxy.server.ui_action_routes import pool_sender

    settings = proxy.settings
    return ActionSetting(
        mode,
        in_force,
        upstream=settings.upstream,
        send=pool_sender(proxy.pool),
        policy=settings.redaction,
        sends_authorization=proxy.pool.authorization is not None,
    )
