"""`check`, `rules` and the project config from the command line: reports, exit codes, overrides, baselines."""

from __future__ import annotations

import json
import re
import shutil
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from proxy.cli.main import main
from proxy.core.cassette.document import Cassette
from proxy.store.saving import save_cassette
from proxy.store.shipped import shipped_dir
from tests.unit.core.exchanges import changed, list_page, list_read

REQUIRED_KEYS = {"exchange", "method", "path", "rule", "severity", "message"}


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project folder (the working folder) with a cassette: a good page, then a page with a wrong current."""
    query, body = list_page()
    brands_query, brands_body = list_page(path="/v2/brands")
    cassette = Cassette(
        (
            list_read(query=query, body=body),
            list_read(query=query, body=changed(body, "meta.page.current", 3)),
            list_read(
                path="/v2/brands", query=brands_query, body=changed(brands_body, "meta.page.current", 3)
            ),
        )
    )
    save_cassette(tmp_path / "session.yaml", cassette)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], *arguments: str) -> tuple[int, str, str]:
    code = main(list(arguments))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_json_report_has_the_documented_shape_and_exit_1(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An error makes check exit 1; the JSON names exchange position, request, rule, severity, message."""
    code, out, _ = run(capsys, "check", "--format", "json", "session.yaml")
    assert code == 1
    report = json.loads(out)
    assert report["exchanges"] == 3
    current = [f for f in report["findings"] if f["rule"] == "pagination.page.current"]
    assert [(f["exchange"], f["method"], f["path"], f["severity"]) for f in current] == [
        (1, "GET", "/v2/products", "error"),
        (2, "GET", "/v2/brands", "error"),
    ]
    assert all(set(finding) >= REQUIRED_KEYS for finding in report["findings"])
    message = current[0]["message"]
    assert "expected 2 (floor(10 / 10) + 1), as meta.page.offset 10" in message and message.endswith(
        "found 3"
    )


def test_text_report_groups_by_rule_with_section_and_expected_found(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The text report shows each rule once with its documentation section, then every exchange."""
    code, out, _ = run(capsys, "check", "session.yaml")
    assert code == 1
    assert "session.yaml: 3 exchanges: 2 errors, 0 warnings, 0 info" in out
    assert "ERROR   pagination.page.current  (2x)  the current page follows from offset and limit" in out
    assert "documentation: § List endpoints that support pagination, rule 2; § Paginated list envelope" in out
    assert "(more: commerce-proxy rules pagination.page.current)" in out and "docs/rules.md" not in out
    assert "#1 GET /v2/products?page[limit]=10&page[offset]=10" in out
    assert "meta.page.current: expected 2 (floor(10 / 10) + 1), as meta.page.offset 10" in out
    assert " show; found 3" in out


def test_junit_report_has_one_case_per_rule(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """JUnit: a test case for every rule; the broken rule fails and lists its exchanges."""
    code, out, _ = run(capsys, "check", "--format", "junit", "session.yaml")
    assert code == 1
    suites = ElementTree.fromstring(out)
    cases = suites.findall("./testsuite/testcase")
    code_rules, rules_out, _ = run(capsys, "rules", "--format", "json")
    listed = [rule for rule in json.loads(rules_out)["rules"] if not rule["id"].startswith("contract.")]
    assert len(cases) == len(listed) and code_rules == 0  # the specs' rules are in force with --spec
    failed = {case.get("name"): case.find("failure") for case in cases if case.find("failure") is not None}
    assert set(failed) == {"pagination.page.current"}
    text = failed["pagination.page.current"].text or ""  # type: ignore[union-attr]
    assert "#1 GET /v2/products" in text and "#2 GET /v2/brands" in text


def test_output_file_gets_the_report(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """-o writes the report to a file and nothing to stdout."""
    code, out, err = run(capsys, "check", "--format", "json", "-o", "report.json", "session.yaml")
    assert code == 1 and out == "" and "wrote report.json" in err
    assert json.loads((project / "report.json").read_text())["exchanges"] == 3


def test_pyproject_config_lowers_a_rule(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """[tool.commerce-proxy] severity makes an error a warning, so check passes."""
    (project / "pyproject.toml").write_text(
        '[project]\nname = "client"\n\n[tool.commerce-proxy.severity]\n"pagination.page.current" = "warning"\n'
    )
    code, out, _ = run(capsys, "check", "--format", "json", "session.yaml")
    assert code == 0
    assert {f["severity"] for f in json.loads(out)["findings"]} == {"warning"}
    _, rules_out, _ = run(capsys, "rules")
    assert any(line.split()[:2] == ["pagination.page.current", "warning"] for line in rules_out.splitlines())


def test_yaml_config_turns_rules_off_for_one_endpoint(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """commerce-proxy.yaml turns a glob of rules off on one endpoint only."""
    (project / "commerce-proxy.yaml").write_text(
        'endpoints:\n  "GET /v2/brands":\n    "pagination.page.*": "off"\n'
    )
    code, out, _ = run(capsys, "check", "--format", "json", "session.yaml")
    assert code == 1
    assert {(f["rule"], f["path"]) for f in json.loads(out)["findings"]} == {
        ("pagination.page.current", "/v2/products")
    }


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        (
            "severity:\n  pagination.no-such-rule: warning\n",
            "commerce-proxy.yaml: severity: 'pagination.no-such-rule' names no rule",
        ),
        (
            "severity:\n  pagination.page.current: fatal\n",
            "severity must be one of error, warning, info, off, found 'fatal'",
        ),
        (
            "endpoints:\n  'FETCH /v2': {pagination.page.current: off}\n",
            "endpoints 'FETCH /v2': expected 'METHOD /path'",
        ),
        ("severity: [\n", "commerce-proxy.yaml:2: not valid YAML"),
        (
            "severity: " + "[" * 50_000 + "]" * 50_000,
            "commerce-proxy.yaml:1: not valid YAML: nested more than",
        ),
        ("severity: !!python/name:os.system\n", "commerce-proxy.yaml:1: not valid YAML: could not determine"),
        ("colour: blue\n", "unknown setting(s) colour"),
    ],
)
def test_bad_config_is_one_line_and_exit_2(
    project: Path, capsys: pytest.CaptureFixture[str], config: str, expected: str
) -> None:
    """A config mistake names the file and the setting, exits 2, and prints no traceback."""
    (project / "commerce-proxy.yaml").write_text(config)
    code, _, err = run(capsys, "check", "session.yaml")
    assert code == 2
    assert expected in err and err.count("\n") == 1 and "Traceback" not in err


def test_baseline_accepts_known_findings(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--write-baseline accepts today's findings; check with it passes and counts them; new ones still fail."""
    code, _, err = run(capsys, "check", "--write-baseline", "baseline.json", "session.yaml")
    assert code == 0 and "2 accepted finding(s)" in err
    code, out, _ = run(capsys, "check", "--baseline", "baseline.json", "session.yaml")
    assert code == 0 and "2 accepted by the baseline" in out
    (project / "commerce-proxy.yaml").write_text("baseline: baseline.json\n")
    query, body = list_page(path="/v2/carts")
    save_cassette(
        project / "more.yaml",
        Cassette((list_read(path="/v2/carts", query=query, body=changed(body, "meta.results.all", 1)),)),
    )
    code, out, _ = run(capsys, "check", "--format", "json", "session.yaml", "more.yaml")
    assert code == 1
    assert [(f["rule"], f["path"]) for f in json.loads(out)["findings"]] == [
        ("pagination.results.all-not-below-total", "/v2/carts")
    ]


def test_rules_lists_every_rule_with_section(capsys: pytest.CaptureFixture[str]) -> None:
    """`rules` prints id, severity and section for each shipped rule."""
    code, out, _ = run(capsys, "rules")
    assert code == 0
    lines = out.split("\n\n", 1)[0].splitlines()
    assert lines[0].split() == ["RULE", "SEVERITY", "DOCUMENTATION"]
    assert any(
        line.startswith("entry.etag.matches-etag-id") and " error " in line and "rule 2" in line
        for line in lines
    )
    code, out, _ = run(capsys, "rules", "--format", "json")
    ids = [rule["id"] for rule in json.loads(out)["rules"]]
    assert len(ids) == len(lines) - 1 == len(set(ids))


@pytest.mark.parametrize(
    ("addition", "expected"),
    [
        (
            "  - {id: extra.rule, severity: error, section: s, message: m, applies_to: [any], check: nope}\n",
            "unknown check 'nope'",
        ),
        (
            "  - {id: extra.rule, severity: error, section: s, message: m, applies_to: [any], check: page_limit_max}\n",
            "check page_limit_max params: params: 'max' is a required property",
        ),
        (
            "  - {id: extra.rule, severity: error, section: s, message: m, applies_to: [any], check: page_limit_max, params: {max: -1}}\n",
            "check page_limit_max params: max: -1 is less than the minimum of 0",
        ),
        (
            "  - {id: extra.rule, severity: error, section: s, message: m, applies_to: [any], check: page_limit_max, params: {max: ten}}\n",
            "check page_limit_max params: max: 'ten' is not of type 'integer'",
        ),
        (
            "  - {id: extra.rule, severity: error, section: s, message: '{nope}', applies_to: [any], check: current_page}\n",
            "unknown placeholder(s) nope",
        ),
        (
            "  - {id: extra.rule, severity: error, section: s, message: m, applies_to: [lists], check: current_page}\n",
            "unknown endpoint group 'lists'",
        ),
        (
            "  - {id: pagination.page.current, severity: error, section: s, message: m, applies_to: [any], check: current_page}\n",
            "is already defined at",
        ),
        (
            "  - {id: extra.rule, severity: error, section: s, message: m, applies_to: [any], check: shape, params: {shape: feature, part: colour}}\n",
            "shape 'feature' has no part 'colour'",
        ),
    ],
)
def test_bad_rule_file_names_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], addition: str, expected: str
) -> None:
    """A mistake in a rule file is one line with file:line and the problem; exit 2."""
    rules = tmp_path / "rules"
    shutil.copytree(shipped_dir("rules"), rules)
    lines = (rules / "pagination.yaml").read_text().splitlines(keepends=True)
    (rules / "pagination.yaml").write_text("".join(lines) + addition)
    code, _, err = run(capsys, "rules", "--rules", str(rules))
    assert code == 2
    assert f"pagination.yaml:{len(lines) + 1}:" in err and expected in err and err.count("\n") == 1


def test_sandbox_refuses_to_break_an_unknown_rule(capsys: pytest.CaptureFixture[str]) -> None:
    """--break with a rule the sandbox cannot break is one line and exit 2."""
    code, _, err = run(capsys, "sandbox", "--break", "pagination.request.limit-max", "--port", "0")
    assert code == 2 and "the sandbox cannot break 'pagination.request.limit-max'" in err


def test_markdown_report_counts_match_the_json_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """check --format markdown: the headline, per-rule and per-endpoint counts are those of the JSON report."""
    import re
    import shutil

    from proxy.store.shipped import shipped_dir

    cassette = tmp_path / "c.yaml"
    shutil.copyfile(shipped_dir("cassettes") / "demo-session.yaml", cassette)
    assert main(["cassette", "set", str(cassette), "6", "resp.header.ETag", 'W/"a|b"']) == 1
    capsys.readouterr()
    assert main(["check", "--format", "json", str(cassette)]) == 1
    report = json.loads(capsys.readouterr().out)
    assert main(["check", "--format", "markdown", str(cassette)]) == 1
    markdown = capsys.readouterr().out
    counts = report["counts"]
    assert markdown.startswith(
        f"## ❌ commerce-proxy check: {counts['error']} error{'s' if counts['error'] != 1 else ''}, "
        f"{counts['warning']} warnings, {counts['info']} info"
    )
    per_rule: dict[str, int] = {}
    for finding in report["findings"]:
        per_rule[finding["rule"]] = per_rule.get(finding["rule"], 0) + 1
    rows = dict(re.findall(r"^\| `([a-z.\-]+)` \| \w+ \| (\d+) \|", markdown, re.MULTILINE))
    assert {rule: int(count) for rule, count in rows.items()} == per_rule
    endpoint_rows = re.findall(r"^\| `([A-Z]+ [^`]+)` \| (\d+) \| (\d+) \| (\d+) \|$", markdown, re.MULTILINE)
    assert sum(int(e) + int(w) + int(i) for _, e, w, i in endpoint_rows) == len(report["findings"])
    assert any(
        endpoint == "GET /v2/extensions/{custom_api_slug}/{custom_api_entry_id}"
        for endpoint, *_ in endpoint_rows
    )
    assert markdown.count("<details>") == len(report["findings"])
    assert "Bearer &lt;ACCESS_TOKEN&gt;" in markdown and "Bearer <ACCESS_TOKEN>" not in markdown
    assert "W/&quot;a|b&quot;" in markdown, "a finding is HTML in its <details>: a pipe cannot break it"


@pytest.mark.parametrize("report_format", ["text", "json", "junit", "markdown"])
def test_a_report_is_the_same_whether_findings_went_to_disk_or_not(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, report_format: str
) -> None:
    """Findings spooled to disk (past HELD_FINDINGS) come back in every report exactly as from memory."""
    from proxy.store import finding_spool

    shutil.copy(shipped_dir("cassettes") / "demo-session.yaml", project / "demo.yaml")
    arguments = ("check", "--format", report_format, "session.yaml", "demo.yaml")
    held = run(capsys, *arguments)
    monkeypatch.setattr(finding_spool, "HELD_FINDINGS", 2)
    spilled = run(capsys, *arguments)
    timed = re.compile(r" in [0-9.]+ s$", re.MULTILINE)  # the run's own duration, on stderr
    assert spilled[:2] == held[:2] and timed.sub("", spilled[2]) == timed.sub("", held[2])
    assert held[0] == 1 and "pagination.page.current" in held[1] and "coverage.error-body" in held[1]


def test_the_project_default_page_length_is_learned_or_read_from_the_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A project whose default page length is 2 (set through the settings endpoint): lists read
    without page[limit] show 2, and `check` finds nothing; a later one showing 25 is an error; a
    config stating `default_page_length = 25` makes the 2 an error too."""
    monkeypatch.chdir(tmp_path)
    two = [list_read(query=f"page[offset]={offset}", limit=2, offset=offset, total=7) for offset in (0, 2)]
    save_cassette(tmp_path / "two.yaml", Cassette(tuple(two)))
    code, out, _ = run(capsys, "check", "--format", "json", "two.yaml")
    assert code == 0 and json.loads(out)["findings"] == []
    other = list_read(query="page[offset]=0", limit=25, offset=0, total=7)
    save_cassette(tmp_path / "mixed.yaml", Cassette((*two, other)))
    code, out, _ = run(capsys, "check", "--format", "json", "mixed.yaml")
    [finding] = [f for f in json.loads(out)["findings"] if f["rule"] == "pagination.page.limit-requested"]
    assert code == 1 and finding["exchange"] == 2 and "shown at exchange 0" in finding["expected"]
    (tmp_path / "pyproject.toml").write_text("[tool.commerce-proxy]\ndefault_page_length = 25\n")
    code, out, _ = run(capsys, "check", "--format", "json", "two.yaml")
    assert code == 1
    assert {f["exchange"] for f in json.loads(out)["findings"]} == {0, 1}


def test_a_missing_baseline_file_says_how_to_write_one(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "check", "session.yaml", "--baseline", "accepted.json")
    assert code == 2 and err.count("\n") == 1
    assert "accepted.json: no such baseline file; write one with" in err
    assert "--write-baseline accepted.json" in err


@pytest.mark.parametrize(
    ("endpoint", "rule", "fine"),
    [
        ("GET /v2/prodcts", "pagination.links.*", False),  # a typo: no list there
        ("PUT /v2/products", "pagination.*", False),  # lists are read, not written
        ("GET /v2/flows/{slug}/entries", "pagination.links.*", True),
        ("GET /v2/flows/brands/entries", "pagination.links.*", True),  # a concrete path
        ("*  /v2/orders", "pagination.offset.hard-limit-accepted", True),
        ("GET /v2/settings", "coverage.undocumented-endpoint", True),  # applies to undocumented ones
    ],
)
def test_an_endpoint_setting_that_can_never_apply_is_an_error(
    project: Path, capsys: pytest.CaptureFixture[str], endpoint: str, rule: str, fine: bool
) -> None:
    """A typo in an endpoint pattern would silently change nothing: it is one line listing the
    endpoints the rules know."""
    (project / "pyproject.toml").write_text(
        f'[tool.commerce-proxy.endpoints."{endpoint}"]\n"{rule}" = "warning"\n'
    )
    code, _, err = run(capsys, "check", "session.yaml", "-q")
    if fine:
        assert code in (0, 1), err
        return
    assert code == 2 and err.count("\n") == 1
    assert f"endpoints {endpoint!r}: {rule!r} never applies there" in err
    assert "the endpoints the rules know: PUT /v2/subscriptions/features/{feature_uuid}" in err


def test_text_output_scales_and_the_other_formats_stay_complete(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Twelve findings of one rule: the text lists ten and says how many more; --per-rule 0 lists
    all; -q prints only the counts; JSON has all twelve; the time taken goes to stderr."""
    monkeypatch.chdir(tmp_path)
    unknown = [list_read(path=f"/v2/unknown/{number}", query="", body={"data": []}) for number in range(12)]
    save_cassette(tmp_path / "c.yaml", Cassette(tuple(unknown)))
    code, out, err = run(capsys, "check", "c.yaml")
    assert code == 0 and out.count("\n    #") == 10
    assert "    ... and 2 more (--per-rule 0 lists them all)\n" in out
    assert re.fullmatch(r"commerce-proxy: checked 12 exchanges in \d+\.\d s\n", err)
    _, every, _ = run(capsys, "check", "c.yaml", "--per-rule", "0")
    assert every.count("\n    #") == 12 and "more (--per-rule" not in every
    _, quiet, quiet_err = run(capsys, "check", "c.yaml", "-q")
    assert quiet == (
        "c.yaml: 12 exchanges: 0 errors, 0 warnings, 12 info\n"
        "checked 12 exchanges in 1 cassette(s): 0 errors, 0 warnings, 12 info\n"
        "not judged: 12 of 12 exchanges (no rule about the answer could run on them)\n"
    )
    assert quiet_err == ""
    _, as_json, _ = run(capsys, "check", "c.yaml", "--format", "json", "-q")
    assert len(json.loads(as_json)["findings"]) == 12


@pytest.mark.parametrize("value", ["0" * 5_000 + "1", "-" + "0" * 4_300 + "5", "9" * 5_000, "0" * 6_000])
def test_page_parameters_of_thousands_of_digits_are_judged_not_a_crash(
    project: Path, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    """A recorded request's page[offset] past int()'s 4,300 digits is read like any other value."""
    _, page = list_page()
    exchange = list_read(query=f"page[limit]=10&page[offset]={value}", body=page)
    save_cassette(project / "big.yaml", Cassette((exchange,)))
    code, out, err = run(capsys, "check", str(project / "big.yaml"), "--format", "json")
    assert code in (0, 1), err
    assert "internal error" not in err
    json.loads(out)
