"""Every citation a user sees points at something they have: for every shipped rule and every report
format of `check`, the finding's documentation names its section(s), each one the project summarizes
(rules/documentation.yaml), and the rule's entry on the docs site's rules page (an anchor docs/rules.md
has); no output names a source document a user cannot open. `commerce-proxy rules RULE` shows what each
cited section requires."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from proxy.cli.main import main
from proxy.core.cassette.document import Cassette
from proxy.core.rules.citation import citation, docs_link, rule_anchor, section_anchor, sections_cited
from proxy.core.rules.ruleset import RuleSet
from proxy.store.rule_files import load_rules
from proxy.store.saving import save_cassette
from proxy.store.shipped import shipped_dir
from tests.unit.core.rules.catalog import FIXTURES

ROOT = Path(__file__).resolve().parents[3]
RULES_PAGE = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
SHIPPED = load_rules(shipped_dir("rules"))
RULE_IDS = sorted(rule.id for rule in SHIPPED.rules)
FORMATS = ("text", "json", "junit", "markdown", "html")
SOURCE_FILES = ("commerce-api.md", "api-notes.md")


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """`check` of one cassette per rule (its violating exchanges), in every format."""
    folder = tmp_path_factory.mktemp("citations")
    (folder / "pyproject.toml").write_text(
        '[tool.commerce-proxy]\nmax_age = "90d"\ndefault_page_length = 25\n', encoding="utf-8"
    )
    for rule_id, (violating, _) in FIXTURES.items():
        save_cassette(folder / "cassettes" / f"{rule_id}.yaml", Cassette(tuple(violating)))
    written = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        for name in FORMATS:
            output = folder / f"report.{name}"
            assert main(["check", "cassettes", "--format", name, "-o", str(output)]) == 1
            written[name] = output.read_text(encoding="utf-8")
    return written


def cited_in(name: str, report: str, rule_id: str) -> list[str]:
    """The documentation the report shows for a rule's findings, as a user reads it."""
    if name == "text":
        return re.findall(rf" {re.escape(rule_id)}  \(.*\n          documentation: (.*)", report)
    if name == "json":
        findings = json.loads(report)["findings"]
        return [item["citation"] for item in findings if item["rule"] == rule_id]
    if name == "junit":
        case = ElementTree.fromstring(report).find(f".//testcase[@name='{rule_id}']")
        assert case is not None
        texts = [item.get("message", "") for item in case.iter("failure")]
        texts += [item.text or "" for item in case.iter("system-out")]
        expected = citation(rule_id, SHIPPED.by_id[rule_id].section)
        return [expected for text in texts if expected in text]
    if name == "markdown":
        return re.findall(rf"\| `{re.escape(rule_id)}` \| \w+ \| \d+ \| `(.*)` \|", report)
    data = json.loads(re.search(r'id="report-data">(.*?)</script>', report, re.S)[1])  # type: ignore[index]
    shown = [rule["citation"] for rule in data["rules"] if rule["id"] == rule_id]
    shown += [item["citation"] for row in data["rows"] for item in row["findings"] if item["rule"] == rule_id]
    return shown


@pytest.mark.parametrize("name", FORMATS)
@pytest.mark.parametrize("rule_id", RULE_IDS)
def test_a_findings_citation_points_at_the_rules_page_and_a_summarized_section(
    reports: dict[str, str], name: str, rule_id: str
) -> None:
    rule = SHIPPED.by_id[rule_id]
    shown = cited_in(name, reports[name], rule_id)
    assert shown, f"{name}: no citation shown for {rule_id}"
    assert set(shown) == {citation(rule_id, rule.section)}
    assert f"commerce-proxy rules {rule_id})" in shown[0] and "docs/" not in shown[0]
    assert f'<a id="{rule_anchor(rule_id)}"></a>' in RULES_PAGE  # the docs site's entry
    sections = sections_cited(rule.section, SHIPPED.sections)
    assert sections and None not in sections, (
        f"{rule.section!r} cites a section the project does not summarize"
    )
    for section in sections:
        assert section is not None and f"§ {section.title}" in shown[0]
        assert f'<a id="{section_anchor(section.id)}"></a>' in RULES_PAGE


@pytest.mark.parametrize("name", FORMATS)
def test_no_report_names_a_source_document_or_a_repository_path(reports: dict[str, str], name: str) -> None:
    for source in SOURCE_FILES:
        assert source not in reports[name]
    assert "docs/rules.md" not in reports[name]  # a pip-installed user has no checkout


SHIPPED_FILES = sorted(
    path.relative_to(shipped_dir("rules")).as_posix()
    for path in shipped_dir("rules").rglob("*")
    if path.is_file() and path.suffix in (".yaml", ".json", ".md")
)


@pytest.mark.parametrize("name", SHIPPED_FILES)
def test_the_shipped_rules_folder_users_copy_cites_no_source_document(name: str) -> None:
    text = (shipped_dir("rules") / name).read_text(encoding="utf-8")
    for source in SOURCE_FILES:
        assert source not in text, f"rules/{name} cites {source}, which a user does not have"


def test_the_docs_sites_rules_page_is_a_page_of_the_site() -> None:
    page = docs_link("x.y").split("#")[0]
    assert (ROOT / page).is_file()
    assert "- All rules: rules.md" in (ROOT / "mkdocs.yml").read_text(encoding="utf-8")


@pytest.mark.parametrize("rule_id", RULE_IDS)
def test_rules_rule_shows_what_each_cited_section_requires(
    rule_id: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["rules", rule_id]) == 0
    out = capsys.readouterr().out
    flat = " ".join(out.split())
    rule = SHIPPED.by_id[rule_id]
    for section in SHIPPED.sections_of(rule):
        assert section.requires in flat
    assert "docs/rules.md" not in out
    assert not any(source in out for source in SOURCE_FILES)


def test_rules_lists_every_section_summary_and_refuses_an_unknown_rule(
    capsys: pytest.CaptureFixture[str], shipped: RuleSet = SHIPPED
) -> None:
    assert main(["rules"]) == 0
    out = capsys.readouterr().out
    flat = " ".join(out.split())
    assert all(section.requires in flat for section in shipped.sections)
    assert not any(source in out for source in SOURCE_FILES)
    assert main(["rules", "pagination.nope"]) == 2
    err = capsys.readouterr().err
    assert (
        err == "commerce-proxy: error: rules: no rule 'pagination.nope'; `commerce-proxy rules` lists them\n"
    )
