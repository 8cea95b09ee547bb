"""The reports of `check`, and of `record` and `spy` at stop: one renderer per format and one writer,
so a live session's report reads and is written exactly as `check`'s (to the adapter's document sink,
or through the one file writer, never over a cassette or one of the command's inputs)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from proxy.store.saving import write_atomically

if TYPE_CHECKING:
    from proxy.app.check_run import Progress
    from proxy.core.model.exchange import Exchange
    from proxy.core.reports.formats import Report

FORMATS = ("text", "json", "junit", "markdown", "html")


def _no_progress(files: int) -> AbstractContextManager[Progress | None]:
    return nullcontext(None)


@dataclass(frozen=True, slots=True)
class Shown:
    """Where a use case's output goes, as its adapter shows it: `document` takes a report's text when
    no file was named (stdout), `note` a line for a person (stderr), `progress` watches a run over a
    number of files."""

    document: Callable[[str], None]
    note: Callable[[str], None]
    progress: Callable[[int], AbstractContextManager[Progress | None]] = _no_progress


@dataclass(frozen=True, slots=True)
class ReportRequest:
    """How a report is asked for: its format, its file (None: the document sink), how many exchanges
    the text lists per rule, and whether only its counts are wanted."""

    format: str = "text"
    output: Path | None = None
    per_rule: int = 10
    summary_only: bool = False


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
    """`<redacted>` as a report in `format_name` spells it where a secret was found: through the format's
    own escaping (JUnit is XML; the HTML page's data is JSON inside <script>, the placeholder inside
    one of its strings); the other formats show values as they are or inside a code span."""
    from proxy.core.redaction.policy import PLACEHOLDER
    from proxy.core.reports.escaping import script_json, xml_text

    if format_name == "junit":
        return xml_text(PLACEHOLDER)
    if format_name == "html":
        return script_json(PLACEHOLDER)[1:-1]  # without the string's quotes
    return PLACEHOLDER


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
        yield from markdown_report(report, lambda finding: label(finding.method, finding.path), title)
    elif format_name == "html":
        from proxy.core.reports.html import html_report
        from proxy.store.report_templates import page_template

        yield html_report(report, exchanges(), label, page_template(), title)
    else:
        yield from {"json": json_report, "junit": junit_report}[format_name](report)


def write_report(chunks: Iterable[str], output: Path | None, shown: Shown, what: str = "the report") -> None:
    """To the document sink, or atomically to `output` through the one file writer."""
    if output is None:
        for chunk in chunks:
            shown.document(chunk)
        return
    write_atomically(output, chunks, what)
    shown.note(f"wrote {output}")


def save_document(output: Path, text: str, what: str = "the report") -> None:
    """A document already in its format, written atomically to `output` through the one file writer."""
    write_atomically(output, text, what)
