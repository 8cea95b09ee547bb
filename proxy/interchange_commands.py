"""`import-har`, `export-har` and `import-mitm`: traffic in and out of the formats other tools use.

HAR is JSON (read with `json`); mitmproxy flow files are read with mitmproxy's own `io.FlowReader`.
Imports are redacted like a recording before anything is written, and checked against the rules.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from proxy import __version__
from proxy.cassette_reading import engine_for, findings_of
from proxy.core.cassette.document import Cassette
from proxy.core.interchange.har import cassette_to_har, exchanges_from_har, har_upstream
from proxy.core.interchange.imports import Imported, assemble
from proxy.core.model.withheld import WITHHELD_HEADER, withheld_in
from proxy.core.redaction.redact import redact_exchange
from proxy.core.rules.findings import severity_counts
from proxy.store.files import load_cassette, read_json_file
from proxy.store.outputs import refuse_overwrite
from proxy.store.saving import save_cassette, write_atomically

AddOptions = Callable[[argparse.ArgumentParser], None]


def add_interchange_commands(
    commands: Any, common: argparse.ArgumentParser, rule_options: AddOptions, redaction_options: AddOptions
) -> None:
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
        redaction_options(command)
        rule_options(command)
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
    document = read_json_file(arguments.source, "HAR file")
    wanted = arguments.origin or har_upstream(document)
    return _import(arguments, exchanges_from_har(document, str(arguments.source)), wanted)


def run_import_mitm(arguments: argparse.Namespace) -> int:
    """`import-mitm FLOWS -o CASSETTE`."""
    from proxy.mitm.flows import read_flows

    return _import(arguments, read_flows(arguments.source), arguments.origin)


def _import(arguments: argparse.Namespace, items: Iterable[Imported], wanted: str | None) -> int:
    from proxy.command_inputs import checked_upstream, redaction_from

    output: Path = arguments.output
    refuse_overwrite(output, [arguments.source], "the imported cassette", arguments.force, any_file=True)
    if arguments.origin:
        checked_upstream(arguments.origin, "import", "--origin")
    engine = engine_for(arguments)
    result = assemble(items, str(arguments.source), wanted)
    policy = redaction_from(arguments, engine.project.redaction)
    cassette = Cassette(
        tuple(redact_exchange(exchange, policy) for exchange in result.cassette.exchanges),
        result.cassette.upstream,
    )
    output.parent.mkdir(parents=True, exist_ok=True)
    save_cassette(output, cassette)
    left = sum(result.other_origins.values())
    others = f"; left out {left} exchange(s) with other origins" if left else ""
    reasons = [reason for exchange in cassette.exchanges if (reason := withheld_in(exchange))]
    if reasons:
        others += f"; {len(reasons)} exchange(s) with a {reasons[0]} (see {WITHHELD_HEADER})"
    counts = severity_counts(findings_of(engine, cassette, str(output)))
    print(
        f"{output}: imported {len(cassette.exchanges)} exchange(s) from {arguments.source} "
        f"({cassette.upstream}){others}; checked: {counts['error']} error(s), {counts['warning']} "
        f"warning(s), {counts['info']} info (details: commerce-proxy check {output})"
    )
    return 0


def run_export_har(arguments: argparse.Namespace) -> int:
    """`export-har CASSETTE -o FILE`."""
    refuse_overwrite(arguments.output, [arguments.cassette], "the HAR file", arguments.force)
    cassette = load_cassette(arguments.cassette).cassette
    document = cassette_to_har(cassette, __version__)
    write_atomically(
        arguments.output, json.dumps(document, indent=2, ensure_ascii=False) + "\n", "the HAR file"
    )
    print(
        f"{arguments.output}: exported {len(cassette.exchanges)} exchange(s) from {arguments.cassette} "
        "(HAR 1.2)"
    )
    return 0
