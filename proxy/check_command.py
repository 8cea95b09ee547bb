"""`check`: every exchange of the named cassettes against the rules, as a report in one of five formats.

Findings go to a spool as they are found (on disk past a limit) and the report is written piece by
piece, so memory does not grow with the number of findings; only the HTML page, which shows every
exchange, holds whole cassettes.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, closing
from pathlib import Path

from proxy.command_inputs import load_engine, named_cassettes, show_notes
from proxy.core.reports.finding_groups import FindingGroups
from proxy.core.reports.formats import (
    CassetteResult,
    Report,
    json_report,
    junit_report,
    markdown_report,
    text_report,
)
from proxy.core.rules.config import Baseline
from proxy.core.rules.engine import Checker
from proxy.core.rules.findings import Finding
from proxy.progress import Progress
from proxy.store.files import Loaded, Streamed, cassette_paths, load_cassette, stream_cassette
from proxy.store.finding_spool import FindingSpool
from proxy.store.outputs import refuse_overwrite
from proxy.store.rule_files import load_baseline, write_baseline
from proxy.store.saving import write_atomically
from proxy.two_core_check import check_stream


def run_check(arguments: argparse.Namespace) -> int:
    """`check`: exit 1 when an error is found, 0 otherwise."""
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
    accepted_keys: set[tuple[str, str, str, str]] = set()  # for --write-baseline: distinct, so bounded
    html = arguments.format == "html"
    with ExitStack() as cleanup:
        results: list[CassetteResult] = []
        loaded: list[Loaded] = []  # whole cassettes, for the HTML report only
        files = cassette_paths(inputs)
        with Progress(len(files), sys.stderr, wanted=not arguments.quiet) as progress:
            for number, file in enumerate(files):
                progress.reading(number, file)
                if html:  # the page shows every exchange: it needs them all
                    one = load_cassette(file)
                    loaded.append(one)
                    streamed = Streamed(one.path, iter(one.cassette.exchanges), one.notes)
                    progress.checking(len(one.cassette.exchanges))
                    # Loaded cassettes live until exit: keep the cyclic collector from rescanning them
                    # while the rules allocate.
                    gc.freeze()
                else:  # one exchange at a time: memory does not grow with the cassette
                    streamed = stream_cassette(file)
                    progress.checking(0)  # how many is known only at the end
                show_notes([streamed])
                spool = FindingGroups() if html else cleanup.enter_context(closing(FindingSpool()))
                checker = Checker(engine.ruleset, config, cassette=str(streamed.path))
                taken = _Taken(spool, baseline, accepted_keys if arguments.write_baseline else None)
                if html:
                    checker.check_into(streamed.exchanges, taken, progress.advance)
                else:  # a large cached cassette is checked on two cores
                    check_stream(checker, streamed.path, streamed.exchanges, progress.advance, taken)
                results.append(CassetteResult(str(streamed.path), checker.checked, spool, taken.accepted))
        if arguments.write_baseline:
            count = write_baseline(arguments.write_baseline, accepted_keys)
            print(
                f"commerce-proxy: wrote {arguments.write_baseline}: {count} accepted finding(s)",
                file=sys.stderr,
            )
            return 0
        off = frozenset(
            rule.id for rule in engine.ruleset.rules if not config.may_apply(rule.id, rule.severity)
        )
        report = Report(results, engine.ruleset.rules, off)
        chunks = _rendered(report, arguments, engine.ruleset.index.label, loaded)
        _write(chunks, arguments.output)
        if not arguments.quiet:
            print(
                f"commerce-proxy: checked {report.exchanges} exchanges in {time.monotonic() - started:.1f} s",
                file=sys.stderr,
            )
        return 1 if report.failed else 0


class _Taken:
    """Where each exchange's findings go: the spool, or the baseline's count of accepted ones; with
    --write-baseline, only their keys."""

    def __init__(
        self, spool: FindingGroups, baseline: Baseline, keys: set[tuple[str, str, str, str]] | None
    ) -> None:
        self.spool, self.baseline, self.keys = spool, baseline, keys
        self.accepted = 0

    def __call__(self, findings: list[Finding]) -> None:
        if self.keys is not None:
            self.keys.update(finding.baseline_key for finding in findings)
            return
        for finding in findings:
            if self.baseline.accepts(finding):
                self.accepted += 1
            else:
                self.spool.add(finding)


def _rendered(
    report: Report, arguments: argparse.Namespace, label: Callable[[str, str], str], loaded: list[Loaded]
) -> Iterator[str]:
    format_name = arguments.format
    if format_name == "text":  # for people: capped per rule, and only the counts with -q
        return text_report(report, max(arguments.per_rule, 0), summary_only=arguments.quiet)
    if format_name == "markdown":
        return markdown_report(report, lambda finding: label(finding.method, finding.path))
    if format_name == "html":
        from proxy.core.reports.html import html_report
        from proxy.store.report_templates import page_template

        exchanges = [one.cassette.exchanges for one in loaded]
        return iter((html_report(report, exchanges, label, page_template()),))
    return {"json": json_report, "junit": junit_report}[format_name](report)


def _write(chunks: Iterator[str], output: Path | None) -> None:
    if output is None:
        for chunk in chunks:
            sys.stdout.write(chunk)
        return
    write_atomically(output, chunks, "the report")
    print(f"commerce-proxy: wrote {output}", file=sys.stderr)
