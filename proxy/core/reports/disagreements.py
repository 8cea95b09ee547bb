"""The contract's findings in a summary: one line per disagreement, not one per exchange. No I/O.

A disagreement is a rule, an operation and a place in the spec (its `section`: file, JSON pointer down
to the keyword, overlay): the same one over many exchanges is said once, with how many exchanges and
the first few of them. Each exchange's finding stays in the JSON report's detail.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from proxy.core.rules.findings import Finding

CONTRACT_PREFIX = "contract."
FIRST_SHOWN = 3  # exchanges named per disagreement


def is_contract(rule_id: str) -> bool:
    """Whether a rule is the published specs' (`contract.*`), whose findings are summed up by place."""
    return rule_id.startswith(CONTRACT_PREFIX)


@dataclass(slots=True)
class Disagreement:
    """One disagreement's first finding, how many distinct exchanges showed it and the first few of them
    (`last`: the exchange counted last, as (cassette, index))."""

    first: Finding
    count: int = 0
    numbers: list[str] = field(default_factory=list)
    last: tuple[str | None, int] | None = None


def key_of(finding: Finding) -> tuple[str, str, str]:
    """What makes one disagreement: the rule, the place in the spec, and the statement with its
    operation (`the response body breaks the spec's schema (GET /v2/carts/{cartID})`)."""
    return finding.rule, finding.section, finding.message.split(": ", 1)[0]


def operation_of(finding: Finding) -> str:
    """The operation a contract finding names (`GET /v2/carts/{cartID}`)."""
    return finding.message.split(": ", 1)[0].rpartition(" (")[2].rstrip(")")


def disagreements(findings: Iterable[Finding]) -> list[Disagreement]:
    """The findings of one contract rule by disagreement (operation, place in the spec), in the order
    each was first seen, each counting the exchanges that showed it (two findings of one exchange at one
    place, two required properties missing, count it once). The findings come as they were found, an
    exchange's together, so remembering the last exchange counted is enough: memory grows with the
    disagreements, not the findings."""
    found: dict[tuple[str, str, str], Disagreement] = {}
    for finding in findings:
        key = key_of(finding)
        one = found.get(key)
        if one is None:
            one = found[key] = Disagreement(finding)
        exchange = (finding.cassette, finding.exchange)
        if exchange == one.last:
            continue
        one.last = exchange
        one.count += 1
        if len(one.numbers) < FIRST_SHOWN and finding.number not in one.numbers:
            one.numbers.append(finding.number)
    return list(found.values())


def disagreement_lines(findings: Iterable[Finding], shown: int) -> Iterator[str]:
    """The text report's lines of one contract rule: at most `shown` disagreements (0: all)."""
    grouped = disagreements(findings)
    for one in grouped[: shown or None]:
        first = one.first
        more = ", ..." if one.count > len(one.numbers) else ""
        operation = operation_of(first)
        yield f"    {operation}: {one.count} exchange(s) ({', '.join(one.numbers)}{more})"
        yield f"        spec: {first.section}"
        yield f"        {first.where}: expected {first.expected}; found {first.found}"
    if shown and len(grouped) > shown:
        yield f"    ... and {len(grouped) - shown} more disagreement(s) (--per-rule 0 lists them all)"
