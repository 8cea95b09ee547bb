"""The findings of one checked cassette as the reports read them: counts, one group per rule, and the
order they were found in, without the reports ever needing all of them in one list.

Kept in memory here; `proxy.store.finding_spool` keeps the groups on disk past a limit, so `check`
memory does not grow with the number of findings. No I/O.
"""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Iterable, Iterator

from proxy.core.rules.findings import SEVERITIES, Finding, Severity


class FindingGroups:
    """Findings grouped by rule, in the order each rule first fired, with counts kept as they come."""

    def __init__(self, findings: Iterable[Finding] = ()) -> None:
        self._groups: dict[str, list[tuple[int, Finding]]] = {}  # each numbered in the order found
        self._added = 0
        self._severity: dict[str, Severity] = {}  # the first finding's: a rule's may differ by endpoint
        self._counted: Counter[tuple[str, Severity]] = Counter()  # every count below is a sum of these
        self.add_all(findings)

    def add(self, finding: Finding) -> None:
        """Keep one more finding."""
        rule = finding.rule
        group = self._groups.get(rule)
        if group is None:
            group = self._groups[rule] = []
            self._severity[rule] = finding.severity
        group.append((self._added, finding))
        self._added += 1
        self._counted[rule, finding.severity] += 1

    def add_all(self, findings: Iterable[Finding]) -> None:
        for finding in findings:
            self.add(finding)

    def counts(self) -> dict[Severity, int]:
        """How many of each severity, every severity present."""
        per_severity = Counter[Severity]()
        for (_, severity), count in self._counted.items():
            per_severity[severity] += count
        return {severity: per_severity[severity] for severity in SEVERITIES}

    def rules(self) -> list[tuple[str, Severity, int]]:
        """(rule, severity, count) for each rule that fired, in the order they first fired."""
        per_rule = Counter[str]()
        for (rule, _), count in self._counted.items():
            per_rule[rule] += count
        return [(rule, self._severity[rule], per_rule[rule]) for rule in self._groups]

    def severities_by_rule(self) -> dict[str, Counter[Severity]]:
        """How many findings of each severity each rule made (a rule's severity may differ by endpoint)."""
        found: dict[str, Counter[Severity]] = {}
        for (rule, severity), count in self._counted.items():
            found.setdefault(rule, Counter())[severity] = count
        return found

    def of_rule(self, rule: str) -> Iterator[Finding]:
        """One rule's findings, in the order found."""
        return (finding for _, finding in self._numbered(rule))

    def _numbered(self, rule: str) -> Iterator[tuple[int, Finding]]:
        yield from self.earlier(rule)
        yield from self._groups.get(rule, ())

    def earlier(self, rule: str) -> Iterator[tuple[int, Finding]]:
        """Numbered findings of `rule` no longer held in memory (none here; a spool reads them back)."""
        return iter(())

    def __iter__(self) -> Iterator[Finding]:
        """Every finding, in the order found."""
        streams = [self._numbered(rule) for rule in self._groups]
        return (finding for _, finding in heapq.merge(*streams, key=lambda item: item[0]))

    def __len__(self) -> int:
        return sum(self._counted.values())

    def __bool__(self) -> bool:
        return bool(self._groups)
