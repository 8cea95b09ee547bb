"""`import-har`, `export-har` and `import-mitm`: traffic in and out of the formats other tools use.

HAR is JSON (read with `json`); mitmproxy flow files are read with mitmproxy's own `io.FlowReader`.
The use cases in `proxy.app.importing` choose the origin, refuse the output, redact, write and check;
this module parses and prints.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from proxy.cli import options
from proxy.cli.output import say
from proxy.core.model.withheld import WITHHELD_HEADER

if TYPE_CHECKING:
    from proxy.app.importing import ImportRequest, Imports


def add_to(commands: Any, common: argparse.ArgumentParser) -> None:
    """Register the import and export commands."""
    for name, source, help_text, run in (
        (
            "import-har",
            "FILE",
            "a HAR 1.2 file (browsers, Postman, Charles...) to a cassette",
            run_import_har,
        ),
        ("import-mitm", "FLOWS", "a mitmproxy flow file (mitmdump -w) to a cassette", run_import_mitm),
    ):
        command = commands.add_parser(name, parents=[common], help=help_text)
        command.add_argument("source", metavar=source, type=Path, help="the file to import")
        command.add_argument(
            "-o", "--output", metavar="CASSETTE", type=Path, required=True, help="the new cassette"
        )
        command.add_argument(
            "--origin",
            metavar="URL",
            help="keep only exchanges with this origin (a base path such as /commerce is stripped); "
            "needed when the file holds several",
        )
        command.add_argument("--force", action="store_true", help="replace CASSETTE if it exists")
        options.add_redaction(command)
        options.add_rule_options(command)
        command.set_defaults(run=run)
    export = commands.add_parser("export-har", parents=[common], help="a cassette to a HAR 1.2 file")
    export.add_argument("cassette", metavar="CASSETTE", type=Path, help="the cassette to export")
    export.add_argument(
        "-o", "--output", metavar="FILE", type=Path, required=True, help="the HAR file to write"
    )
    export.add_argument("--force", action="store_true", help="let FILE replace a cassette (never CASSETTE)")
    export.set_defaults(run=run_export_har)


def run_import_har(arguments: argparse.Namespace) -> int:
    """`import-har FILE -o CASSETTE`."""
    from proxy.app.importing import import_har

    return _said(import_har(_request(arguments)), arguments.source, arguments.output)


def run_import_mitm(arguments: argparse.Namespace) -> int:
    """`import-mitm FLOWS -o CASSETTE`."""
    from proxy.app.importing import import_traffic, opened_source
    from proxy.mitm.flows import read_flows

    with opened_source(arguments.source, "flow file") as handle:
        done = import_traffic(_request(arguments), read_flows(handle, arguments.source))
    return _said(done, arguments.source, arguments.output)


def _request(arguments: argparse.Namespace) -> ImportRequest:
    from proxy.app.importing import ImportRequest
    from proxy.cli.inputs import extra_redaction, rule_choice

    return ImportRequest(
        arguments.source,
        arguments.output,
        arguments.origin,
        arguments.force,
        extra_redaction(arguments),
        rule_choice(arguments),
    )


def _said(done: Imports, source: Path, output: Path) -> int:
    others = f"; left out {done.other_origins} exchange(s) with other origins" if done.other_origins else ""
    if done.withheld:
        others += f"; {len(done.withheld)} exchange(s) with a {done.withheld[0]} (see {WITHHELD_HEADER})"
    counts = done.counts
    say(
        f"{output}: imported {len(done.cassette.exchanges)} exchange(s) from {source} "
        f"({done.cassette.upstream}){others}; checked: {counts['error']} error(s), {counts['warning']} "
        f"warning(s), {counts['info']} info (details: commerce-proxy check {output})"
    )
    return 0


def run_export_har(arguments: argparse.Namespace) -> int:
    """`export-har CASSETTE -o FILE`."""
    from proxy.app.importing import ExportRequest, export_har

    count = export_har(ExportRequest(arguments.cassette, arguments.output, arguments.force))
    say(f"{arguments.output}: exported {count} exchange(s) from {arguments.cassette} (HAR 1.2)")
    return 0
