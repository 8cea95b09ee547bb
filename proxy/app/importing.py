"""An import: exchanges read from another tool's file gathered into one cassette, redacted like a
recording before anything is written, saved, and checked against the rules."""

from __future__ import annotations

import json
from collections.abc import Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from proxy.app.check_run import check_cassette
from proxy.app.editing import redacted
from proxy.core.cassette.document import Cassette
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
class Imports:
    """What an import wrote and found."""

    cassette: Cassette
    other_origins: int  # exchanges left out for another origin
    withheld: list[str]  # why bodies were not stored, one reason per such exchange
    counts: dict[Severity, int]  # findings by severity


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


def export_har(cassette: Path, output: Path) -> int:
    """The cassette written to `output` as a HAR 1.2 file; how many exchanges it holds."""
    from proxy.core.interchange.har import cassette_to_har
    from proxy.version import __version__

    read = load_cassette(cassette).cassette
    document = cassette_to_har(read, __version__)
    write_atomically(output, json.dumps(document, indent=2, ensure_ascii=False) + "\n", "the HAR file")
    return len(read.exchanges)
