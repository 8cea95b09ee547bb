"""`check`: every exchange of the named cassettes against the rules, as a report in one of five formats.

stdout carries only the report; progress, notes and the elapsed time go to stderr.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from proxy.cli import options
from proxy.cli.inputs import rule_choice
from proxy.cli.reporting import add_format, report_request, shown

if TYPE_CHECKING:
    from proxy.app.check_command import CheckRequest


def add_to(commands: Any, common: argparse.ArgumentParser) -> None:
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
    add_format(
        check,
        "text",
        "html: one self-contained page (timeline, per-rule and per-endpoint summaries, every "
        "exchange with its findings); give it -o report.html",
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
    options.add_contract_options(check)
    check.add_argument(
        "--coverage",
        action="store_true",
        help="add which operations of the specs the traffic exercised, and with which statuses, to the "
        "report (docs/contract.md)",
    )
    check.add_argument(
        "--min-coverage",
        metavar="PERCENT",
        type=_percent,
        help="exit 1 when fewer than PERCENT of the specs' operations have an exchange",
    )
    check.add_argument(
        "--propose-overlay",
        metavar="PATH",
        type=Path,
        help="write, for each disagreement with the specs, the change that would make the spec accept "
        "what the service did, as an OpenAPI Overlay document to review (a folder: one per spec)",
    )
    options.add_rule_options(check)
    check.set_defaults(run=run)


def _percent(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a percent from 0 to 100, found {text!r}") from None
    if not 0 <= value <= 100:
        raise argparse.ArgumentTypeError(f"expected a percent from 0 to 100, found {text!r}")
    return value


def run(arguments: argparse.Namespace) -> int:
    """`check`: exit 1 when an error is found, 0 otherwise. The rules in_force is imported only here, so
    it costs the other commands' start nothing."""
    from proxy.app.check_command import run_check

    return run_check(request_of(arguments), shown(arguments.quiet))


def request_of(arguments: argparse.Namespace) -> CheckRequest:
    """The typed request `check`'s arguments make, built once."""
    from proxy.app.check_command import CheckRequest

    return CheckRequest(
        paths=tuple(arguments.paths),
        examples=arguments.examples,
        report=report_request(arguments),
        force=arguments.force,
        baseline=arguments.baseline,
        write_baseline=arguments.write_baseline,
        rules=rule_choice(arguments),
        specs=tuple(arguments.spec),
        overlays=tuple(arguments.overlay),
        coverage=arguments.coverage,
        min_coverage=arguments.min_coverage,
        propose_overlay=arguments.propose_overlay,
    )
