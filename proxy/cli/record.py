"""`record`: proxy to a live upstream and record every exchange into a cassette."""

from __future__ import annotations

import argparse
from pathlib import Path
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
    record = commands.add_parser(
        "record", parents=[common], help="proxy to a live upstream and record a cassette"
    )
    options.add_upstream(record)
    record.add_argument(
        "--cassette", metavar="PATH", type=Path, required=True, help="the cassette to record into"
    )
    record.add_argument(
        "--mode",
        choices=("once", "new_episodes", "all", "none"),
        default="once",
        help="once (default): only a new cassette; new_episodes: add what is missing; "
        "all: re-record everything; none: replay only",
    )
    record.add_argument(
        "--no-check", action="store_true", help="do not check traffic against the rules while recording"
    )
    options.add_serving(record)
    options.add_wire_limits(record)
    options.add_matching(record)
    options.add_redaction(record)
    options.add_rule_options(record)
    record.set_defaults(run=run)


def run(arguments: argparse.Namespace) -> int:
    """`record`: forward to the upstream and record until stopped (`--mode none` replays)."""
    if arguments.mode == "none":
        from proxy.cli import replay

        return replay.run(argparse.Namespace(**{**vars(arguments), "cassette": [arguments.cassette]}))
    from proxy.app.recording import RecordSettings
    from proxy.core.replay.matching import MatchPolicy
    from proxy.core.rules.config import RuleConfig
    from proxy.server.record import create_record_app

    upstream = checked_upstream(arguments.upstream, "record")
    loaded_engine = load_engine(arguments)
    engine = None if arguments.no_check else loaded_engine
    settings = RecordSettings(
        upstream=upstream,
        upstream_authorization=upstream_authorization(arguments.upstream),
        cassette=arguments.cassette,
        mode=arguments.mode,
        redaction=redaction_from(arguments, loaded_engine.project.redaction),
        match=MatchPolicy.parse(arguments.match_on, arguments.ignore_query),
        upstream_timeout=arguments.upstream_timeout,
        max_body_bytes=arguments.max_body_bytes,
        ca_bundle=arguments.ca_bundle,
        rules=engine.ruleset if engine else None,
        rule_config=engine.project.config if engine else RuleConfig(),
        rule_source=rule_source(arguments),
    )

    def ready(url: str) -> str:
        checking = "checking against the rules" if engine else "not checking"
        return (
            f"commerce-proxy record: listening on {url}, forwarding to {upstream}, "
            f"recording into {settings.cassette} (mode {settings.mode}, {checking}; "
            f"findings at {url}/_proxy/findings)"
        )

    return serve(create_record_app(settings), arguments, ready)
