"""What the commands that serve until stopped share: the wire limits applied, the ready line, serving.

The server modules are imported when a command runs, so other commands do not pay for them.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING

from proxy.cli.output import say

if TYPE_CHECKING:
    from proxy.server.serving import Servable


def announce(message: str) -> None:
    """The ready line (`listening on http://HOST:PORT ...`): on stdout, at once, for scripts to wait on."""
    say(message, flush=True)


def serve(app: Servable, arguments: argparse.Namespace, ready: Callable[[str], str]) -> int:
    """Serve `app` with the command line's wire limits and allowed hosts until stopped; `ready(url)` is the
    ready line."""
    from proxy.server.serving import run_served, serve_until_stopped
    from proxy.server.wire import WireServer

    if isinstance(app, WireServer):
        from proxy.core.model.hosts import HostPolicy

        app.head_seconds = arguments.head_timeout
        app.max_connections = arguments.max_connections
        app.hosts = HostPolicy.of(arguments.allow_host, allowing="--allow-host NAME")
    run_served(serve_until_stopped(app, arguments.host, arguments.port, lambda url: announce(ready(url))))
    return 0
