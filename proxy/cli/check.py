"""`check`: every exchange of the named cassettes against the rules, as a report in one of five formats.

stdout carries only the report; progress, notes and the elapsed time go to stderr.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from proxy.cli import options
from proxy.cli.output import say, write_document

if TYPE_CHECKING:
    from proxy.app.check_run import CheckRun
    from proxy.core.reports.formats import Report


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
    options.add_rule_options(check)
    check.set_defaults(run=run)


def run(arguments: argparse.Namespace) -> int:
    """`check`: exit 1 when an error is found, 0 otherwise. The rules engine is imported only here, so
    it costs the other commands' start nothing."""
    from proxy.app.check_run import CheckRun
    from proxy.cli.inputs import load_engine, named_cassettes
    from proxy.cli.progress import Progress
    from proxy.core.rules.config import Baseline
    from proxy.store.files import cassette_paths
    from proxy.store.outputs import refuse_overwrite
    from proxy.store.rule_files import load_baseline, write_baseline

    started = time.monotonic()
    inputs = named_cassettes(arguments.paths, arguments, "check")
    for written, what in ((arguments.output, "the report"), (arguments.write_baseline, "the baseline")):
        if written is not None:
            refuse_overwrite(written, inputs, what, arguments.force)
    engine = load_engine(arguments)
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
        _write(_rendered(report, arguments, engine.ruleset.index.label, checking), arguments.output)
        if not arguments.quiet:
            say(
                f"commerce-proxy: checked {report.exchanges} exchanges in {time.monotonic() - started:.1f} s",
                err=True,
            )
        return 1 if report.failed else 0


def _rendered(
    report: Report, arguments: argparse.Namespace, label: Callable[[str, str], str], checking: CheckRun
) -> Iterator[str]:
    from proxy.core.reports.formats import json_report, junit_report, markdown_report, text_report

    format_name = arguments.format
    if format_name == "text":  # for people: capped per rule, and only the counts with -q
        return text_report(report, max(arguments.per_rule, 0), summary_only=arguments.quiet)
    if format_name == "markdown":
        return markdown_report(report, lambda finding: label(finding.method, finding.path))
    if format_name == "html":
        from proxy.core.reports.html import html_report
        from proxy.store.report_templates import page_template

        return iter((html_report(report, checking.exchanges, label, page_template()),))
    return {"json": json_report, "junit": junit_report}[format_name](report)


def _write(chunks: Iterator[str], output: Path | None) -> None:
    from proxy.store.saving import write_atomically

    if output is None:
        for chunk in chunks:
            write_document(chunk)
        return
    write_atomically(output, chunks, "the report")
    say(f"commerce-proxy: wrote {output}", err=True)
