"""`replay`: serve cassettes offline as a fake backend; `record --mode none` serves through here too."""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from proxy.app.replay_setup import SLOW_BODY_MS, ReplayOptions, ReplayRequest
from proxy.cli import options
from proxy.cli.inputs import command_matching, extra_redaction, rule_choice, show_notes
from proxy.cli.serving import open_live_ui, serve
from proxy.core.replay.faults import Fault, Latency
from proxy.errors import UsageError


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
        "--slow-body-ms", type=float, default=SLOW_BODY_MS, metavar="MS", help="how long a slow body takes"
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
    options.add_ui(replay)
    options.add_wire_limits(replay)
    options.add_matching(replay)
    options.add_redaction(replay)
    options.add_contract_options(replay)
    options.add_rule_options(replay)
    replay.set_defaults(run=run)


def run(arguments: argparse.Namespace) -> int:
    """`replay`: serve cassettes until stopped."""
    return serve_replay(request_of(arguments, arguments.cassette or ()), arguments)


def request_of(arguments: argparse.Namespace, cassettes: Iterable[Path]) -> ReplayRequest:
    """The typed request `replay`'s arguments make, built once."""
    folder = arguments.cassette_dir
    if folder is not None and not folder.is_dir():
        raise UsageError(f"--cassette-dir {folder}: not a folder")
    if not 0 <= arguments.slow_body_ms <= 600_000:
        raise UsageError(f"--slow-body-ms {arguments.slow_body_ms:g}: must be 0 to 600000")
    return ReplayRequest(
        cassettes=tuple(cassettes),
        examples=arguments.examples,
        options=ReplayOptions(
            folder=folder,
            latency=Latency.parse(arguments.latency),
            faults=tuple(Fault.parse(text) for text in arguments.fault),
            fault_seed=arguments.fault_seed,
            slow_body_ms=arguments.slow_body_ms,
            usage_report=arguments.usage_report,
            time=arguments.time,
        ),
        simulate=arguments.simulate,
        check=arguments.check,
        match=command_matching(arguments),
        redact=extra_redaction(arguments),
        rules=rule_choice(arguments),
    )


def serve_replay(asked: ReplayRequest, arguments: argparse.Namespace) -> int:
    """Serve the replay `asked` for (by `replay`, or `record --mode none`) with the command line's
    serving options until stopped."""
    from proxy.app.replay_setup import prepare_replay
    from proxy.server.replay import Replayer

    replay = prepare_replay(asked)
    show_notes(replay.loaded)
    book, live = replay.book, replay.live

    def ready(url: str) -> str:
        checked = f", checking against the rules (findings at {url}/_proxy/findings)" if live else ""
        return (
            f"commerce-proxy replay: listening on {url} "
            f"({len(book.recordings)} exchanges from {len(replay.loaded)} cassette(s){checked})"
        )

    replayer = Replayer(book, replay.options, live)
    loaded = [str(one.path) for one in replay.loaded]
    token = open_live_ui(arguments, "replay", replayer, replay.in_force, loaded)
    return serve(replayer.server, arguments, ready, token)
