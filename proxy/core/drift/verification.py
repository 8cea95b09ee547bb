"""What `verify` found, and its reports: text for people, JSON for tools, JUnit (one test case per
exchange) for CI boards, Markdown for a pull-request comment. Volatile differences are counted always
and listed only when asked (`-v`)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from proxy.core.drift.compare import Difference, Tier, is_drift, shown, tier_counts, tiers_phrase
from proxy.core.drift.report import change, difference_line, difference_row, grouped, table_head
from proxy.core.model.exchange import Exchange
from proxy.core.reports.escaping import json_text, markdown_code, visible, xml_attribute, xml_text
from proxy.core.rules.findings import Finding

REFUSALS = frozenset({401, 403})  # the service refuses the credentials: Unauthorized, Forbidden


@dataclass(slots=True)
class Verified:
    """One recorded exchange: what the live service answers now and how it differs, or why it was
    not sent."""

    cassette: str
    index: int
    request: str
    differences: list[Difference] = field(default_factory=list)
    live: Exchange | None = None
    skipped: str | None = None
    recorded_status: int | None = None

    @property
    def drifted(self) -> bool:
        return is_drift(self.differences)


@dataclass(slots=True)
class Verification:
    results: list[Verified]
    findings: list[Finding]

    def counts(self) -> dict[Tier, int]:
        return tier_counts(difference for result in self.results for difference in result.differences)

    @property
    def sent(self) -> int:
        return sum(1 for result in self.results if result.skipped is None)

    def refused(self) -> str | None:
        """Why the live service refused our credentials rather than changed, or None.

        The rule: every request re-sent whose recording was a success (2xx or 3xx) now answers 401 or
        403. One endpoint that starts to ask for other credentials while the rest still answer is a
        change of the service, reported as drift; the same answer on every request is the token."""
        succeeded = [
            result
            for result in self.results
            if result.live is not None and result.recorded_status is not None and result.recorded_status < 400
        ]
        answered = {result.live.response.status for result in succeeded if result.live is not None}
        if not succeeded or not answered <= REFUSALS:
            return None
        statuses = "/".join(str(status) for status in sorted(answered))
        return (
            f"{statuses} on all {len(succeeded)} re-sent requests that recorded a success, "
            f"such as {succeeded[0].request}"
        )

    def failed(self, strict: bool = False) -> bool:
        """Breaking drift (or, strict, data drift too)."""
        counts = self.counts()
        return bool(counts["breaking"] or (strict and counts["data"]))


def verify_json(verification: Verification, verbose: bool = False) -> str:
    drift = [
        {
            "cassette": result.cassette,
            "index": result.index,
            "request": result.request,
            "tier": item.tier,
            "where": item.where,
            "recorded": item.recorded,
            "live": item.live,
        }
        for result in verification.results
        for item in shown(result.differences, verbose)
    ]
    skipped = [
        {"cassette": item.cassette, "index": item.index, "request": item.request, "reason": item.skipped}
        for item in verification.results
        if item.skipped is not None
    ]
    document = {
        "exchanges": verification.sent,
        "drift": drift,
        "counts": verification.counts(),
        "skipped": skipped,
        "findings": [finding.to_json() for finding in verification.findings],
    }
    return json_text(document, indent=2) + "\n"


def verify_text(verification: Verification, verbose: bool = False) -> str:
    lines = [summary(verification)]
    for result in verification.results:
        differences = grouped(shown(result.differences, verbose))
        if differences:
            lines.append(f"{result.cassette} #{result.index} {result.request}")
            lines += [difference_line(item) for item in differences]
    lines += [_finding_line(finding) for finding in verification.findings]
    skipped = [result for result in verification.results if result.skipped is not None]
    if skipped:
        first = skipped[0]
        lines.append(
            f"not sent: {len(skipped)} exchange(s), such as {first.cassette} #{first.index} "
            f"{first.request}: {first.skipped}"
        )
    return "".join(visible(line) + "\n" for line in lines)


def verify_markdown(verification: Verification, verbose: bool = False) -> str:
    counts = verification.counts()
    mark = "❌" if counts["breaking"] else "⚠️" if counts["additive"] or counts["data"] else "✅"
    lines = [f"## {mark} commerce-proxy verify", "", summary(verification), ""]
    rows = [
        difference_row(f"{markdown_code(result.cassette)} #{result.index}", result.request, item)
        for result in verification.results
        for item in grouped(shown(result.differences, verbose))
    ]
    if rows:
        lines += [*table_head("recorded", "live"), *rows, ""]
    lines += [f"- {markdown_code(_finding_line(finding))}" for finding in verification.findings]
    return "\n".join(lines).rstrip("\n") + "\n"


def verify_junit(verification: Verification, strict: bool = False) -> Iterator[str]:
    """One test case per exchange: it fails on breaking drift (with strict, data drift too)."""
    failing: tuple[Tier, ...] = ("breaking", "data") if strict else ("breaking",)
    cases = verification.results
    failures = sum(1 for result in cases if any(item.tier in failing for item in result.differences))
    skipped = sum(1 for result in cases if result.skipped is not None)
    counted = f'tests="{len(cases)}" failures="{failures}"'
    yield '<?xml version="1.0" encoding="utf-8"?>\n'
    yield f'<testsuites name="commerce-proxy" {counted}>\n'
    yield f'  <testsuite name="commerce-proxy verify" {counted} errors="0" skipped="{skipped}">\n'
    for result in cases:
        name = xml_attribute(f"#{result.index} {result.request}")
        yield f"    <testcase classname={xml_attribute(result.cassette)} name={name}"
        bad = [item for item in result.differences if item.tier in failing]
        rest = [item for item in result.differences if item.tier not in failing and item.tier != "volatile"]
        if result.skipped is None and not bad and not rest:
            yield " />\n"
            continue
        yield ">\n"
        if result.skipped is not None:
            yield f"      <skipped message={xml_attribute(result.skipped)} />\n"
        if bad:
            message = xml_attribute(f"{len(bad)} difference(s): {bad[0].tier} {bad[0].where}")
            yield f'      <failure type="drift" message={message}>{_lines(bad)}</failure>\n'
        if rest:
            yield f"      <system-out>{_lines(rest)}</system-out>\n"
        yield "    </testcase>\n"
    yield "  </testsuite>\n</testsuites>\n"


def summary(verification: Verification) -> str:
    tiers = tiers_phrase(verification.counts())
    found = len(verification.findings)
    return (
        f"verified {verification.sent} exchanges against the live service: {tiers}; "
        f"{found} finding(s) on the live answers"
    )


def _finding_line(finding: Finding) -> str:
    return (
        f"{finding.severity} {finding.rule} {finding.cassette} {finding.number} "
        f"{finding.method} {finding.target}: {finding.message}"
    )


def _lines(items: list[Difference]) -> str:
    """The differences as XML character data, one line each."""
    return "\n".join(xml_text(f"{item.tier} {item.where}: {change(item)}") for item in items)
