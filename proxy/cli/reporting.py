"""The reports of `check`, and of `record` and `spy` at stop: one renderer per format and one writer,
so a live session's report reads and is written exactly as `check`'s (`-o` through the one file
writer, never over a cassette or one of the command's inputs).

`record` and `spy` take `--format`, `-o`, `--per-rule` and `--fail-on`; without any of them they
serve, log and exit as they always did.
"""

from __future__ import annotations

import argparse
import functools
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from proxy.cli.output import say, write_document

if TYPE_CHECKING:
    from proxy.app.live_report import LiveReport
    from proxy.core.model.exchange import Exchange
    from proxy.core.reports.formats import Report
    from proxy.server.record import RecordServer

FORMATS = ("text", "json", "junit", "markdown", "html")
# The placeholder as each format spells it where a value stands: XML escapes it, and the HTML page's
# data is JSON inside <script> with every "<" escaped (see `proxy.core.reports.html`).
PLACEHOLDERS = {"junit": "&lt;redacted&gt;", "html": "\\u003credacted\\u003e"}


def add_format(command: argparse.ArgumentParser, default: str | None, html_help: str) -> None:
    command.add_argument("--format", choices=FORMATS, default=default, help=html_help)
    command.add_argument(
        "-o", "--output", metavar="FILE", type=Path, help="write the report here, not stdout"
    )
    command.add_argument(
        "--per-rule",
        metavar="N",
        type=int,
        default=10,
        help="text: list at most N exchanges under each rule, then how many more (0: all; default 10); "
        "the other formats list every finding",
    )


def add_live_report(command: argparse.ArgumentParser) -> None:
    """`record`'s and `spy`'s report options."""
    add_format(
        command,
        None,
        "at stop (SIGINT, SIGTERM, Ctrl-C), write every finding of the session as `check` does, to "
        "stdout or -o FILE (-o alone: text); html holds every exchange in memory until then",
    )
    command.add_argument(
        "--fail-on",
        choices=("error", "warning"),
        help="exit 1 at stop when the session found an error (error), or an error or a warning "
        "(warning); without it the exit status does not depend on the findings",
    )


def rendered(
    report: Report,
    format_name: str,
    label: Callable[[str, str], str],
    exchanges: Callable[[], Sequence[Sequence[Exchange]]],
    per_rule: int,
    summary_only: bool,
    title: str = "commerce-proxy check",
) -> Iterator[str]:
    """The report's text in `format_name`, scrubbed by the book of secrets as it is when each piece is
    written: findings, groups and exchanges kept from before a secret was learned are searched again
    (`SecretBook.scrub_chunks`); `exchanges` are asked for only by the HTML page."""
    from proxy.core.redaction.book import KNOWN

    chunks = _unscrubbed(report, format_name, label, exchanges, per_rule, summary_only, title)
    return KNOWN.scrub_chunks(chunks, placeholder_in(format_name))


def placeholder_in(format_name: str) -> str:
    """`<redacted>` as a report in `format_name` spells it where a secret was found."""
    from proxy.core.redaction.policy import PLACEHOLDER

    return PLACEHOLDERS.get(format_name, PLACEHOLDER)


def _unscrubbed(
    report: Report,
    format_name: str,
    label: Callable[[str, str], str],
    exchanges: Callable[[], Sequence[Sequence[Exchange]]],
    per_rule: int,
    summary_only: bool,
    title: str,
) -> Iterator[str]:
    from proxy.core.reports.formats import json_report, junit_report, markdown_report, text_report

    if format_name == "text":  # for people: capped per rule, and only the counts with -q
        yield from text_report(report, max(per_rule, 0), summary_only=summary_only)
    elif format_name == "markdown":
        yield from markdown_report(report, lambda finding: label(finding.method, finding.path))
    elif format_name == "html":
        from proxy.core.reports.html import html_report
        from proxy.store.report_templates import page_template

        yield html_report(report, exchanges(), label, page_template(), title)
    else:
        yield from {"json": json_report, "junit": junit_report}[format_name](report)


def write_report(chunks: Iterator[str], output: Path | None) -> None:
    """To stdout, or atomically to `output` through the one file writer."""
    from proxy.store.saving import write_atomically

    if output is None:
        for chunk in chunks:
            write_document(chunk)
        return
    write_atomically(output, chunks, "the report")
    say(f"commerce-proxy: wrote {output}", err=True)


def live_report(arguments: argparse.Namespace, name: str, inputs: Sequence[Path]) -> LiveReport | None:
    """The report `record` or `spy` keeps, or None when none of its options was given. Where it goes is
    checked now, before serving, as `check` checks it: never a folder, an input or a cassette."""
    if arguments.format is None and arguments.output is None and arguments.fail_on is None:
        return None
    from proxy.app.live_report import LiveReport
    from proxy.cli.inputs import load_rules_in_force
    from proxy.cli.report_path import refuse_bad_output
    from proxy.core.rules.config import Baseline
    from proxy.store.rule_files import load_baseline

    if arguments.output is not None:
        refuse_bad_output(arguments, arguments.output, inputs)
    engine = load_rules_in_force(arguments)
    baseline_path = engine.project.resolve(engine.project.config.baseline)
    baseline = load_baseline(baseline_path) if baseline_path else Baseline()
    keep = arguments.format == "html"
    return LiveReport(engine.ruleset, engine.project.config, baseline, name, keep_exchanges=keep)


def serve_reported(
    server: RecordServer,
    arguments: argparse.Namespace,
    ready: Callable[[str], str],
    report: LiveReport | None,
    title: str,
) -> int:
    """Serve until stopped; then write the session's report (once the server has been ready, however
    it stopped) and give the exit status `--fail-on` asks for."""
    from proxy.cli.serving import serve

    if report is None:
        return serve(server, arguments, ready)
    from proxy.app.live_report import fails

    served: list[str] = []

    def announced(url: str) -> str:
        served.append(url)
        return ready(url)

    with report:
        report.attach(server.recording)
        try:
            serve(server, arguments, announced)
        finally:
            if served and (arguments.format is not None or arguments.output is not None):
                from proxy.core.rules.path_shapes import endpoint_label

                chunks = rendered(
                    report.report(),
                    arguments.format or "text",
                    functools.partial(endpoint_label, report.ruleset.index),
                    lambda: report.exchanges,
                    arguments.per_rule,
                    arguments.quiet,
                    title,
                )
                write_report(chunks, arguments.output)
        return 1 if fails(report.report(), arguments.fail_on) else 0
