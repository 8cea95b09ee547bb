"""An import: exchanges read from another tool's file gathered into one cassette, redacted like a
recording before anything is written, saved, and checked against the rules; and the export of a
cassette to HAR. Each command's typed request is checked here (the output it may write, `--origin`),
so its adapter only parses and prints."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from proxy.app.check_run import check_cassette
from proxy.app.command_inputs import ExtraRedaction, Reads, RuleChoice
from proxy.app.editing import redacted
from proxy.app.urls import checked_url
from proxy.core.cassette.document import Cassette
from proxy.core.interchange.har import exchanges_from_har, har_upstream
from proxy.core.interchange.imports import Imported, assemble
from proxy.core.model.withheld import withheld_in
from proxy.core.redaction.policy import RedactionPolicy
from proxy.core.rules.findings import Severity, severity_counts
from proxy.store import clock
from proxy.store.cassette_reader.loading import load_cassette
from proxy.store.json_files import read_json_file
from proxy.store.regular_files import opened
from proxy.store.rule_files import RulesInForce
from proxy.store.saving import save_cassette, write_atomically


@dataclass(frozen=True, slots=True)
class ImportRequest:
    """What `import-har` or `import-mitm` was asked, built once by its parser."""

    source: Path
    output: Path
    origin: str | None = None  # keep only this origin's exchanges (needed when the file holds several)
    force: bool = False  # the output may replace a file
    redact: ExtraRedaction = field(default_factory=ExtraRedaction)  # added to the config's `redact` table
    rules: RuleChoice = field(default_factory=RuleChoice)


@dataclass(frozen=True, slots=True)
class ExportRequest:
    """What `export-har` was asked."""

    cassette: Path
    output: Path
    force: bool = False  # the HAR file may replace a cassette (never the one exported)


@dataclass(frozen=True, slots=True)
class Imports:
    """What an import wrote and found."""

    cassette: Cassette
    other_origins: int  # exchanges left out for another origin
    withheld: list[str]  # why bodies were not stored, one reason per such exchange
    counts: dict[Severity, int]  # findings by severity


def import_har(asked: ImportRequest) -> Imports:
    """`import-har`: the HAR file's exchanges of `--origin`, else of the upstream a commerce-proxy
    export recorded, else of its only origin."""
    document = read_har(asked.source)
    wanted = asked.origin or har_upstream(document)
    return import_traffic(asked, exchanges_from_har(document, str(asked.source)), wanted)


def import_traffic(asked: ImportRequest, items: Iterable[Imported], wanted: str | None = None) -> Imports:
    """`import-mitm` (`items` read by its adapter, lazily) and `import-har`: the output refused
    before anything is read, `--origin` checked, then the exchanges of origin `wanted` (default
    `--origin`) imported with the config's redaction and the command line's."""
    Reads((asked.source,), asked.rules).refuse_bad_output(
        asked.output, "the imported cassette", asked.force, any_file=True, create_folders=True
    )
    if asked.origin:
        checked_url(asked.origin, "--origin")
    in_force = asked.rules.load()
    policy = asked.redact.over(in_force.project.redaction)
    chosen = wanted if wanted is not None else asked.origin
    return import_cassette(items, str(asked.source), chosen, asked.output, in_force, policy)


def import_cassette(
    items: Iterable[Imported],
    source: str,
    wanted: str | None,
    output: Path,
    in_force: RulesInForce,
    policy: RedactionPolicy,
) -> Imports:
    """Gather `items` (those of origin `wanted`, or the only origin) into `output`, redacted."""
    result = assemble(items, source, wanted, clock.now())
    cassette = redacted(result.cassette, policy)
    save_cassette(output, cassette)
    reasons = [reason for exchange in cassette.exchanges if (reason := withheld_in(exchange))]
    counts = severity_counts(check_cassette(in_force, cassette, str(output)))
    return Imports(cassette, sum(result.other_origins.values()), reasons, counts)


def opened_source(source: Path, what: str) -> AbstractContextManager[BinaryIO]:
    """Another tool's file (a mitmproxy flow file), opened for its reader: a regular file, or a
    one-line error naming it."""
    return opened(source, what)


def read_har(source: Path) -> Any:
    """A HAR file's JSON document (a one-line error naming the file when it is not JSON)."""
    return read_json_file(source, "HAR file")


def export_har(asked: ExportRequest) -> int:
    """The cassette written to the output as a HAR 1.2 file (never over the cassette, nor over another
    without `force`); how many exchanges it holds."""
    Reads((asked.cassette,)).refuse_bad_output(asked.output, "the HAR file", asked.force)
    read = load_cassette(asked.cassette).cassette
    write_atomically(asked.output, har_text(read), "the HAR file")
    return len(read.exchanges)


def har_text(cassette: Cassette, origins: Sequence[str | None] = ()) -> str:
    """The HAR file `export-har` writes for the cassette (the UI's export gives the same bytes);
    `origins`: each exchange's own upstream, when they were sent to several."""
    from proxy.core.interchange.har import cassette_to_har
    from proxy.version import __version__

    document = cassette_to_har(cassette, __version__, origins)
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
