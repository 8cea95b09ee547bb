"""`record`: proxy to a live upstream and record every exchange into a cassette."""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from proxy.app.recording_defaults import DEFAULT_MODE, RECORD_MODES
from proxy.cli import options
from proxy.cli.inputs import command_matching, forward_request
from proxy.cli.reporting import add_live_report, live_report, serve_reported
from proxy.errors import JOURNAL_KEPT

if TYPE_CHECKING:
    from proxy.app.record_setup import ForwardRequest
    from proxy.app.replay_setup import ReplayRequest


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
        choices=RECORD_MODES,
        default=DEFAULT_MODE,
        help="once (default): only a new cassette; new_episodes: add what is missing; "
        "all: re-record everything; none: replay only",
    )
    record.add_argument(
        "--fresh",
        action="store_true",
        help="with --mode all, write every exchange anew; by default one whose answer changed only in "
        "volatile values (timestamps, Date, a moved ETag...) keeps its recorded entry, byte for byte",
    )
    record.add_argument(
        "--no-check", action="store_true", help="do not check traffic against the rules while recording"
    )
    options.add_serving(record)
    options.add_ui(record)
    options.add_wire_limits(record)
    options.add_matching(record)
    options.add_redaction(record)
    options.add_contract_options(record)
    options.add_rule_options(record)
    add_live_report(record)
    record.set_defaults(run=run)


def run(arguments: argparse.Namespace) -> int:
    """`record`: forward to the upstream and record until stopped (`--mode none` replays)."""
    if arguments.mode == "none":
        from proxy.cli import replay
        from proxy.errors import UsageError

        if arguments.format or arguments.output or arguments.fail_on:
            raise UsageError("record --mode none replays: --format, -o and --fail-on report a recording")

        return replay.serve_replay(replaying(arguments), arguments)
    from proxy.app.record_setup import forwarding_settings
    from proxy.cli.serving import open_live_ui
    from proxy.server.record import RecordProxy

    proxy: RecordProxy | None = None
    try:
        asked = recording(arguments)
        in_force = asked.rules.load()
        settings = forwarding_settings(asked, in_force)
        report = live_report(asked.report, str(arguments.cassette), [arguments.cassette])
        checking = settings.rules is not None
        upstream = settings.upstream

        def ready(url: str) -> str:
            checked = "checking against the rules" if checking else "not checking"
            return (
                f"commerce-proxy record: listening on {url}, forwarding to {upstream}, "
                f"recording into {settings.cassette} (mode {settings.mode}, {checked}; "
                f"findings at {url}/_proxy/findings)"
            )

        proxy = RecordProxy(settings)
        cassette = str(arguments.cassette)
        token = open_live_ui(arguments, "record", proxy, in_force, [cassette], cassette)
        return serve_reported(proxy, arguments, ready, report, "commerce-proxy record", asked.report, token)
    except KeyboardInterrupt:  # stopped as it started, or at once by a second signal
        if proxy is not None and proxy.recording.recorded:
            raise KeyboardInterrupt(JOURNAL_KEPT) from None
        if proxy is not None:
            proxy.recording.let_go_if_empty()
        raise


def recording(arguments: argparse.Namespace) -> ForwardRequest:
    """`record`'s typed request: `spy`'s, plus its cassette, mode and matching."""
    return replace(
        forward_request(arguments, "record"),
        cassette=arguments.cassette,
        mode=arguments.mode,
        fresh=arguments.fresh,
        check=not arguments.no_check,
        match=command_matching(arguments),
    )


def replaying(arguments: argparse.Namespace) -> ReplayRequest:
    """`record --mode none`'s typed replay request: its one cassette, replayed with the record
    command's matching, redaction and rules, checked unless told `--no-check`."""
    from proxy.app.replay_setup import ReplayRequest
    from proxy.cli.inputs import extra_redaction, rule_choice

    return ReplayRequest(
        cassettes=(arguments.cassette,),
        check=not arguments.no_check,
        match=command_matching(arguments),
        redact=extra_redaction(arguments),
        rules=rule_choice(arguments),
    )
