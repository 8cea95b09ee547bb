"""`spy`: proxy to a live upstream and check every exchange against the rules; writes nothing."""

from __future__ import annotations

import argparse
from typing import Any

from proxy.cli import options
from proxy.cli.inputs import (
    checked_upstream,
    load_engine,
    redaction_from,
    rule_source,
    upstream_authorization,
)
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
    from proxy.app.recording import RecordSettings
    from proxy.server.record import create_record_app

    upstream = checked_upstream(arguments.upstream, "spy")
    engine = load_engine(arguments)
    settings = RecordSettings(
        upstream=upstream,
        upstream_authorization=upstream_authorization(arguments.upstream),
        cassette=None,
        redaction=redaction_from(arguments, engine.project.redaction),
        upstream_timeout=arguments.upstream_timeout,
        max_body_bytes=arguments.max_body_bytes,
        ca_bundle=arguments.ca_bundle,
        rules=engine.ruleset,
        rule_config=engine.project.config,
        rule_source=rule_source(arguments),
    )

    def ready(url: str) -> str:
        return (
            f"commerce-proxy spy: listening on {url}, forwarding to {upstream}, checking "
            f"{len(engine.ruleset.rules)} rules (findings at {url}/_proxy/findings)"
        )

    return serve(create_record_app(settings), arguments, ready)
