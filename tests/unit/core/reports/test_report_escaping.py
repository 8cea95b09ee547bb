"""Every report format escapes every value that came from traffic or a file name.

Hostile strings (line breaks, HTML comments, links and bare URLs, pipes, backtick runs, tags, control
characters, NUL, U+2028, bidi overrides, lone surrogates) are drawn into every such field: method,
path, query, findings' texts, differences, cassette names. Each format is rendered, then read back by
a real parser: Markdown by markdown-it (GitHub's flavour, bare URLs linkified) and Python-Markdown,
XML by ElementTree, JSON by the json module, the HTML page by html.parser.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ElementTree
from collections import Counter
from html.parser import HTMLParser

import markdown
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from proxy.core.drift.compare import Difference
from proxy.core.drift.pairing import CassetteDiff, Pair, Unpaired
from proxy.core.drift.verification import Verification, Verified
from proxy.core.model.exchange import Body
from proxy.core.replay.usage import usage_summary
from proxy.core.reports.cassette_diff import diff_json, diff_markdown, diff_text
from proxy.core.reports.escaping import markdown_code, visible
from proxy.core.reports.finding_groups import FindingGroups
from proxy.core.reports.formats import (
    CassetteResult,
    Report,
    json_report,
    junit_report,
    markdown_report,
    text_report,
)
from proxy.core.reports.html import html_report, report_data
from proxy.core.reports.verification import verify_json, verify_junit, verify_markdown, verify_text
from proxy.core.rules.findings import SEVERITIES, Finding
from proxy.core.rules.ruleset import Rule
from proxy.store.report_templates import page_template
from tests.conftest import make_exchange, make_request

# Many drawn cases over the same code: run, asserted, not traced (scripts/test's coverage
# step); other tests measure these lines.
pytestmark = pytest.mark.no_cover

FRAGMENTS = (
    "\n",
    "\r",
    "\r\n",
    "\n\n",
    "<!--",
    "-->",
    "<!-- x -->",
    "[x](javascript:alert(1))",
    "![i](http://evil.example/i.png)",
    "http://evil.example/a",
    "https://evil.example",
    "www.evil.example",
    "<http://evil.example>",
    "mail@evil.example",
    "|",
    "\\|",
    "`",
    "``",
    "```",
    "<script>alert(1)</script>",
    "<a href='x'>",
    "</details>",
    "</summary>",
    "<img src=x onerror=alert(1)>",
    "&amp;",
    "&#60;",
    "]]>",
    "\\",
    "*",
    "_",
    "# ",
    "- ",
    "> ",
    "---",
    "| a | b |",
    "\t",
    " ",
    "\x00",
    "\x1b[31m",
    "\x7f",
    "\x85",
    "\u2028",
    "\u2029",
    "\u202e",
    "\u200f",
    "\ufeff",
    "\ud800",
    "\udfff",
    "\ufffe",
    "\uffff",
    '"',
    "'",
)
HOSTILE = st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=4)), min_size=1, max_size=6).map(
    "".join
)
RULES = (
    Rule("pagination.page.current", "error", "Pagination", "page: {found}", ("GET *",), "c"),
    Rule("auth.header", "warning", "Auth | tokens", "auth: {found}", ("*",), "c"),
    Rule("coverage.error-body", "info", "Errors", "errors: {found}", ("*",), "c"),
)
EXAMPLES = settings(max_examples=80, deadline=None, database=None, derandomize=True)


@st.composite
def findings(draw: st.DrawFn, cassette: str) -> Finding:
    rule = draw(st.sampled_from(RULES))
    path = draw(HOSTILE)
    return Finding(
        exchange=draw(st.integers(0, 9)),
        method=draw(HOSTILE),
        path=path,
        target=path + "?" + draw(HOSTILE),
        rule=rule.id,
        severity=draw(st.sampled_from(SEVERITIES)),
        section=draw(HOSTILE),
        message=draw(HOSTILE),
        where=draw(HOSTILE),
        expected=draw(HOSTILE),
        found=draw(HOSTILE),
        cassette=cassette,
    )


@st.composite
def reports(draw: st.DrawFn) -> Report:
    names = draw(st.lists(HOSTILE, min_size=1, max_size=3))
    results = []
    for name in names:
        found = draw(st.lists(findings(name), max_size=4))
        results.append(CassetteResult(name, draw(st.integers(1, 20)), FindingGroups(found)))
    return Report(results, RULES)


class Parsed(HTMLParser):
    """What a rendered page holds: tags with their attributes, comments, and the text."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: Counter[str] = Counter()
        self.attributes: list[tuple[str, str]] = []
        self.comments: list[str] = []
        self.text: list[str] = []
        self.feed(html)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags[tag] += 1
        self.attributes += [(tag, name) for name, _ in attrs]

    def handle_comment(self, data: str) -> None:
        self.comments.append(data)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


MARKDOWN_TAGS = {"h2", "h3", "p", "table", "thead", "tbody", "tr", "th", "td", "code", "details", "summary"}
MARKDOWN_TAGS |= {"br", "ul", "li"}


def rendered(text: str) -> list[Parsed]:
    """The Markdown as GitHub-like markdown-it (bare URLs linkified, raw HTML passed) and as
    Python-Markdown render it, each parsed."""
    github = MarkdownIt("gfm-like").render(text)
    python = markdown.markdown(text, extensions=["tables"])
    return [Parsed(github), Parsed(python)]


def assert_inert(page: Parsed) -> None:
    """Nothing from traffic became markup: no link, image, comment, script or other tag, no attribute
    but a table column's alignment."""
    assert page.comments == []
    assert set(page.tags) <= MARKDOWN_TAGS, page.tags
    assert {name for _, name in page.attributes} <= {"style"}, page.attributes


@EXAMPLES
@given(reports())
def test_markdown_check_report_keeps_every_row_and_finding_and_links_nothing(report: Report) -> None:
    text = "".join(markdown_report(report, lambda finding: f"{finding.method} {finding.path}"))
    every = [finding for result in report.cassettes for finding in result.findings]
    endpoints = {f"{finding.method} {finding.path}" for finding in every}
    rules = len(report.rule_totals())
    for page in rendered(text):
        assert_inert(page)
        if not every:
            assert page.tags["code"] == len(report.cassettes) and "table" not in page.tags
            continue
        assert page.tags["details"] == len(every)
        assert page.tags["tr"] == 2 + rules + len(endpoints)
        assert page.tags["td"] == 4 * (rules + len(endpoints))
        # one span per cassette name, two per rule row, one per endpoint row, one per finding
        assert page.tags["code"] == len(report.cassettes) + 2 * rules + len(endpoints) + len(every)


@EXAMPLES
@given(reports())
def test_junit_check_report_parses_and_holds_each_finding_as_one_escaped_line(report: Report) -> None:
    text = "".join(junit_report(report))
    root = ElementTree.fromstring(text.encode("utf-8"))
    for case in root.iter("testcase"):
        rule = case.get("name")
        errors = [finding for finding in report.of_rule(str(rule)) if finding.severity == "error"]
        failure = case.find("failure")
        assert (failure is not None) == bool(errors)
        if failure is not None:
            lines = (failure.text or "").split("\n")
            assert len(lines) == len(errors)
            for line, finding in zip(lines, errors, strict=True):
                assert visible(finding.target) in line and line.isprintable()


@EXAMPLES
@given(reports())
def test_json_check_report_reads_back_equal_and_encodes(report: Report) -> None:
    text = "".join(json_report(report))
    document = json.loads(text.encode("utf-8"))
    assert document["findings"] == as_json(
        [finding.to_json() for result in report.cassettes for finding in result.findings]
    )
    assert [cassette["path"] for cassette in document["cassettes"]] == as_json(
        [result.name for result in report.cassettes]
    )


def as_json(value: object) -> object:
    """`value` as JSON can hold it: two lone surrogates that form a pair read back as its character
    (JSON has no other form for them; the json module's own ASCII output does the same)."""
    return json.loads(json.dumps(value))


@EXAMPLES
@given(reports())
def test_text_check_report_has_the_lines_of_its_structure_and_no_control_character(report: Report) -> None:
    lines = "".join(text_report(report)).split("\n")
    assert all(line.isprintable() for line in lines)
    every = sum(len(result.findings) for result in report.cassettes)
    rule_groups = sum(len(result.findings.rules()) for result in report.cassettes)
    # per cassette: its line and a blank; per rule: a blank, its line, documentation; 2 per finding
    assert len(lines) == 2 * len(report.cassettes) + 3 * rule_groups + 2 * every + 2


@EXAMPLES
@given(reports(), st.lists(HOSTILE, min_size=1, max_size=3))
def test_html_page_carries_the_data_unchanged_and_no_markup_of_it(report: Report, bodies: list[str]) -> None:
    exchanges = []
    for result, body in zip(report.cassettes, bodies * 3, strict=False):
        request = make_request(result.name[:8], path="/v2/" + body, query=body)
        answer = make_exchange(request, body=Body("text", body), headers=((body, body),))
        exchanges.append([answer] * 10)
    page = html_report(report, exchanges, _label, page_template())
    parsed = Parsed(page)
    template = Parsed(page_template().page)
    assert parsed.tags == template.tags and parsed.comments == template.comments
    embedded = page.split('<script type="application/json" id="report-data">', 1)[1].split("</script>", 1)[0]
    page.encode("utf-8")
    data = report_data(report, exchanges, _label, "commerce-proxy check")
    assert json.loads(embedded) == json.loads(json.dumps(data))


def _label(method: str, path: str) -> str:
    return f"{method} {path}"


@st.composite
def cassette_diffs(draw: st.DrawFn) -> CassetteDiff:
    def difference(where: str) -> Difference:
        values = st.one_of(HOSTILE, st.none(), st.integers(), st.dictionaries(HOSTILE, HOSTILE, max_size=2))
        tier = draw(st.sampled_from(("breaking", "additive", "data", "volatile")))
        return Difference(tier, where, draw(values), draw(values), kind="changed")

    # one difference per place of an answer, as a comparison gives them: places that differ only in a
    # list index are one place of every record, which the reports rightly show as one line
    places = st.lists(
        HOSTILE, min_size=1, max_size=3, unique_by=lambda where: re.sub(r"\[[0-9]+\]", "[*]", where)
    )
    pairs = [
        Pair(index, index, draw(HOSTILE), [difference(where) for where in draw(places)])
        for index in range(draw(st.integers(0, 3)))
    ]
    added = [Unpaired(index, draw(HOSTILE)) for index in range(draw(st.integers(0, 2)))]
    removed = [Unpaired(index, draw(HOSTILE)) for index in range(draw(st.integers(0, 2)))]
    return CassetteDiff(pairs, added, removed)


def assert_drift_markdown(text: str, rows: int, listed: int, named: int) -> None:
    for page in rendered(text):
        assert_inert(page)
        assert page.tags["tr"] == (1 + rows if rows else 0)
        assert page.tags["td"] == 6 * rows
        assert page.tags["li"] == listed
        assert page.tags["code"] == named + 4 * rows + listed


@EXAMPLES
@given(cassette_diffs(), HOSTILE, HOSTILE)
def test_cassette_diff_reports_escape_requests_values_and_file_names(
    diff: CassetteDiff, a: str, b: str
) -> None:
    rows = sum(1 for pair in diff.pairs for item in pair.differences if item.tier != "volatile")
    listed = len(diff.added) + len(diff.removed)
    assert_drift_markdown(diff_markdown(diff, a, b), rows, listed, named=2)
    lines = diff_text(diff, a, b).split("\n")
    assert all(line.isprintable() for line in lines)
    assert (
        len(lines)
        == 2
        + sum(1 for pair in diff.pairs if any(item.tier != "volatile" for item in pair.differences))
        + rows
        + listed
    )
    document = json.loads(diff_json(diff, verbose=True).encode("utf-8"))
    assert [change["where"] for change in document["changes"]] == as_json(
        [item.where for pair in diff.pairs for item in pair.differences]
    )


@EXAMPLES
@given(cassette_diffs(), st.lists(HOSTILE, min_size=1, max_size=3), reports())
def test_verify_reports_escape_cassette_names_requests_and_findings(
    diff: CassetteDiff, names: list[str], report: Report
) -> None:
    results = [
        Verified(names[pair.index_a % len(names)], pair.index_a, pair.request, pair.differences)
        for pair in diff.pairs
    ]
    results += [Verified(name, 99, name, skipped=name) for name in names]
    every = [finding for result in report.cassettes for finding in result.findings]
    verification = Verification(results, every)
    rows = sum(1 for result in results for item in result.differences if item.tier != "volatile")
    # a table row's first cell holds the cassette's name as a span too
    assert_drift_markdown(verify_markdown(verification), rows, len(every), named=rows)
    root = ElementTree.fromstring("".join(verify_junit(verification)).encode("utf-8"))
    assert [case.get("classname") for case in root.iter("testcase")] == [
        visible(item.cassette) for item in results
    ]
    assert all(line.isprintable() for line in verify_text(verification).split("\n"))
    document = json.loads(verify_json(verification, verbose=True).encode("utf-8"))
    assert document["findings"] == as_json([finding.to_json() for finding in every])


@EXAMPLES
@given(st.lists(st.tuples(HOSTILE, HOSTILE, HOSTILE), min_size=1, max_size=4))
def test_usage_summary_lines_are_one_line_each(named: list[tuple[str, str, str]]) -> None:
    report = {
        "requests": {"recorded": 1, "simulated": 0, "missed": len(named)},
        "cassettes": [
            {
                "cassette": name,
                "exchanges": 2,
                "used": 1,
                "unused": [{"index": 1, "method": method, "target": target}],
            }
            for name, method, target in named
        ],
        "misses": [{"count": 1, "method": method, "target": target} for _, method, target in named],
    }
    lines = usage_summary(report)
    assert len(lines) == 1 + 2 * len(named)
    assert all(line.isprintable() for line in lines)


@settings(max_examples=300, deadline=None, database=None, derandomize=True)
@given(HOSTILE)
def test_a_code_span_shows_the_visible_text_in_one_table_cell(text: str) -> None:
    """markdown-it reads the cell back as the visible text (backslashes right before a pipe doubled)."""
    row = f"| a | b |\n|---|---|\n| {markdown_code(text)} | z |\n"
    tokens = MarkdownIt("gfm-like").parse(row)
    cells = [token for token in tokens if token.type == "inline"]
    assert len(cells) == 4
    children = cells[2].children or []
    assert [child.type for child in children] == ["code_inline"]
    expected = re.sub(r"(\\*)\|", lambda match: match.group(1) * 2 + "|", visible(text))
    assert children[0].content == (expected or " ")
