"""`spy`: proxy to a live upstream and check every exchange against the rules; writes nothing."""

from __future__ import annotations

import argparse
from typing import Any

from proxy.cli import options
from proxy.cli.inputs import forwarding_settings
from proxy.cli.serving import serve


def add_to(commands: Any, common: argparse.ArgumentParser) -> None:
    spy = commands.add_parser(
        "spy",
        parents=[common],
        help="proxy to a live upstream and check every exchange against the rules; writes nothing",
    )
    options.add_upstream(spy)
    options.add_serving(spy)
    options.add_wire_limits(spy)
    options.add_redaction(spy)
    options.add_rule_options(spy)
    spy.set_defaults(run=run)


def run(arguments: argparse.Namespace) -> int:
    """`spy`: forward to the upstream and check every exchange live until stopped."""
    from proxy.server.record import create_record_app

    settings = forwarding_settings(arguments, "spy")
    rules = len(settings.rules.rules) if settings.rules else 0
    upstream = settings.upstream

    def ready(url: str) -> str:
        return (
            f"commerce-proxy spy: listening on {url}, forwarding to {upstream}, checking "
            f"{rules} rules (findings at {url}/_proxy/findings)"
        )

    return serve(create_record_app(settings), arguments, ready)
