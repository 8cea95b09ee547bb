"""The contract's findings in a summary: one line per disagreement, not one per exchange. No I/O.

A disagreement is a rule, an operation and a place in the spec (its `section`: file, JSON pointer down
to the keyword, overlay): the same one over many exchanges is said once, with how many exchanges and
the first few of them. Each exchange's finding stays in the JSON report's detail.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from proxy.core.rules.findings import Finding

CONTRACT_PREFIX = "contract."
FIRST_SHOWN = 3  # exchanges named per disagreement
SAID_SHOWN = 5  # distinct statements (where, expected, found) shown per disagreement
SAID_KEPT = 100  # distinct statements counted per disagreement, at most


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
    said: dict[tuple[str, str, str], None] = field(default_factory=dict)  # distinct statements, in order

    def hear(self, finding: Finding) -> None:
        """Keep what this finding says (`where`, expected, found), when it is new (up to `SAID_KEPT`)."""
        if len(self.said) < SAID_KEPT:
            self.said.setdefault((finding.where, finding.expected, finding.found), None)


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
        one.hear(finding)
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
        for where, expected, found in itertools.islice(one.said, SAID_SHOWN):
            yield f"        {where}: expected {expected}; found {found}"
        if len(one.said) > SAID_SHOWN:
            at_least = "at least " if len(one.said) == SAID_KEPT else ""
            yield f"        ... and {at_least}{len(one.said) - SAID_SHOWN} more (the JSON report has each)"
    if shown and len(grouped) > shown:
        yield f"    ... and {len(grouped) - shown} more disagreement(s) (--per-rule 0 lists them all)"
