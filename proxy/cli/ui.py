"""`ui`: show cassettes, folders of cassettes, journals and HAR files in the web UI, offline."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from proxy.cli import options
from proxy.cli.inputs import load_rules_in_force
from proxy.cli.serving import serve


def add_to(commands: Any, common: argparse.ArgumentParser) -> None:
    ui = commands.add_parser(
        "ui",
        parents=[common],
        help="show cassettes, folders, journals and HAR files in the browser, each exchange with its "
        "findings (offline: nothing is forwarded)",
    )
    ui.add_argument(
        "paths", nargs="+", type=Path, metavar="PATH", help="a cassette, folder, journal or HAR file"
    )
    options.add_serving(ui)
    options.add_wire_limits(ui)
    options.add_rule_options(ui)
    ui.set_defaults(run=run)


def run(arguments: argparse.Namespace) -> int:
    """`ui`: index and check the files, then serve the page until stopped."""
    from proxy.app.ui_setup import filter_parser, offline_ui_view, page_files, ui_token
    from proxy.server.ui_routes import UiRoutes, create_ui_app

    token = ui_token()
    view = offline_ui_view(tuple(arguments.paths), load_rules_in_force(arguments))
    info = view.info()
    server = create_ui_app(UiRoutes(view, filter_parser(), page_files()), token)

    def ready(url: str) -> str:
        return (
            f"commerce-proxy ui: listening on {url} ({info['exchanges']} exchanges from "
            f"{len(info['sources'])} source(s))"
        )

    return serve(server, arguments, ready, token)
