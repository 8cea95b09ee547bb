"""The `check` reports as text: for people (grouped by rule), JSON (for tools), JUnit XML (for CI boards),
Markdown (for CI job summaries and pull-request comments).

Pure rendering; the CLI decides where the text goes.
"""

from __future__ import annotations

import itertools
import operator
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from proxy.core.contract.coverage import Coverage
from proxy.core.reports.coverage import coverage_json, coverage_lines, coverage_markdown
from proxy.core.reports.disagreements import disagreement_lines, is_contract
from proxy.core.reports.escaping import html_text, json_text, markdown_code, visible, xml_attribute, xml_text
from proxy.core.reports.finding_groups import FindingGroups
from proxy.core.reports.unjudged import group_items, group_lines, headline, unjudged_json
from proxy.core.rules.citation import citation, labelled
from proxy.core.rules.findings import SEVERITIES, SEVERITY_ORDER, Finding, Severity, counts_phrase
from proxy.core.rules.path_shapes import folded_counts
from proxy.core.rules.ruleset import Rule
from proxy.core.rules.unjudged import UnjudgedTally, summed


@dataclass(frozen=True, slots=True)
class CassetteResult:
    """One checked cassette: its name, size, new findings, how many the baseline accepted, and the
    exchanges no rule about the answer judged."""

    name: str
    exchanges: int
    findings: FindingGroups
    accepted: int = 0
    unjudged: UnjudgedTally = field(default_factory=UnjudgedTally)


@dataclass(frozen=True, slots=True)
class Report:
    """Every checked cassette, and the rules that were in force (for JUnit's one case per rule)."""

    cassettes: Sequence[CassetteResult]
    rules: Sequence[Rule] = field(default_factory=tuple)
    off: frozenset[str] = frozenset()
    coverage: Coverage | None = None  # what the specs' operations saw, when `--coverage` asks

    def counts(self) -> dict[Severity, int]:
        """How many new findings of each severity, over every cassette."""
        totals = Counter[Severity]()
        for result in self.cassettes:
            totals.update(result.findings.counts())
        return {severity: totals[severity] for severity in SEVERITIES}

    @property
    def exchanges(self) -> int:
        return sum(result.exchanges for result in self.cassettes)

    @property
    def accepted(self) -> int:
        return sum(result.accepted for result in self.cassettes)

    @property
    def unjudged(self) -> UnjudgedTally:
        """The exchanges no rule about the answer judged, over every cassette."""
        return summed(result.unjudged for result in self.cassettes)

    @property
    def failed(self) -> bool:
        """Whether any error was found (the exit code is 1 then)."""
        return self.counts()["error"] > 0

    def of_rule(self, rule: str) -> Iterator[Finding]:
        """One rule's findings, cassette after cassette."""
        for result in self.cassettes:
            yield from result.findings.of_rule(rule)

    def severities_by_rule(self) -> dict[str, Counter[Severity]]:
        """How many findings of each severity every rule made, over every cassette (a rule's severity
        may differ by endpoint)."""
        totals: dict[str, Counter[Severity]] = {}
        for result in self.cassettes:
            for rule, counts in result.findings.severities_by_rule().items():
                totals.setdefault(rule, Counter()).update(counts)
        return totals

    def rule_totals(self) -> list[tuple[str, Severity, int]]:
        """(rule, severity, count) over every cassette, errors first, then by rule."""
        severity: dict[str, Severity] = {}
        count: Counter[str] = Counter()
        for result in self.cassettes:
            for rule, its_severity, found in result.findings.rules():
                severity.setdefault(rule, its_severity)
                count[rule] += found
        return sorted(
            ((rule, severity[rule], count[rule]) for rule in count),
            key=lambda item: (SEVERITY_ORDER[item[1]], item[0]),
        )


def text_report(report: Report, per_rule: int = 0, summary_only: bool = False) -> Iterator[str]:
    """Per cassette, findings grouped by rule (errors first), each with the exchange and expected/found:
    at most `per_rule` exchanges a rule (0: all), then how many more; only the count lines when
    `summary_only` (`-q`). Every line goes through `visible`, so no value can add one."""
    for line in _text_lines(report, per_rule, summary_only):
        yield visible(line) + "\n"


def _text_lines(report: Report, per_rule: int, summary_only: bool) -> Iterator[str]:
    statements = {rule.id: rule.message.split(": {", 1)[0] for rule in report.rules}
    for result in report.cassettes:
        accepted = f" ({result.accepted} accepted by the baseline)" if result.accepted else ""
        counts = result.findings.counts()
        yield f"{result.name}: {result.exchanges} exchanges: {counts_phrase(counts)}{accepted}"
        if summary_only:
            continue
        ordered = sorted(result.findings.rules(), key=lambda item: (SEVERITY_ORDER[item[1]], item[0]))
        for rule_id, severity, count in ordered:
            found = result.findings.of_rule(rule_id)
            first = next(found)
            statement = statements.get(rule_id, first.message)
            yield ""
            yield f"  {severity.upper():<7} {rule_id}  ({count}x)  {statement}"
            if is_contract(rule_id):  # once per disagreement, with its source
                yield from disagreement_lines(itertools.chain((first,), found), per_rule)
                continue
            yield f"          documentation: {first.citation}"
            shown = itertools.chain((first,), found)
            for finding in itertools.islice(shown, per_rule or None):
                yield f"    #{finding.exchange} {finding.method} {finding.target}"
                yield f"        {finding.where}: expected {finding.expected}; found {finding.found}"
            if per_rule and count > per_rule:
                yield f"    ... and {count - per_rule} more (--per-rule 0 lists them all)"
        yield ""
    tail = f", {report.accepted} accepted by the baseline" if report.accepted else ""
    counted = f"checked {report.exchanges} exchanges in {len(report.cassettes)} cassette(s)"
    yield f"{counted}: {counts_phrase(report.counts())}{tail}"
    unjudged = report.unjudged
    if unjudged:
        yield headline(unjudged, report.exchanges) + ("" if summary_only else ":")
        if not summary_only:
            yield from (f"  {line}" for line in group_lines(unjudged))
    if report.coverage is not None:
        lines = coverage_lines(report.coverage)
        yield from [lines[0].rstrip(":")] if summary_only else lines


def json_report(report: Report) -> Iterator[str]:
    """`{"exchanges": N, "findings": [...]}` with per-cassette totals beside them.

    One finding per line: as readable and diffable as indented JSON, and written by the json module's
    C encoder (indent= falls back to the pure-Python one, which cost more than the rules on a large
    report).
    """
    yield f'{{\n  "exchanges": {report.exchanges},\n  "findings": ['
    separator = "\n"
    for result in report.cassettes:
        for finding in result.findings:
            yield f"{separator}    {json_text(finding.to_json())}"
            separator = ",\n"
    yield "\n  ]," if separator == ",\n" else "],"
    rest = {
        "counts": report.counts(),
        "cassettes": [
            {
                "path": result.name,
                "exchanges": result.exchanges,
                "counts": result.findings.counts(),
                "accepted_by_baseline": result.accepted,
                "unjudged": result.unjudged.exchanges,
            }
            for result in report.cassettes
        ],
        "unjudged": unjudged_json(report.unjudged),
    }
    if report.coverage is not None:
        rest["coverage"] = coverage_json(report.coverage)
    yield json_text(rest, indent=2)[1:] + "\n"  # '\n  "counts": ...\n}'


def junit_report(report: Report) -> Iterator[str]:
    """One test case per rule: it fails when the rule found an error, listing the exchanges; warnings
    and info go to the case's system-out; rules turned off are skipped. The exchanges no rule about the
    answer judged are one more case, skipped (a CI board shows it grey, never as a pass), its
    system-out naming them."""
    per_rule = report.severities_by_rule()
    rules = sorted(report.rules, key=lambda rule: rule.id)
    unjudged = report.unjudged
    tests = str(len(rules) + (1 if unjudged else 0))
    failures = str(sum(1 for counts in per_rule.values() if counts["error"]))
    skipped = str(sum(1 for rule in rules if rule.id in report.off) + (1 if unjudged else 0))
    yield '<?xml version="1.0" encoding="utf-8"?>\n'
    yield f'<testsuites name="commerce-proxy" tests="{tests}" failures="{failures}">\n'
    yield (
        f'  <testsuite name="commerce-proxy conformance" tests="{tests}" failures="{failures}" '
        f'errors="0" skipped="{skipped}">\n'
    )
    if unjudged:
        said = headline(unjudged, report.exchanges)
        lines = [said + ":", *group_lines(unjudged)]
        yield '    <testcase classname="commerce-proxy.coverage" name="not judged">\n'
        yield f"      <skipped message={xml_attribute(said)} />\n"
        yield f"      <system-out>{chr(10).join(xml_text(line) for line in lines)}</system-out>\n"
        yield "    </testcase>\n"
    for rule in rules:
        counts = per_rule.get(rule.id, Counter())
        errors, others = counts["error"], counts["warning"] + counts["info"]
        opening = (
            f"    <testcase classname={xml_attribute('commerce-proxy.' + rule.id.split('.')[0])} "
            f"name={xml_attribute(rule.id)}"
        )
        if rule.id not in report.off and not errors and not others:
            yield opening + " />\n"
            continue
        yield opening + ">\n"
        rule_citation = citation(rule.id, rule.section)
        if rule.id in report.off:
            yield '      <skipped message="turned off in the project config" />\n'
        if errors:
            found = (finding for finding in report.of_rule(rule.id) if finding.severity == "error")
            first = next(found)
            message = f"{errors} finding(s): {first.message.split(': ', 1)[0]} [{rule_citation}]"
            yield f'      <failure type="error" message={xml_attribute(message)}>'
            yield from _lines_escaped(itertools.chain((first,), found))
            yield "</failure>\n"
        if others:
            yield f"      <system-out>{xml_text(labelled(rule.id, rule.section))}\n"
            yield from _lines_escaped(f for f in report.of_rule(rule.id) if f.severity != "error")
            yield "</system-out>\n"
        yield "    </testcase>\n"
    yield "  </testsuite>\n</testsuites>\n"


def _lines_escaped(findings: Iterable[Finding]) -> Iterator[str]:
    """One line per finding, XML-escaped, with no newline after the last."""
    separator = ""
    for finding in findings:
        yield separator + xml_text(_line(finding))
        separator = "\n"


def _line(finding: Finding) -> str:
    where = f"{finding.cassette} " if finding.cassette else ""
    source = f" [spec: {finding.section}]" if is_contract(finding.rule) else ""
    return (
        f"{finding.severity}: {where}#{finding.exchange} {finding.method} {finding.target}: "
        f"{finding.where}: expected {finding.expected}; found {finding.found}{source}"
    )


MARKDOWN_FINDINGS_SHOWN = 200  # a pull-request comment holds at most 65,536 characters
MARKDOWN_ENDPOINTS_SHOWN = 50  # rows of the per-endpoint table, those of most findings


def markdown_report(
    report: Report, endpoint_of: Callable[[Finding], str], title: str = "commerce-proxy check"
) -> Iterator[str]:
    """A summary line, tables per rule and per endpoint, then each finding folded in <details>.

    Every value from a cassette is a `markdown_code` span in Markdown, and `html_text` in the
    <details> blocks, which are raw HTML for every renderer (one block: no blank line inside)."""
    counts = report.counts()
    unjudged = report.unjudged
    # ⚪ when no exchange was judged: a report no rule could look at is never a pass.
    nothing_judged = report.exchanges > 0 and unjudged.exchanges >= report.exchanges
    mark = "❌" if counts["error"] else "⚠️" if counts["warning"] else "⚪" if nothing_judged else "✅"
    tail = f", {report.accepted} accepted by the baseline" if report.accepted else ""
    yield f"## {mark} {title}: {counts_phrase(counts)}{tail}\n\n"
    yield (
        f"{report.exchanges} exchanges in {len(report.cassettes)} cassette(s): "
        + ", ".join(f"{markdown_code(result.name)} ({result.exchanges})" for result in report.cassettes)
        + "\n"
    )
    if unjudged:
        yield f"\n**{headline(unjudged, report.exchanges)}:**\n\n"
        for name, what in group_items(unjudged):
            yield f"- {markdown_code(name)}: {what}\n" if name is not None else f"- {what}\n"
    if report.coverage is not None:
        yield from coverage_markdown(report.coverage)
    if not any(counts.values()):
        yield "\nNo findings.\n"
        return
    sections = {rule.id: rule.section for rule in report.rules}
    yield "\n### By rule\n\n| rule | severity | findings | documentation or spec |\n|---|---|---:|---|\n"
    for rule_id, severity, count in report.rule_totals():
        cited = citation(rule_id, sections.get(rule_id) or next(report.of_rule(rule_id)).section)
        yield f"| {markdown_code(rule_id)} | {severity} | {count} | {markdown_code(cited)} |\n"
    by_endpoint: dict[str, Counter[Severity]] = {}
    for result in report.cassettes:
        for finding in result.findings:
            by_endpoint.setdefault(endpoint_of(finding), Counter())[finding.severity] += 1
    by_endpoint = folded_counts(by_endpoint, operator.add)
    yield "\n### By endpoint\n\n| endpoint | errors | warnings | info |\n|---|---:|---:|---:|\n"
    rows = sorted(by_endpoint.items(), key=lambda item: (-item[1].total(), item[0]))
    for endpoint, per in sorted(rows[:MARKDOWN_ENDPOINTS_SHOWN]):
        yield f"| {markdown_code(endpoint)} | {per['error']} | {per['warning']} | {per['info']} |\n"
    if len(rows) > MARKDOWN_ENDPOINTS_SHOWN:
        per = sum((per for _, per in rows[MARKDOWN_ENDPOINTS_SHOWN:]), Counter[Severity]())
        more = f"and {len(rows) - MARKDOWN_ENDPOINTS_SHOWN} more"
        yield f"| {more} | {per['error']} | {per['warning']} | {per['info']} |\n"
    yield "\n### Findings\n\n"
    by_name = sorted(report.cassettes, key=lambda result: result.name)
    ordered = (
        finding
        for severity in SEVERITIES
        for result in by_name
        for finding in result.findings
        if finding.severity == severity
    )
    for finding in itertools.islice(ordered, MARKDOWN_FINDINGS_SHOWN):
        where = f"{finding.cassette} " if finding.cassette else ""
        summary = f"{finding.severity} <code>{html_text(finding.rule)}</code>: {html_text(where)}"
        request = html_text(f"#{finding.exchange} {finding.method} {finding.target}")
        yield (
            f"<details><summary>{summary}{request}</summary>\n"
            f"<p>{html_text(finding.message)}<br>\n{html_text(labelled(finding.rule, finding.section))}</p>\n"
            "</details>\n"
        )
    total = sum(counts.values())
    if total > MARKDOWN_FINDINGS_SHOWN:
        rest = total - MARKDOWN_FINDINGS_SHOWN
        yield f"\n... and {rest} more (`--format json` lists them all)\n"
