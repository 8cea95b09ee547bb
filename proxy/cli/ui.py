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
        "paths",
        nargs="+",
        type=Path,
        metavar="PATH",
        help="a cassette, folder, journal or HAR file, or a `verify --format json` report to compare",
    )
    options.add_serving(ui)
    options.add_wire_limits(ui)
    options.add_rule_options(ui)
    options.add_contract_options(ui)
    ui.set_defaults(run=run)


def run(arguments: argparse.Namespace) -> int:
    """`ui`: index and check the files, then serve the page until stopped."""
    from proxy.app.ui_setup import filter_parser, offline_ui_setting, offline_ui_view, page_files, ui_token
    from proxy.cli.inputs import rule_choice
    from proxy.cli.serving import ui_actions
    from proxy.server.ui_routes import UiRoutes, create_ui_app

    token = ui_token()
    in_force = load_rules_in_force(arguments)
    setting = offline_ui_setting(in_force, rule_choice(arguments))  # its specs read before the view
    view = offline_ui_view(tuple(arguments.paths), in_force)
    info = view.info()
    routes = UiRoutes(view, filter_parser(), page_files(), actions=ui_actions(view, setting))
    server = create_ui_app(routes, token)

    def ready(url: str) -> str:
        return (
            f"commerce-proxy ui: listening on {url} ({info['exchanges']} exchanges from "
            f"{len(info['sources'])} source(s))"
        )

    return serve(server, arguments, ready, token)
