"""The `check` reports as text: for people (grouped by rule), JSON (for tools), JUnit XML (for CI boards),
Markdown (for CI job summaries and pull-request comments).

Pure rendering; the CLI decides where the text goes.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from proxy.core.findings import SEVERITIES, Finding, severity_counts
from proxy.core.ruleset import Rule

SEVERITY_ORDER = {severity: position for position, severity in enumerate(SEVERITIES)}


@dataclass(frozen=True, slots=True)
class CassetteResult:
    """One checked cassette: its name, size, new findings and how many the baseline accepted."""

    name: str
    exchanges: int
    findings: Sequence[Finding]
    accepted: int = 0


@dataclass(frozen=True, slots=True)
class Report:
    """Every checked cassette, and the rules that were in force (for JUnit's one case per rule)."""

    cassettes: Sequence[CassetteResult]
    rules: Sequence[Rule] = field(default_factory=tuple)
    off: frozenset[str] = frozenset()

    @property
    def findings(self) -> list[Finding]:
        return [finding for result in self.cassettes for finding in result.findings]

    @property
    def exchanges(self) -> int:
        return sum(result.exchanges for result in self.cassettes)

    @property
    def failed(self) -> bool:
        """Whether any error was found (the exit code is 1 then)."""
        return any(finding.severity == "error" for finding in self.findings)


def _plural(count: int, word: str) -> str:
    if word == "info":
        return f"{count} info"
    return f"{count} {word}" + ("" if count == 1 else "s")


def _summary(findings: Iterable[Finding]) -> str:
    counts = severity_counts(findings)
    return ", ".join(_plural(counts[severity], severity) for severity in SEVERITIES)


def text_report(report: Report) -> str:
    """Per cassette, findings grouped by rule (errors first), each with the exchange and expected/found."""
    lines: list[str] = []
    statements = {rule.id: rule.message.split(": {", 1)[0] for rule in report.rules}
    for result in report.cassettes:
        accepted = f" ({result.accepted} accepted by the baseline)" if result.accepted else ""
        lines.append(f"{result.name}: {result.exchanges} exchanges: {_summary(result.findings)}{accepted}")
        by_rule: dict[str, list[Finding]] = defaultdict(list)
        for finding in result.findings:
            by_rule[finding.rule].append(finding)
        ordered = sorted(by_rule.items(), key=lambda item: (SEVERITY_ORDER[item[1][0].severity], item[0]))
        for rule_id, found in ordered:
            first = found[0]
            statement = statements.get(rule_id, first.message)
            lines.append("")
            lines.append(f"  {first.severity.upper():<7} {rule_id}  ({len(found)}x)  {statement}")
            lines.append(f"          documentation: {first.section}")
            for finding in found:
                lines.append(f"    #{finding.exchange} {finding.method} {finding.target}")
                lines.append(f"        {finding.where}: expected {finding.expected}; found {finding.found}")
        lines.append("")
    total = report.findings
    accepted_count = sum(result.accepted for result in report.cassettes)
    tail = f", {accepted_count} accepted by the baseline" if accepted_count else ""
    counted = f"checked {report.exchanges} exchanges in {len(report.cassettes)} cassette(s)"
    lines.append(f"{counted}: {_summary(total)}{tail}")
    return "\n".join(lines) + "\n"


def json_report(report: Report) -> str:
    """`{"exchanges": N, "findings": [...]}` with per-cassette totals beside them.

    One finding per line: as readable and diffable as indented JSON, and written by the json module's
    C encoder (indent= falls back to the pure-Python one, which cost more than the rules on a large
    report).
    """
    lines = [json.dumps(finding.to_json(), ensure_ascii=False) for finding in report.findings]
    listed = "[\n" + ",\n".join(f"    {line}" for line in lines) + "\n  ]" if lines else "[]"
    rest = {
        "counts": severity_counts(report.findings),
        "cassettes": [
            {
                "path": result.name,
                "exchanges": result.exchanges,
                "counts": severity_counts(result.findings),
                "accepted_by_baseline": result.accepted,
            }
            for result in report.cassettes
        ],
    }
    tail = json.dumps(rest, indent=2, ensure_ascii=False)[1:]  # '\n  "counts": ...\n}'
    return f'{{\n  "exchanges": {report.exchanges},\n  "findings": {listed},{tail}\n'


def junit_report(report: Report) -> str:
    """One test case per rule: it fails when the rule found an error, listing the exchanges; warnings
    and info go to the case's system-out; rules turned off are skipped."""
    by_rule: dict[str, list[Finding]] = defaultdict(list)
    for finding in report.findings:
        by_rule[finding.rule].append(finding)
    suite = ElementTree.Element("testsuite", name="commerce-proxy conformance")
    failures = skipped = 0
    for rule in sorted(report.rules, key=lambda rule: rule.id):
        case = ElementTree.SubElement(
            suite, "testcase", classname=f"commerce-proxy.{rule.id.split('.')[0]}", name=rule.id
        )
        found = by_rule.get(rule.id, [])
        errors = [finding for finding in found if finding.severity == "error"]
        others = [finding for finding in found if finding.severity != "error"]
        if rule.id in report.off:
            ElementTree.SubElement(case, "skipped", message="turned off in the project config")
            skipped += 1
        if errors:
            failures += 1
            failure = ElementTree.SubElement(
                case,
                "failure",
                type="error",
                message=f"{len(errors)} finding(s): {errors[0].message.split(': ', 1)[0]} [{rule.section}]",
            )
            failure.text = "\n".join(_line(finding) for finding in errors)
        if others:
            ElementTree.SubElement(case, "system-out").text = "\n".join(_line(finding) for finding in others)
    suite.set("tests", str(len(report.rules)))
    suite.set("failures", str(failures))
    suite.set("errors", "0")
    suite.set("skipped", str(skipped))
    suites = ElementTree.Element("testsuites", name="commerce-proxy", tests=str(len(report.rules)))
    suites.set("failures", str(failures))
    suites.append(suite)
    ElementTree.indent(suites)
    return (
        '<?xml version="1.0" encoding="utf-8"?>\n' + ElementTree.tostring(suites, encoding="unicode") + "\n"
    )


def _line(finding: Finding) -> str:
    where = f"{finding.cassette} " if finding.cassette else ""
    return (
        f"{finding.severity}: {where}#{finding.exchange} {finding.method} {finding.target}: "
        f"{finding.where}: expected {finding.expected}; found {finding.found}"
    )


def rules_table(rules: Sequence[Rule], severity_of: dict[str, str]) -> str:
    """`commerce-proxy rules`: id, severity in force, and documentation section, one rule a line."""
    width = max((len(rule.id) for rule in rules), default=10)
    lines = [f"{'RULE':<{width}}  {'SEVERITY':<8}  DOCUMENTATION"]
    for rule in sorted(rules, key=lambda rule: rule.id):
        lines.append(f"{rule.id:<{width}}  {severity_of[rule.id]:<8}  {rule.section}")
    return "\n".join(lines) + "\n"


MARKDOWN_FINDINGS_SHOWN = 200  # a pull-request comment holds at most 65,536 characters


def markdown_report(report: Report, endpoint_of: Callable[[Finding], str]) -> str:
    """A summary line, tables per rule and per endpoint, then each finding folded in <details>."""
    findings = report.findings
    counts = severity_counts(findings)
    mark = "❌" if report.failed else ("⚠️" if counts["warning"] else "✅")
    accepted = sum(result.accepted for result in report.cassettes)
    tail = f", {accepted} accepted by the baseline" if accepted else ""
    lines = [
        f"## {mark} commerce-proxy check: {_summary(findings)}{tail}",
        "",
        f"{report.exchanges} exchanges in {len(report.cassettes)} cassette(s): "
        + ", ".join(f"`{result.name}` ({result.exchanges})" for result in report.cassettes),
    ]
    if not findings:
        return "\n".join([*lines, "", "No findings.", ""])
    sections = {rule.id: rule.section for rule in report.rules}
    by_rule: dict[str, list[Finding]] = defaultdict(list)
    by_endpoint: dict[str, list[Finding]] = defaultdict(list)
    for finding in findings:
        by_rule[finding.rule].append(finding)
        by_endpoint[endpoint_of(finding)].append(finding)
    lines += ["", "### By rule", "", "| rule | severity | findings | documentation |", "|---|---|---:|---|"]
    for rule_id, found in sorted(
        by_rule.items(), key=lambda item: (SEVERITY_ORDER[item[1][0].severity], item[0])
    ):
        section = sections.get(rule_id, found[0].section)
        lines.append(f"| `{rule_id}` | {found[0].severity} | {len(found)} | {_cell(section)} |")
    lines += ["", "### By endpoint", "", "| endpoint | errors | warnings | info |", "|---|---:|---:|---:|"]
    for endpoint, found in sorted(by_endpoint.items()):
        per = severity_counts(found)
        lines.append(f"| `{_cell(endpoint)}` | {per['error']} | {per['warning']} | {per['info']} |")
    lines += ["", "### Findings", ""]
    ordered = sorted(
        findings, key=lambda item: (SEVERITY_ORDER[item.severity], item.cassette or "", item.exchange)
    )
    for finding in ordered[:MARKDOWN_FINDINGS_SHOWN]:
        where = f"{finding.cassette} " if finding.cassette else ""
        summary = f"{finding.severity} <code>{finding.rule}</code>: {_html(where)}#{finding.exchange}"
        lines += [
            f"<details><summary>{summary} {finding.method} {_html(finding.target)}</summary>",
            "",
            f"- {_html(_cell(finding.message))}",
            f"- documentation: {_html(_cell(finding.section))}",
            "",
            "</details>",
        ]
    if len(ordered) > MARKDOWN_FINDINGS_SHOWN:
        rest = len(ordered) - MARKDOWN_FINDINGS_SHOWN
        lines += ["", f"... and {rest} more (see `commerce-proxy check --format json`)"]
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    """Text safe inside a Markdown table cell: no pipe ends the cell, no newline ends the row."""
    return text.replace("|", "\\|").replace("\n", " ")


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
