"""Each test's findings: only what its own traffic caused (servers may outlive a test), attached to its
report so they travel through pytest-xdist, and a strict failure when an error finding is among them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import cast

import pytest

from proxy.core.rules.findings import Finding
from proxy.pytest_plugin.endings import judge_report
from proxy.pytest_plugin.state import CONFORMANCE, STATE, Conformance, PluginState, Served
from proxy.pytest_plugin.summary import (
    ACCEPTED_PROPERTY,
    FINDINGS_PROPERTY,
    STRICT_FAILURE,
    finding_line,
)

CONFORMANCE_MARKER = "commerce_conformance"
OFFSETS = pytest.StashKey[dict[int, int]]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    """Note how far each running server's findings go, so this test gets only what it caused."""
    item.stash[OFFSETS] = {served.serial: len(served.findings) for served in item.config.stash[STATE].live}
    return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    report = _with_findings(item, call, cast(pytest.TestReport, (yield)))
    if STATE in item.config.stash:  # the final outcome, a strict failure included
        judge_report(item.config.stash[STATE], report)
    return report  # type: ignore[return-value]


def _with_findings(
    item: pytest.Item, call: pytest.CallInfo[None], report: pytest.TestReport
) -> pytest.TestReport:
    if call.when != "call" or STATE not in item.config.stash:
        return report
    state = item.config.stash[STATE]
    offsets = item.stash.get(OFFSETS, {})
    caused = [
        (served, finding)
        for served in state.live
        for finding in served.findings[offsets.get(served.serial, 0) :]
    ]
    level = _conformance_of(item, state) if caused else state.conformance
    if level == "off":
        return report  # not judged, as every test of a run with --commerce-conformance=off
    baseline = state.baseline() if caused else None
    if baseline is not None and baseline.keys:
        accepted = sum(1 for _, finding in caused if baseline.accepts(finding))
        if accepted:
            report.user_properties.append((ACCEPTED_PROPERTY, accepted))
            caused = [(served, finding) for served, finding in caused if not baseline.accepts(finding)]
    if not caused:
        return report
    report.user_properties.append((FINDINGS_PROPERTY, [finding.to_json() for _, finding in caused]))
    errors = [(served, finding) for served, finding in caused if finding.severity == "error"]
    if errors and level == "strict":
        text = _failure_text(errors)
        if report.passed:
            report.outcome = "failed"
            report.longrepr = text
        else:
            report.sections.append(("commerce-proxy conformance", text))
    return report


def _conformance_of(item: pytest.Item, state: PluginState) -> Conformance:
    marker = item.get_closest_marker(CONFORMANCE_MARKER)
    if marker is None:
        return state.conformance
    level = marker.args[0] if marker.args else None
    if level not in CONFORMANCE:
        raise pytest.UsageError(
            f"@pytest.mark.{CONFORMANCE_MARKER}({level!r}) on {item.nodeid}: expected one of "
            f"{', '.join(CONFORMANCE)}"
        )
    return cast(Conformance, level)


def _failure_text(errors: list[tuple[Served, Finding]]) -> str:
    lines = [f"{STRICT_FAILURE}: the traffic of this test broke {len(errors)} documented rule(s):"]
    for served, finding in errors:
        lines.append(f"  {finding_line(finding.to_json())}")
        if not _tells_where(finding):  # most rules' messages name where/expected/found already
            lines.append(f"      where {finding.where}: expected {finding.expected}; found {finding.found}")
        lines.append(f"      ({served.action} {served.cassette} at {served.url})")
    return "\n".join(lines)


def _tells_where(finding: Finding) -> bool:
    """Whether the finding's message already says where, what was expected and what was found."""
    return all(part in finding.message for part in (finding.where, finding.expected, finding.found))
