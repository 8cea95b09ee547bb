"""`check`: every exchange of the named cassettes against the rules, as a report in one of five formats.

stdout carries only the report; progress, notes and the elapsed time go to stderr.
"""

from __future__ import annotations

import argparse
import functools
import sys
import time
from pathlib import Path
from typing import Any

from proxy.cli import options
from proxy.cli.output import say
from proxy.cli.reporting import add_format, rendered, write_report
from proxy.errors import UsageError


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
    options.add_rule_options(check)
    check.set_defaults(run=run)


def run(arguments: argparse.Namespace) -> int:
    """`check`: exit 1 when an error is found, 0 otherwise. The rules engine is imported only here, so
    it costs the other commands' start nothing."""
    from proxy.app.check_run import CheckRun
    from proxy.cli.inputs import load_rules_in_force, named_cassettes
    from proxy.cli.progress import Progress
    from proxy.cli.report_path import refuse_bad_output
    from proxy.core.rules.config import Baseline
    from proxy.store.files import cassette_paths
    from proxy.store.rule_files import load_baseline, write_baseline

    started = time.monotonic()
    inputs = named_cassettes(arguments.paths, arguments, "check")
    if arguments.output is not None:
        refuse_bad_output(arguments, arguments.output, inputs, "the report", arguments.force)
    if arguments.write_baseline is not None:  # the baseline the config names is the one to rewrite
        refuse_bad_output(
            arguments, arguments.write_baseline, inputs, "the baseline", arguments.force, baseline=False
        )
        if arguments.output is not None and _same_name(arguments.output, arguments.write_baseline):
            raise UsageError(f"{arguments.output}: -o and --write-baseline name the same file")
    engine = load_rules_in_force(arguments)
    config = engine.project.config
    baseline_path = (
        None if arguments.write_baseline else arguments.baseline or engine.project.resolve(config.baseline)
    )
    baseline = load_baseline(baseline_path) if baseline_path else Baseline()
    with CheckRun(
        engine,
        baseline,
        keep_exchanges=arguments.format == "html",
        accepting=bool(arguments.write_baseline),
        on_note=lambda note: say(f"commerce-proxy: {note}", err=True),
    ) as checking:
        files = cassette_paths(inputs)
        with Progress(len(files), sys.stderr, wanted=not arguments.quiet) as progress:
            report = checking.check(files, progress)
        if arguments.write_baseline:
            count = write_baseline(arguments.write_baseline, checking.accepted_keys)
            say(f"commerce-proxy: wrote {arguments.write_baseline}: {count} accepted finding(s)", err=True)
            return 0
        from proxy.core.rules.path_shapes import endpoint_label

        label = functools.partial(endpoint_label, engine.ruleset.index)
        chunks = rendered(
            report, arguments.format, label, lambda: checking.exchanges, arguments.per_rule, arguments.quiet
        )
        write_report(chunks, arguments.output)
        if not arguments.quiet:
            say(
                f"commerce-proxy: checked {report.exchanges} exchanges in {time.monotonic() - started:.1f} s",
                err=True,
            )
        return 1 if report.failed else 0


def _same_name(one: Path, other: Path) -> bool:
    import os

    return os.path.realpath(one) == os.path.realpath(other)
