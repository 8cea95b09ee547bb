"""The `commerce-proxy` command line: argument parsing and one-line errors around the adapters.

Bad input ends in one line on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn

from proxy import __version__
from proxy.cli_help import finish_help
from proxy.command_inputs import load_engine
from proxy.errors import CommerceProxyError
from proxy.serving_commands import run_demo, run_record, run_replay, run_sandbox, run_spy

log = logging.getLogger("proxy")


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; returns the exit code."""
    parser = build_parser()
    arguments = parser.parse_args(argv)
    logging.basicConfig(
        stream=sys.stderr,
        format="commerce-proxy: %(message)s",
        level=logging.WARNING if arguments.quiet else logging.INFO,
        force=True,
    )
    try:
        return int(arguments.run(arguments))
    except CommerceProxyError as error:
        print(f"commerce-proxy: error: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader left (`| head`): not an error of ours, nothing more to say
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as error:
        print(f"commerce-proxy: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except Exception as error:  # a bug of ours: still one line, the traceback when asked for
        if os.environ.get("COMMERCE_PROXY_TRACEBACK"):
            raise
        problem = " ".join(f"{type(error).__name__}: {error}".split())
        print(
            f"commerce-proxy: internal error: {problem} (a bug: please report it; "
            "COMMERCE_PROXY_TRACEBACK=1 shows where)",
            file=sys.stderr,
        )
        return 70


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (what is wrong, and where to read more) and exit 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see `{self.prog} --help`)\n")


def build_parser() -> argparse.ArgumentParser:
    """All commands and their options."""
    parser = OneLineParser(
        prog="commerce-proxy",
        description="Record, check and replay traffic of the commerce API.",
    )
    parser.add_argument("--version", action="version", version=f"commerce-proxy {__version__}")
    common = OneLineParser(add_help=False)
    common.add_argument("-q", "--quiet", action="store_true", help="only warnings and errors")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    record = commands.add_parser(
        "record", parents=[common], help="proxy to a live upstream and record a cassette"
    )
    _add_upstream(record)
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
    _add_serving(record)
    _add_wire_limits(record)
    _add_matching(record)
    _add_redaction(record)
    _add_rule_options(record)
    record.set_defaults(run=run_record)

    spy = commands.add_parser(
        "spy",
        parents=[common],
        help="proxy to a live upstream and check every exchange against the rules; writes nothing",
    )
    _add_upstream(spy)
    _add_serving(spy)
    _add_wire_limits(spy)
    _add_redaction(spy)
    _add_rule_options(spy)
    spy.set_defaults(run=run_spy)

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
    _add_serving(replay)
    _add_wire_limits(replay)
    _add_matching(replay)
    _add_redaction(replay)
    _add_rule_options(replay)
    replay.set_defaults(run=run_replay)

    check = commands.add_parser(
        "check",
        parents=[common],
        help="check cassettes against the documented rules (exit 1 when an error is found)",
    )
    check.add_argument(
        "paths",
        metavar="PATH",
        type=Path,
        nargs="*",
        help="cassette files or folders",
    )
    check.add_argument("--examples", action="store_true", help="check the shipped example cassettes")
    check.add_argument(
        "--format",
        choices=("text", "json", "junit", "markdown", "html"),
        default="text",
        help="html: one self-contained page (timeline, per-rule and per-endpoint summaries, every "
        "exchange with its findings); give it -o report.html",
    )
    check.add_argument("-o", "--output", metavar="FILE", type=Path, help="write the report here, not stdout")
    check.add_argument(
        "--per-rule",
        metavar="N",
        type=int,
        default=10,
        help="text: list at most N exchanges under each rule, then how many more (0: all; default 10); "
        "the other formats list every finding",
    )
    check.add_argument(
        "--force",
        action="store_true",
        help="let -o or --write-baseline replace a cassette that is not checked",
    )
    check.add_argument(
        "--baseline",
        metavar="FILE",
        type=Path,
        help="accepted findings: counted, not reported (default: the config's `baseline`)",
    )
    check.add_argument(
        "--write-baseline",
        metavar="FILE",
        type=Path,
        help="accept every current finding: write them to FILE and exit 0",
    )
    _add_rule_options(check)
    check.set_defaults(run=run_check)

    rules = commands.add_parser(
        "rules", parents=[common], help="list every rule: id, severity, documentation"
    )
    rules.add_argument(
        "--format",
        choices=("text", "json", "markdown"),
        default="text",
        help="markdown: the page of all rules the docs show (docs/rules.md)",
    )
    _add_rule_options(rules)
    rules.set_defaults(run=run_rules)

    sandbox = commands.add_parser(
        "sandbox", parents=[common], help="run the in-memory stand-in for the real service"
    )
    _add_serving(sandbox, default_port=9000)
    sandbox.add_argument(
        "--client-id", default="sandbox-client", help="the client_id the token endpoint takes"
    )
    sandbox.add_argument(
        "--client-secret", default="sandbox-secret", help="the client_secret the token endpoint takes"
    )
    sandbox.add_argument(
        "--default-page-length",
        type=int,
        choices=range(1, 101),
        default=25,
        metavar="N",
        help="25 as documented; 100 behaves like an older store",
    )
    sandbox.add_argument(
        "--break",
        dest="broken",
        metavar="RULE_ID",
        action="append",
        default=[],
        help="break a documented rule, for demos and end-to-end tests (see `commerce-proxy rules`); "
        "repeat it, or give several separated by commas",
    )
    sandbox.set_defaults(run=run_sandbox)

    demo = commands.add_parser(
        "demo", parents=[common], help="record a scripted session from the sandbox and replay it"
    )
    demo.add_argument(
        "--cassette",
        metavar="PATH",
        type=Path,
        help="where to keep the recording (default: a new temporary folder)",
    )
    demo.add_argument("--force", action="store_true", help="replace PATH if it exists")
    demo.set_defaults(run=run_demo)

    from proxy.cassette_commands import add_cassette_commands

    add_cassette_commands(commands, common, _add_rule_options)
    from proxy.interchange_commands import add_interchange_commands

    add_interchange_commands(commands, common, _add_rule_options, _add_redaction)
    finish_help(parser)
    return parser


def _add_serving(command: argparse.ArgumentParser, default_port: int = 8080) -> None:
    command.add_argument(
        "--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)"
    )
    command.add_argument("--port", type=int, default=default_port, help="0 picks a free port")


def _add_wire_limits(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--head-timeout",
        metavar="S",
        type=_positive(float),
        default=30.0,
        help="a request line and headers must arrive within S seconds of their first byte (default 30)",
    )
    command.add_argument(
        "--max-connections",
        metavar="N",
        type=_positive(int),
        default=1000,
        help="open client connections served at once; more get 503 (default 1000)",
    )


def _add_upstream(command: argparse.ArgumentParser) -> None:
    command.add_argument("--upstream", metavar="URL", help="the real service, e.g. http://127.0.0.1:9000")
    command.add_argument(
        "--upstream-timeout",
        type=_positive(float),
        default=30.0,
        metavar="SECONDS",
        help="a client gets a 504 when the upstream's answer is not complete by then (default 30)",
    )
    command.add_argument(
        "--max-body-bytes",
        type=_positive(int),
        default=50 * 1024 * 1024,
        metavar="N",
        help="a larger upstream answer is a 502 and is not recorded (default 50 MiB)",
    )
    command.add_argument(
        "--ca-bundle",
        type=Path,
        metavar="FILE",
        help="PEM certificates of a private CA to verify an https upstream with (default: the system's)",
    )


def _positive(kind: type[float] | type[int]) -> Callable[[str], float]:
    """An argparse type: a number above zero, else argparse's own one-line usage error."""

    def parse(text: str) -> float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, found {text!r}") from None
        if not 0 < value < float("inf"):
            raise argparse.ArgumentTypeError(f"expected a number above 0, found {text!r}")
        return value

    return parse


def _add_rule_options(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--rules",
        metavar="DIR",
        type=Path,
        help="a rule folder (default: the config's, else the shipped rules)",
    )
    command.add_argument(
        "--config",
        metavar="FILE",
        type=Path,
        help="commerce-proxy.yaml or a pyproject.toml (default: found from the working folder up)",
    )


def _add_matching(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--match-on",
        metavar="FIELDS",
        help="comma-separated subset of method,path,query,body (default: all four)",
    )
    command.add_argument(
        "--ignore-query",
        metavar="NAME",
        action="append",
        default=[],
        help="a query parameter that never decides a match; repeatable",
    )


def _add_redaction(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--redact-header", metavar="NAME", action="append", default=[], help="also redact this header"
    )
    command.add_argument(
        "--redact-query", metavar="NAME", action="append", default=[], help="also redact this query parameter"
    )
    command.add_argument(
        "--redact-form", metavar="NAME", action="append", default=[], help="also redact this form field"
    )
    command.add_argument(
        "--redact-json-path",
        metavar="PATH",
        action="append",
        default=[],
        help="dotted path into JSON bodies, e.g. data.attributes.email",
    )


def run_check(arguments: argparse.Namespace) -> int:
    """`check`, imported when run: the rules engine is no cost to the other commands' start."""
    from proxy.check_command import run_check as check

    return check(arguments)


def run_rules(arguments: argparse.Namespace) -> int:
    """`rules`: every rule with its id, the severity in force and its documentation section."""
    from proxy.core.reports.formats import rules_markdown, rules_table

    engine = load_engine(arguments)
    config = engine.project.config
    severity_of = {
        rule.id: str(config.severity(rule.id, rule.severity, "", "")) for rule in engine.ruleset.rules
    }
    if arguments.format == "json":
        document = [
            {
                "id": rule.id,
                "severity": severity_of[rule.id],
                "default_severity": rule.severity,
                "section": rule.section,
                "check": rule.check,
                "applies_to": list(rule.applies_to),
                "responses": rule.responses,
                "source": rule.source,
            }
            for rule in sorted(engine.ruleset.rules, key=lambda rule: rule.id)
        ]
        print(json.dumps({"rules": document}, indent=2))
        return 0
    if arguments.format == "markdown":
        sys.stdout.write(rules_markdown(engine.ruleset.rules, severity_of))
        return 0
    sys.stdout.write(rules_table(engine.ruleset.rules, severity_of))
    return 0
