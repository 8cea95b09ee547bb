"""`spy`: proxy to a live upstream and check every exchange against the rules; writes nothing."""

from __future__ import annotations

import argparse
from typing import Any

from proxy.cli import options
from proxy.cli.inputs import forward_request
from proxy.cli.reporting import add_live_report, live_report, serve_reported


def add_to(commands: Any, common: argparse.ArgumentParser) -> None:
    spy = commands.add_parser(
        "spy",
        parents=[common],
        help="proxy to a live upstream and check every exchange against the rules; writes no "
        "cassette (--format/-o: a report at stop; --fail-on: the exit status)",
    )
    options.add_upstream(spy)
    options.add_serving(spy)
    options.add_ui(spy)
    options.add_wire_limits(spy)
    options.add_redaction(spy)
    options.add_contract_options(spy)
    options.add_rule_options(spy)
    add_live_report(spy)
    spy.set_defaults(run=run)


def run(arguments: argparse.Namespace) -> int:
    """`spy`: forward to the upstream and check every exchange live until stopped."""
    from proxy.app.record_setup import forwarding_settings
    from proxy.cli.serving import open_live_ui
    from proxy.server.record import RecordProxy

    asked = forward_request(arguments, "spy")
    in_force = asked.rules.load()
    settings = forwarding_settings(asked, in_force)
    report = live_report(asked.report, settings.upstream, [])  # spy reads no cassette
    rules = len(settings.rules.rules) if settings.rules else 0
    upstream = settings.upstream

    def ready(url: str) -> str:
        return (
            f"commerce-proxy spy: listening on {url}, forwarding to {upstream}, checking "
            f"{rules} rules (findings at {url}/_proxy/findings)"
        )

    proxy = RecordProxy(settings)
    token = open_live_ui(arguments, "spy", proxy, in_force, [upstream])
    return serve_reported(proxy, arguments, ready, report, "commerce-proxy spy", asked.report, token)
