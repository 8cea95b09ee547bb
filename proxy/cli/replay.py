"""`replay`: serve cassettes offline as a fake backend."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from proxy.cli import options
from proxy.cli.inputs import load_rules_in_force, matching_from, named_cassettes, redaction_from, show_notes
from proxy.cli.serving import serve


def add_to(commands: Any, common: argparse.ArgumentParser) -> None:
    replay = commands.add_parser("replay", parents=[common], help="serve cassettes offline as a fake backend")
    replay.add_argument(
        "--cassette",
        metavar="PATH",
        type=Path,
        action="append",
        help="a cassette file or folder; repeatable",
    )
    replay.add_argument(
        "--examples", action="store_true", help="serve the shipped example cassettes (as `demo` records them)"
    )
    replay.add_argument(
        "--simulate",
        action="store_true",
        help="answer unrecorded list windows, feature updates and entry reads/changes from what the "
        "cassettes know (marked X-Commerce-Proxy: simulated)",
    )
    replay.add_argument(
        "--cassette-dir",
        metavar="DIR",
        type=Path,
        help="where X-Commerce-Cassette: NAME looks for NAME.yaml (default: the first --cassette folder)",
    )
    replay.add_argument(
        "--latency",
        default="none",
        metavar="recorded|none|MS",
        help="wait as long as the upstream took when recorded, not at all (default), or MS milliseconds",
    )
    replay.add_argument(
        "--fault",
        metavar="KIND:SHARE[:MATCHER]",
        action="append",
        default=[],
        help="answer a share of requests with a fault: KIND is 429, 500, 503, drop or slow; SHARE like 0.1 "
        "or 10%%; MATCHER like 'GET /v2/orders*'; repeatable, the first that fires wins",
    )
    replay.add_argument(
        "--time",
        choices=("now", "recorded"),
        default="now",
        help="now (default): a replayed token answer's expires is now plus its expires_in, and its Date "
        "now, so a client does not sign in again and again; recorded: both as recorded",
    )
    replay.add_argument("--fault-seed", type=int, default=0, metavar="N", help="which requests faults hit")
    replay.add_argument(
        "--slow-body-ms", type=float, default=3000.0, metavar="MS", help="how long a slow body takes"
    )
    replay.add_argument(
        "--usage-report",
        metavar="FILE",
        type=Path,
        help="at shutdown, write which recordings were never used and which requests missed (JSON)",
    )
    replay.add_argument(
        "--check",
        action="store_true",
        help="check every answer served, with the request that got it, against the rules "
        "(findings logged and at /_proxy/findings)",
    )
    options.add_serving(replay)
    options.add_wire_limits(replay)
    options.add_matching(replay)
    options.add_redaction(replay)
    options.add_rule_options(replay)
    replay.set_defaults(run=run)


def run(arguments: argparse.Namespace) -> int:
    """`replay` (and `record --mode none`): serve cassettes until stopped."""
    from proxy.app.replay_setup import ReplayRequest, build_book, replay_settings
    from proxy.server.replay import create_replay_app

    paths = named_cassettes(arguments.cassette, arguments, "replay")
    usage = getattr(arguments, "usage_report", None)
    if usage is not None:
        from proxy.cli.report_path import refuse_bad_output

        folder = getattr(arguments, "cassette_dir", None)
        refuse_bad_output(arguments, usage, [*paths, *([folder] if folder else [])], "the usage report")
    settings = replay_settings(
        ReplayRequest(
            cassette_dir=getattr(arguments, "cassette_dir", None),
            latency=getattr(arguments, "latency", "none"),
            faults=tuple(getattr(arguments, "fault", ())),
            fault_seed=getattr(arguments, "fault_seed", 0),
            slow_body_ms=getattr(arguments, "slow_body_ms", 3000.0),
            usage_report=getattr(arguments, "usage_report", None),
            time=getattr(arguments, "time", "now"),
        ),
        paths,
    )
    engine = load_rules_in_force(arguments)
    book, loaded = build_book(
        paths,
        matching_from(arguments, engine.project.match),
        redaction_from(arguments, engine.project.redaction),
        simulate=getattr(arguments, "simulate", False),
    )
    show_notes(loaded)
    # `record --mode none` replays, and checks unless told --no-check, as record itself does.
    checking = getattr(arguments, "check", False) or not getattr(arguments, "no_check", True)
    live = None
    if checking:
        from proxy.core.rules.engine import Checker, LiveChecker

        live = LiveChecker(Checker(engine.ruleset, engine.project.config))

    def ready(url: str) -> str:
        checked = f", checking against the rules (findings at {url}/_proxy/findings)" if live else ""
        return (
            f"commerce-proxy replay: listening on {url} "
            f"({len(book.recordings)} exchanges from {len(loaded)} cassette(s){checked})"
        )

    return serve(create_replay_app(book, settings, live), arguments, ready)
