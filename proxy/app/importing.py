"""An import: exchanges read from another tool's file gathered into one cassette, redacted like a
recording before anything is written, saved, and checked against the rules."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from proxy.app.check_run import check_cassette
from proxy.app.editing import redacted
from proxy.core.cassette.document import Cassette
from proxy.core.interchange.imports import Imported, assemble
from proxy.core.model.withheld import withheld_in
from proxy.core.redaction.policy import RedactionPolicy
from proxy.core.rules.findings import Severity, severity_counts
from proxy.store import clock
from proxy.store.rule_files import RulesInForce
from proxy.store.saving import save_cassette


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
    engine: RulesInForce,
    policy: RedactionPolicy,
) -> Imports:
    """Gather `items` (those of origin `wanted`, or the only origin) into `output`, redacted."""
    result = assemble(items, source, wanted, clock.now())
    cassette = redacted(result.cassette, policy)
    save_cassette(output, cassette)
    reasons = [reason for exchange in cassette.exchanges if (reason := withheld_in(exchange))]
    counts = severity_counts(check_cassette(engine, cassette, str(output)))
    return Imports(cassette, sum(result.other_origins.values()), reasons, counts)
