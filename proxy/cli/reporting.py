"""The report options of `check`, and of `record` and `spy` at stop, read into the typed requests of
their use cases (`proxy.app.report_writing`, `proxy.app.session_report`), which render and write them;
this module only shows what they hand back.

`record` and `spy` take `--format`, `-o`, `--per-rule` and `--fail-on`; without any of them they
serve, log and exit as they always did.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING

from proxy.app.report_writing import FORMATS, ReportRequest, Shown
from proxy.cli.output import say, write_document

if TYPE_CHECKING:
    from proxy.app.check_run import Progress
    from proxy.app.live_report import LiveReport
    from proxy.app.session_report import SessionReportRequest
    from proxy.server.record import RecordProxy


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


def report_request(arguments: argparse.Namespace) -> ReportRequest:
    """`--format`, `-o`, `--per-rule` and `-q` as the report's request."""
    return ReportRequest(arguments.format, arguments.output, arguments.per_rule, arguments.quiet)


def note(line: str) -> None:
    """A use case's line for a person, on stderr."""
    say(f"commerce-proxy: {line}", err=True)


def shown(quiet: bool = False) -> Shown:
    """Where a use case's output goes on the command line: documents on stdout, notes and progress
    (not with `-q`) on stderr."""

    def progress(files: int) -> AbstractContextManager[Progress | None]:
        import sys

        from proxy.cli.progress import Progress as Bar

        return Bar(files, sys.stderr, wanted=not quiet)

    return Shown(write_document, note, progress)


def live_report(asked: SessionReportRequest, name: str, inputs: Sequence[Path]) -> LiveReport | None:
    """The report `record` or `spy` keeps, or None when none of its options was given; where it goes
    is checked now, before serving."""
    from proxy.app.session_report import open_session_report

    return open_session_report(asked, name, inputs)


def serve_reported(
    proxy: RecordProxy,
    arguments: argparse.Namespace,
    ready: Callable[[str], str],
    report: LiveReport | None,
    title: str,
    asked: SessionReportRequest,
    ui_token: str | None = None,
) -> int:
    """Serve until stopped; then write the session's report (once the server has been ready, however
    it stopped) and give the exit status `--fail-on` asks for."""
    from proxy.cli.serving import serve

    if report is None:
        return serve(proxy.server, arguments, ready, ui_token)
    from proxy.app.session_report import finish_session_report

    served: list[str] = []

    def announced(url: str) -> str:
        served.append(url)
        return ready(url)

    with report:
        report.attach(proxy.recording)
        try:
            serve(proxy.server, arguments, announced, ui_token)
        finally:
            status = finish_session_report(report, asked, shown(), title, bool(served))
        return status
