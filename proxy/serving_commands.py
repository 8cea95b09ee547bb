"""The commands that serve until stopped (`replay`, `record`, `spy`, `sandbox`) and `demo`: each checks
its arguments, builds its app and hands it to the server, announcing where it listens.

The server modules are imported when a command runs, so other commands do not pay for them.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from proxy.command_inputs import (
    checked_upstream,
    load_engine,
    named_cassettes,
    redaction_from,
    rule_source,
    show_notes,
    upstream_authorization,
)
from proxy.core.replay.matching import MatchPolicy
from proxy.core.rules.config import RuleConfig
from proxy.errors import UsageError
from proxy.store.files import Loaded, load_cassettes
from proxy.store.outputs import refuse_overwrite

if TYPE_CHECKING:
    from proxy.core.replay.book import ReplayBook
    from proxy.server.replay import ReplayOptions
    from proxy.server.wire import WireServer


def _announce(message: str) -> None:
    print(message, flush=True)


def build_book(paths: list[Path], arguments: argparse.Namespace) -> tuple[ReplayBook, list[Loaded]]:
    """Load the cassettes and index them for replay."""
    from proxy.core.replay.book import ReplayBook  # the serving commands' import, not `check`'s

    policy = MatchPolicy.parse(arguments.match_on, arguments.ignore_query)
    loaded = load_cassettes(paths)
    show_notes(loaded)
    book = ReplayBook.build(
        [(str(one.path), one.cassette) for one in loaded],
        policy,
        redaction_from(arguments),
        simulate=getattr(arguments, "simulate", False),
    )
    return book, loaded


def run_replay(arguments: argparse.Namespace) -> int:
    """`replay`: serve cassettes until stopped."""
    from proxy.server.replay import create_replay_app
    from proxy.server.serving import run_served, serve_until_stopped

    paths = named_cassettes(arguments.cassette, arguments, "replay")
    options = replay_options(arguments, paths)
    book, loaded = build_book(paths, arguments)
    # `record --mode none` replays, and checks unless told --no-check, as record itself does.
    checking = getattr(arguments, "check", False) or not getattr(arguments, "no_check", True)
    live = None
    if checking:
        from proxy.core.rules.engine import Checker, LiveChecker

        engine = load_engine(arguments)
        live = LiveChecker(Checker(engine.ruleset, engine.project.config))
    app = _limited(create_replay_app(book, options, live), arguments)

    def ready(url: str) -> None:
        checked = f", checking against the rules (findings at {url}/_proxy/findings)" if live else ""
        _announce(
            f"commerce-proxy replay: listening on {url} "
            f"({len(book.recordings)} exchanges from {len(loaded)} cassette(s){checked})"
        )

    run_served(serve_until_stopped(app, arguments.host, arguments.port, ready))
    return 0


def replay_options(arguments: argparse.Namespace, paths: list[Path]) -> ReplayOptions:
    """Cassette folder, timing, faults and usage report from the command line (checked before serving)."""
    from proxy.core.replay.faults import Fault, Latency
    from proxy.server.replay import ReplayOptions

    folder = getattr(arguments, "cassette_dir", None)
    if folder is not None and not folder.is_dir():
        raise UsageError(f"--cassette-dir {folder}: not a folder")
    if folder is None:
        folder = next((path for path in paths if path.is_dir()), None)
    usage_report = getattr(arguments, "usage_report", None)
    if usage_report is not None:
        refuse_overwrite(usage_report, paths, "the usage report")
    slow = getattr(arguments, "slow_body_ms", 3000.0)
    if not 0 <= slow <= 600_000:
        raise UsageError(f"--slow-body-ms {slow:g}: must be 0 to 600000")
    return ReplayOptions(
        folder=folder,
        latency=Latency.parse(getattr(arguments, "latency", "none")),
        faults=tuple(Fault.parse(text) for text in getattr(arguments, "fault", [])),
        fault_seed=getattr(arguments, "fault_seed", 0),
        slow_body_ms=slow,
        usage_report=usage_report,
    )


def run_record(arguments: argparse.Namespace) -> int:
    """`record`: forward to the upstream and record until stopped."""
    if arguments.mode == "none":
        return run_replay(argparse.Namespace(**{**vars(arguments), "cassette": [arguments.cassette]}))
    from proxy.server.record import RecordSettings, create_record_app
    from proxy.server.serving import run_served, serve_until_stopped

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
    app = _limited(create_record_app(settings), arguments)

    def ready(url: str) -> None:
        checking = "checking against the rules" if engine else "not checking"
        _announce(
            f"commerce-proxy record: listening on {url}, forwarding to {upstream}, "
            f"recording into {settings.cassette} (mode {settings.mode}, {checking}; "
            f"findings at {url}/_proxy/findings)"
        )

    run_served(serve_until_stopped(app, arguments.host, arguments.port, ready))
    return 0


def run_spy(arguments: argparse.Namespace) -> int:
    """`spy`: forward to the upstream and check every exchange live; no cassette is written."""
    from proxy.server.record import RecordSettings, create_record_app
    from proxy.server.serving import run_served, serve_until_stopped

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
    app = _limited(create_record_app(settings), arguments)

    def ready(url: str) -> None:
        _announce(
            f"commerce-proxy spy: listening on {url}, forwarding to {upstream}, checking "
            f"{len(engine.ruleset.rules)} rules (findings at {url}/_proxy/findings)"
        )

    run_served(serve_until_stopped(app, arguments.host, arguments.port, ready))
    return 0


def _limited(app: WireServer, arguments: argparse.Namespace) -> WireServer:
    """The server with the wire limits the command line set."""
    app.head_seconds = arguments.head_timeout
    app.max_connections = arguments.max_connections
    return app


def run_sandbox(arguments: argparse.Namespace) -> int:
    """`sandbox`: serve the in-memory stand-in for the real service."""
    from proxy.sandbox.app import SandboxSettings, create_sandbox_app
    from proxy.server.serving import run_served, serve_until_stopped

    try:
        settings = SandboxSettings(
            client_id=arguments.client_id,
            client_secret=arguments.client_secret,
            default_page_length=arguments.default_page_length,
            broken=[rule.strip() for given in arguments.broken for rule in given.split(",") if rule.strip()],
        )
    except ValueError as error:
        raise UsageError(f"--break: {error}") from None
    app = create_sandbox_app(settings)

    def ready(url: str) -> None:
        _announce(
            f"commerce-proxy sandbox: listening on {url} "
            f"(client_id={settings.client_id}, client_secret={settings.client_secret})"
            + (f", breaking {', '.join(sorted(settings.broken or ()))}" if settings.broken else "")
        )

    run_served(serve_until_stopped(app, arguments.host, arguments.port, ready))
    return 0


def run_demo(arguments: argparse.Namespace) -> int:
    """`demo`: the whole loop on shipped defaults, with no real service."""
    import asyncio

    from proxy.demo import run_demo_session

    if arguments.cassette is not None:
        refuse_overwrite(arguments.cassette, [], "the demo recording", arguments.force, any_file=True)
    return asyncio.run(run_demo_session(arguments.cassette, _announce))
