"""What the conformance in_force reports: violations a check sees, findings a rule makes of them.

Also the bounded log a live proxy keeps, so memory stays flat however long it runs. No I/O.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, Literal, TypeAlias

from proxy.core.rules.citation import citation, rule_command
from proxy.core.rules.endpoints import routed_path

Severity: TypeAlias = Literal["error", "warning", "info"]
# The `cassette` of findings on answers `replay --simulate` made up: no cassette holds them.
SIMULATED = "(simulated)"
SEVERITIES: tuple[Severity, ...] = ("error", "warning", "info")
OFF: Literal["off"] = "off"
Setting: TypeAlias = Literal["error", "warning", "info", "off"]  # a severity, or a rule turned off


@dataclass(frozen=True, slots=True)
class Violation:
    """One thing a check saw that a rule forbids: where, what the documentation expects, what was found."""

    where: str
    expected: str
    found: str


@dataclass(frozen=True, slots=True)
class Finding:
    """A violation attributed to a rule and an exchange, at the severity in force for that endpoint."""

    exchange: int
    method: str
    path: str
    target: str
    rule: str
    severity: Severity
    section: str
    message: str
    where: str
    expected: str
    found: str
    cassette: str | None = None

    @property
    def citation(self) -> str:
        """The documentation section(s) the rule enforces and where the user reads them."""
        return citation(self.rule, self.section)

    @property
    def number(self) -> str:
        """How people see which exchange: `#12`, the index `cassette show FILE 12` opens."""
        return exchange_number(self.exchange, self.cassette)

    def to_json(self) -> dict[str, Any]:
        """The JSON report's shape: the keys the issue names first, then the details."""
        document: dict[str, Any] = {
            "exchange": self.exchange,
            "method": self.method,
            "path": self.path,
            "rule": self.rule,
            "severity": self.severity,
            "message": self.message,
            "section": self.section,
            "docs": rule_command(self.rule),
            "citation": self.citation,
            "where": self.where,
            "expected": self.expected,
            "found": self.found,
            "target": self.target,
        }
        if self.cassette is not None:
            document["cassette"] = self.cassette
        return document

    @classmethod
    def from_json(cls, document: Mapping[str, Any]) -> Finding:
        """The finding `to_json` wrote (a checker process's answer): its fields, less what is derived
        from them (`docs`, `citation`), so the report's shape can grow without breaking the reader."""
        return cls(**{name: document[name] for name in _FIELDS if name in document})

    def to_values(self) -> list[Any]:
        """Its fields in order, as a checker process answers: read back in half `from_json`'s time."""
        return [getattr(self, name) for name in _FIELDS]

    @classmethod
    def from_values(cls, values: Sequence[Any]) -> Finding:
        """The finding `to_values` wrote; ValueError for anything else."""
        if not isinstance(values, list) or len(values) != len(_FIELDS):
            raise ValueError("a finding is a list of its fields")
        return cls(*values)

    @property
    def baseline_key(self) -> tuple[str, str, str, str]:
        """What makes two findings 'the same' for a baseline: rule, request line without query (routed:
        any spelling of the same request), place."""
        return (self.rule, self.method, routed_path(self.path), self.where)


_FIELDS = tuple(field.name for field in fields(Finding))  # what from_json reads


SEVERITY_ORDER = {severity: position for position, severity in enumerate(SEVERITIES)}


def exchange_number(index: int, cassette: str | None) -> str:
    """`#12`, or `simulated #3` for the fourth answer `replay --simulate` made up."""
    return f"simulated #{index}" if cassette == SIMULATED else f"#{index}"


def counts_phrase(counts: Mapping[Severity, int]) -> str:
    """`1 error, 2 warnings, 3 info`: every severity, most severe first."""
    return ", ".join(
        f"{counts.get(severity, 0)} {severity}"
        + ("" if counts.get(severity, 0) == 1 or severity == "info" else "s")
        for severity in SEVERITIES
    )


def severity_counts(findings: Iterable[Finding]) -> dict[Severity, int]:
    """How many findings of each severity, every severity present (zero when none)."""
    counted = Counter(finding.severity for finding in findings)
    return {severity: counted.get(severity, 0) for severity in SEVERITIES}


class FindingsLog:
    """Live findings: the most recent ones in a ring buffer, and counts per rule for all of them."""

    def __init__(self, capacity: int = 1000) -> None:
        self.recent: deque[Finding] = deque(maxlen=capacity)
        self.per_rule: Counter[str] = Counter()
        self.severity_of: dict[str, Severity] = {}
        self.exchanges = 0

    def add(self, findings: Iterable[Finding]) -> None:
        """Count one checked exchange and keep its findings."""
        self.exchanges += 1
        for finding in findings:
            self.recent.append(finding)
            self.per_rule[finding.rule] += 1
            self.severity_of[finding.rule] = finding.severity

    def summary(self, rules_shown: int = 5) -> str:
        """One line for the end of a live session: counts by severity over the exchanges checked, and
        the rules that found most, errors first."""
        counts = Counter[Severity]()
        for rule, count in self.per_rule.items():
            counts[self.severity_of[rule]] += count
        line = counts_phrase(counts)
        ranked = sorted(
            self.per_rule.items(),
            key=lambda item: (SEVERITY_ORDER[self.severity_of[item[0]]], -item[1], item[0]),
        )
        shown = ", ".join(f"{rule} {count}x" for rule, count in ranked[:rules_shown])
        more = f", {len(ranked) - rules_shown} more rule(s)" if len(ranked) > rules_shown else ""
        return f"checked {self.exchanges} exchanges: {line}" + (f" ({shown}{more})" if shown else "")

    def to_json(self) -> dict[str, Any]:
        """The `check --format json` shape, plus totals that cover findings no longer buffered."""
        totals = {
            rule: {"severity": self.severity_of[rule], "count": count}
            for rule, count in sorted(self.per_rule.items())
        }
        kept = list(self.recent)
        return {
            "exchanges": self.exchanges,
            "findings": [finding.to_json() for finding in kept],
            "totals": totals,
            "dropped": sum(self.per_rule.values()) - len(kept),
        }
