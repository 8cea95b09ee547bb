"""`import-har`, `export-har` and `import-mitm`: traffic in and out of the formats other tools use.

HAR is JSON (read with `json`); mitmproxy flow files are read with mitmproxy's own `io.FlowReader`.
Imports are redacted like a recording before anything is written, and checked against the rules.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from proxy.app.command_inputs import Reads
from proxy.cli import options
from proxy.cli.output import say
from proxy.core.interchange.har import exchanges_from_har, har_upstream
from proxy.core.interchange.imports import Imported
from proxy.core.model.withheld import WITHHELD_HEADER


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
    from proxy.app.importing import read_har

    document = read_har(arguments.source)
    wanted = arguments.origin or har_upstream(document)
    return _import(arguments, exchanges_from_har(document, str(arguments.source)), wanted)


def run_import_mitm(arguments: argparse.Namespace) -> int:
    """`import-mitm FLOWS -o CASSETTE`."""
    from proxy.app.importing import opened_source
    from proxy.mitm.flows import read_flows

    with opened_source(arguments.source, "flow file") as handle:
        return _import(arguments, read_flows(handle, arguments.source), arguments.origin)


def _import(arguments: argparse.Namespace, items: Iterable[Imported], wanted: str | None) -> int:
    from proxy.app.importing import import_cassette
    from proxy.cli.inputs import checked_upstream, load_rules_in_force, redaction_from, rule_choice

    output: Path = arguments.output
    Reads((arguments.source,), rule_choice(arguments)).refuse_bad_output(
        output,
        "the imported cassette",
        arguments.force,
        any_file=True,
        create_folders=True,
    )
    if arguments.origin:
        checked_upstream(arguments.origin, "import", "--origin")
    in_force = load_rules_in_force(arguments)
    policy = redaction_from(arguments, in_force.project.redaction)
    done = import_cassette(items, str(arguments.source), wanted, output, in_force, policy)
    others = f"; left out {done.other_origins} exchange(s) with other origins" if done.other_origins else ""
    if done.withheld:
        others += f"; {len(done.withheld)} exchange(s) with a {done.withheld[0]} (see {WITHHELD_HEADER})"
    counts = done.counts
    say(
        f"{output}: imported {len(done.cassette.exchanges)} exchange(s) from {arguments.source} "
        f"({done.cassette.upstream}){others}; checked: {counts['error']} error(s), {counts['warning']} "
        f"warning(s), {counts['info']} info (details: commerce-proxy check {output})"
    )
    return 0


def run_export_har(arguments: argparse.Namespace) -> int:
    """`export-har CASSETTE -o FILE`."""
    from proxy.app.importing import export_har

    Reads((arguments.cassette,)).refuse_bad_output(arguments.output, "the HAR file", arguments.force)
    count = export_har(arguments.cassette, arguments.output)
    say(f"{arguments.output}: exported {count} exchange(s) from {arguments.cassette} (HAR 1.2)")
    return 0
