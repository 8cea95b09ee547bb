"""Every rule explains itself: a plain-language description, the documentation section it enforces
(stated in the project's own words), and an example that is what a violation really reports."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from proxy.cli.main import main
from proxy.core.reports.rules_page import rules_markdown
from proxy.core.rules.citation import sections_cited
from proxy.core.rules.engine import Checker
from proxy.core.rules.ruleset import RuleSet
from proxy.store.rule_files import load_rules
from proxy.store.shipped import shipped_dir
from tests.unit.core.rules.catalog import CATALOG_CONFIG, FIXTURES


@pytest.fixture(scope="module")
def shipped() -> RuleSet:
    return load_rules(shipped_dir("rules"))


def test_every_rule_has_a_description_and_a_documented_section(shipped: RuleSet) -> None:
    for rule in shipped.rules:
        assert len(rule.description.split()) >= 6, rule.id
        assert None not in sections_cited(rule.section, shipped.sections), (
            f"{rule.id}: a part of {rule.section!r} names no known section"
        )
    cited = {section.id for rule in shipped.rules for section in shipped.sections_of(rule)}
    assert cited == {section.id for section in shipped.sections}  # no section without a rule
    assert all(len(section.requires.split()) >= 10 for section in shipped.sections)


@pytest.mark.parametrize("rule_id", sorted(FIXTURES))
def test_a_rules_example_is_what_its_violating_fixture_reports(rule_id: str, shipped: RuleSet) -> None:
    violating, _ = FIXTURES[rule_id]
    last = len(violating) - 1
    reported = [
        f"{finding.method} {finding.target}: {finding.message}"
        for finding in Checker(shipped, CATALOG_CONFIG).check_all(violating)
        if finding.rule == rule_id and finding.exchange == last
    ]
    assert shipped.by_id[rule_id].example in reported


def test_the_rules_page_links_each_rule_to_what_its_section_requires(shipped: RuleSet) -> None:
    page = rules_markdown(shipped, {rule.id: rule.severity for rule in shipped.rules})
    for rule in shipped.rules:
        section = shipped.section_of(rule)
        assert section is not None
        entry = page.split(f"### `{rule.id}`", 1)[1].split("### ", 1)[0]
        assert f"](#section-{section.id})" in entry and rule.description in entry and rule.example in entry
    for section in shipped.sections:
        assert f'<a id="section-{section.id}"></a>' in page and section.requires in page


@pytest.mark.parametrize(
    ("addition", "expected"),
    [
        ("  - {id: limits, title: Limits, requires: again}\n", "section 'limits' is already defined at"),
        ("  - {id: x, title: X}\n", "a section has exactly the keys id, title and requires"),
        ("  - {id: Bad Id, title: X, requires: y}\n", "section id: expected lower-case words joined by -"),
    ],
)
def test_a_bad_section_is_one_line_naming_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], addition: str, expected: str
) -> None:
    rules = tmp_path / "rules"
    shutil.copytree(shipped_dir("rules"), rules)
    text = (rules / "documentation.yaml").read_text()
    (rules / "documentation.yaml").write_text(text + addition)
    assert main(["rules", "--rules", str(rules)]) == 2
    err = capsys.readouterr().err
    line = text.count("\n") + 1
    assert f"documentation.yaml:{line}:" in err and expected in err and err.count("\n") == 1


def test_a_rule_folder_without_sections_still_lists_its_rules(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Sections are optional: a project's own rule folder need not describe the documentation."""
    rules = tmp_path / "rules"
    shutil.copytree(shipped_dir("rules"), rules)
    (rules / "documentation.yaml").unlink()
    assert main(["rules", "--rules", str(rules), "--format", "markdown"]) == 0
    page = capsys.readouterr().out
    assert "### `pagination.page.current`" in page
    sections = [line for line in page.splitlines() if line.startswith('<a id="section-')]
    assert sections == ['<a id="section-contract"></a>']  # the published specs' rules' source alone
