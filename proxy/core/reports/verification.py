"""The reports of `verify`: text for people, JSON for tools, JUnit (one test case per exchange) for CI
boards, Markdown for a pull-request comment. Volatile differences are counted always and listed only
when asked (`-v`). A difference a published spec tiered, and a finding of the specs' rules, name their
source (`spec: FILE#POINTER`, with the overlay that shaped that place) in every format. Every value
from traffic or a file name goes through its format's function of `proxy.core.reports.escaping`."""

from __future__ import annotations

from collections.abc import Iterator

from proxy.core.drift.compare import Difference, Tier, tier_counts
from proxy.core.drift.verification import Verification, Verified
from proxy.core.reports.differences import (
    difference_line,
    difference_row,
    grouped,
    shown,
    table_head,
    tiers_phrase,
)
from proxy.core.reports.escaping import json_text, markdown_code, visible, xml_attribute, xml_text
from proxy.core.rules.citation import cited_as
from proxy.core.rules.findings import Finding


def verify_json(verification: Verification, verbose: bool = False) -> str:
    drift = [
        {
            "cassette": result.cassette,
            "index": result.index,
            "request": result.request,
            **item.to_json(),
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
        "cassettes": _per_cassette(verification),
    }
    return json_text(document, indent=2) + "\n"


def _per_cassette(verification: Verification) -> list[dict[str, object]]:
    """Each cassette verified, in order: how many of its exchanges were sent and skipped, and its
    differences counted by tier (volatile too, listed or not), so a reader (the UI) can tell a cassette
    that did not change from one that was not verified."""
    grouped_results: dict[str, list[Verified]] = {}
    for result in verification.results:
        grouped_results.setdefault(result.cassette, []).append(result)
    return [
        {
            "cassette": name,
            "sent": sum(1 for result in results if result.skipped is None),
            "skipped": sum(1 for result in results if result.skipped is not None),
            "counts": tier_counts(item for result in results for item in result.differences),
        }
        for name, results in grouped_results.items()
    ]


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
    found: dict[tuple[str | None, int], list[Finding]] = {}
    for finding in verification.findings:
        found.setdefault((finding.cassette, finding.exchange), []).append(finding)
    for result in cases:
        name = xml_attribute(f"#{result.index} {result.request}")
        yield f"    <testcase classname={xml_attribute(result.cassette)} name={name}"
        bad = [item for item in result.differences if item.tier in failing]
        rest = [item for item in result.differences if item.tier not in failing and item.tier != "volatile"]
        notes = "\n".join(
            xml_text(_finding_line(one)) for one in found.get((result.cassette, result.index), ())
        )
        if result.skipped is None and not bad and not rest and not notes:
            yield " />\n"
            continue
        yield ">\n"
        if result.skipped is not None:
            yield f"      <skipped message={xml_attribute(result.skipped)} />\n"
        if bad:
            message = xml_attribute(failure_message(bad, failing))
            yield f'      <failure type="drift" message={message}>{_lines(bad)}</failure>\n'
        if rest or notes:
            said = "\n".join(part for part in (_lines(rest), notes) if part)
            yield f"      <system-out>{said}</system-out>\n"
        yield "    </testcase>\n"
    yield "  </testsuite>\n</testsuites>\n"


MESSAGE_GROUPS = 3  # a failure's message names this many; its body lists them all


def failure_message(bad: list[Difference], failing: tuple[Tier, ...]) -> str:
    """A JUnit failure's one-line message, said as the text report and the failure's body say it:
    `12 breaking: breaking json.data[*].name missing (12x)`, the counts of the summary, then the first
    grouped differences (the same difference in every record of a list is one)."""
    counts = tier_counts(bad)
    phrase = ", ".join(f"{counts[tier]} {tier}" for tier in failing if counts[tier])
    groups = grouped(bad)
    said = [" ".join(difference_line(item).split(maxsplit=1)) for item in groups[:MESSAGE_GROUPS]]
    more = len(groups) - MESSAGE_GROUPS
    return f"{phrase}: {'; '.join(said)}" + (f"; and {more} more" if more > 0 else "")


def refused_report(form: str, reason: str) -> str:
    """The report, in the format asked for, of a run whose credentials the service refused (`reason`:
    the line `verify` prints): no drift, so a job that uploads its report has one saying why."""
    line = f"not verified: {reason}"
    if form == "json":
        document = {
            "refused": reason,
            "exchanges": 0,
            "drift": [],
            "counts": dict.fromkeys(("breaking", "additive", "data", "volatile"), 0),
            "skipped": [],
            "findings": [],
            "cassettes": [],
        }
        return json_text(document, indent=2) + "\n"
    if form == "markdown":
        return f"## ⛔ commerce-proxy verify\n\n{markdown_code(line)}\n"
    if form == "junit":
        return (
            '<?xml version="1.0" encoding="utf-8"?>\n'
            '<testsuites name="commerce-proxy" tests="1" failures="0" errors="1">\n'
            '  <testsuite name="commerce-proxy verify" tests="1" failures="0" errors="1" skipped="0">\n'
            '    <testcase classname="commerce-proxy" name="credentials">\n'
            f'      <error type="credentials refused" message={xml_attribute(line)} />\n'
            "    </testcase>\n  </testsuite>\n</testsuites>\n"
        )
    return visible(line) + "\n"


def summary(verification: Verification) -> str:
    tiers = tiers_phrase(verification.counts())
    found = len(verification.findings)
    return (
        f"verified {verification.sent} exchanges against the live service: {tiers}; "
        f"{found} finding(s) on the live answers"
    )


def _finding_line(finding: Finding) -> str:
    """One finding on a live answer; one of the specs' rules ends with its source (`(spec: ...)`)."""
    source = f" (spec: {finding.section})" if cited_as(finding.rule) == "spec" else ""
    return (
        f"{finding.severity} {finding.rule} {finding.cassette} {finding.number} "
        f"{finding.method} {finding.target}: {finding.message}{source}"
    )


def _lines(items: list[Difference]) -> str:
    """The differences as XML character data, one line each, the same difference in every record of a
    list one line (`json.data[*].name missing (12x)`) as in the text report."""
    return "\n".join(xml_text(difference_line(item).strip()) for item in grouped(items))
