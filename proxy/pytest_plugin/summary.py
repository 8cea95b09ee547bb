"""How the pytest plugin shows findings: each test's travel to the end of the run (through xdist too,
in user_properties) and the summary section listing each finding once."""

from __future__ import annotations

from typing import Any, cast

import pytest

from proxy.core.rules.citation import labelled
from proxy.core.rules.findings import SEVERITIES, exchange_number

FINDINGS_PROPERTY = "commerce_findings"
ACCEPTED_PROPERTY = "commerce_accepted"  # how many findings the project's baseline accepted
SHOWN_PER_TEST = 20
STRICT_FAILURE = "commerce-proxy conformance (strict)"  # how a test failed by its traffic begins
Collected = tuple[str, list[dict[str, Any]], int, bool]  # node id, findings, accepted, shown in failure


def finding_line(finding: dict[str, Any]) -> str:
    return (
        f"{finding['severity']} {finding['rule']} "
        f"{exchange_number(finding['exchange'], finding.get('cassette'))} {finding['method']} "
        f"{finding['target']}: {finding['message']} (see {labelled(finding['rule'], finding['section'])})"
    )


class FindingsSummary:
    """Collects each test's findings as its report arrives (on the xdist controller too: they travel in
    user_properties) and lists them at the end, each once: errors and warnings one line each (errors a
    strict failure showed already are only counted), info with -v; the baseline's are only counted."""

    def __init__(self) -> None:
        self.collected: list[Collected] = []

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        shown_in_failure = report.failed and STRICT_FAILURE in str(report.longrepr or "")
        properties = dict(report.user_properties)
        findings = cast(list[dict[str, Any]], properties.get(FINDINGS_PROPERTY, []))
        accepted = cast(int, properties.get(ACCEPTED_PROPERTY, 0))
        if findings or accepted:
            self.collected.append((report.nodeid, findings, accepted, shown_in_failure))

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self.collected:
            return
        verbose = terminalreporter.config.getoption("verbose") > 0
        terminalreporter.section("commerce-proxy conformance")
        shown: list[Collected] = []
        quiet: list[Collected] = []
        for entry in self.collected:
            (quiet if not verbose and _only_notes(entry[1]) else shown).append(entry)
        for nodeid, findings, accepted, shown_in_failure in shown:
            counts = severity_counts_of(findings)
            parts = [f"{count} {severity}" for severity, count in counts.items() if count]
            if accepted:
                parts.append(f"{accepted} accepted by the baseline")
            summary = ", ".join(parts)
            if shown_in_failure and counts["error"]:
                summary += " (the errors are in its failure above)"
            terminalreporter.write_line(f"{nodeid}: {summary}")
            listed = [
                finding
                for finding in findings
                if (finding["severity"] != "error" or not shown_in_failure)
                and (finding["severity"] != "info" or verbose)
            ]
            for finding in listed[:SHOWN_PER_TEST]:
                terminalreporter.write_line(f"  {finding_line(finding)}")
            if len(listed) > SHOWN_PER_TEST:
                terminalreporter.write_line(f"  ... and {len(listed) - SHOWN_PER_TEST} more")
        if quiet:
            terminalreporter.write_line(_notes_line(quiet))


def _only_notes(findings: list[dict[str, Any]]) -> bool:
    """A test whose findings are all info (any it had accepted by the baseline counted with them): no
    line of its own without -v."""
    return bool(findings) and all(finding["severity"] == "info" for finding in findings)


def _notes_line(quiet: list[Collected]) -> str:
    """One line counting the findings of every test that has only info (or accepted) ones."""
    infos = sum(len(findings) for _, findings, _, _ in quiet)
    accepted = sum(count for _, _, count, _ in quiet)
    parts = [f"{infos} info"] if infos else []
    if accepted:
        parts.append(f"{accepted} accepted by the baseline")
    return f"{len(quiet)} test(s) with only {' and '.join(parts)} (-v lists them)"


def severity_counts_of(findings: list[dict[str, Any]]) -> dict[str, int]:
    """How many findings (as JSON) of each severity, most severe first."""
    counts: dict[str, int] = dict.fromkeys(SEVERITIES, 0)
    for finding in findings:
        counts[finding["severity"]] += 1
    return counts
