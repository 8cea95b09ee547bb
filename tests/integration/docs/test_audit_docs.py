"""`scripts/audit-docs FOLDER` holds the carried summary to the API's source documents. The suite has no
such documents, so it writes sources of its own from what the summary maps: they pass, and each one with
a row, rule or bullet the summary lacks fails, naming it."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.paths import ROOT

_spec = importlib.util.spec_from_file_location("audit_docs", ROOT / "scripts" / "audit_docs.py")
assert _spec is not None and _spec.loader is not None
audit_docs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(audit_docs)
AUDIT, MAPPING, main = audit_docs.AUDIT, audit_docs.MAPPING, audit_docs.main
notes_problems, section_counts, spec_problems = (
    audit_docs.notes_problems,
    audit_docs.section_counts,
    audit_docs.spec_problems,
)

MAP_TEXT = MAPPING.read_text(encoding="utf-8")
AUDIT_TEXT = AUDIT.read_text(encoding="utf-8")


def mapped(pattern: str) -> list[str]:
    return sorted(set(re.findall(pattern, MAP_TEXT)))


def table(heading: str, cells: list[str]) -> str:
    rows = "\n".join(f"| {cell} | x |" for cell in cells)
    return f"{heading}\n\n| field | what |\n|---|---|\n{rows}\n\nAfter the table.\n"


def numbered(heading: str, numbers: list[str]) -> str:
    items = "\n".join(f"{number}. a rule." for number in numbers)
    return f"{heading}\n\nRules:\n\n{items}\n\n"


def source(extra: dict[str, list[str]] | None = None) -> str:
    """A commerce-api.md whose every row the summary maps, plus `extra` rows by table."""
    extra = extra or {}
    parts = {
        "### Feature (resource type `subscription_feature`)": mapped(r"Feature `([^`]+)`"),
        "### Feature update payload": [],
        "### Paginated list envelope": mapped(r"Envelope `([^`]+)`"),
        "Query parameters:": mapped(r"Query `([^`]+)`"),
        "## Limits": mapped(r"Limit: ([^|]+?) \|"),
    }
    payload = [
        field
        for row in MAP_TEXT.splitlines()
        if row.startswith("| Update payload")
        for field in re.findall(r"`([^`]+)`", row.split("|")[1])
    ]
    parts["### Feature update payload"] = payload
    text = "".join(table(heading, cells + extra.get(heading, [])) for heading, cells in parts.items())
    for heading, prefix in (
        ("### Update a feature", "Update a feature, rule"),
        ("### Get a custom API entry through the extensions endpoint", "Get a custom API entry, rule"),
        ("### List endpoints that support pagination", "Pagination rule"),
    ):
        numbers = mapped(re.escape(prefix) + r" (\d+)") + extra.get(heading, [])
        text += numbered(heading, numbers)
    return text


def notes(extra_section: str | None = None) -> str:
    """An api-notes.md with as many bullets per section as the audit page has rows."""
    rows = section_counts(AUDIT_TEXT, r"\| (?!bullet |fact |---)")
    text = "".join(f"## {name}\n\n" + "- a fact.\n" * count + "\n" for name, count in rows.items())
    return text + (f"## {extra_section}\n\n- a fact nobody audited.\n" if extra_section else "")


def test_a_source_the_summary_maps_whole_passes() -> None:
    assert spec_problems(source(), MAP_TEXT) == []
    assert notes_problems(notes(), AUDIT_TEXT) == []


TABLE_HEADINGS = [
    "### Feature (resource type `subscription_feature`)",
    "### Feature update payload",
    "### Paginated list envelope",
    "Query parameters:",
    "## Limits",
]
RULE_HEADINGS = [
    "### Update a feature",
    "### Get a custom API entry through the extensions endpoint",
    "### List endpoints that support pagination",
]


@pytest.mark.parametrize("heading", TABLE_HEADINGS)
@pytest.mark.parametrize("name", ["data.unmapped_field", "page[cursor]", "a new limit"])
def test_a_row_the_summary_lacks_is_named(heading: str, name: str) -> None:
    problems = spec_problems(source({heading: [name]}), MAP_TEXT)
    assert len(problems) == 1 and name in problems[0], problems


@pytest.mark.parametrize("heading", RULE_HEADINGS)
def test_a_numbered_rule_the_summary_lacks_is_named(heading: str) -> None:
    problems = spec_problems(source({heading: ["97"]}), MAP_TEXT)
    assert len(problems) == 1 and "rule 97" in problems[0], problems


def test_a_section_of_notes_the_audit_lacks_is_named() -> None:
    problems = notes_problems(notes("Webhooks"), AUDIT_TEXT)
    assert problems == ["api-notes.md '## Webhooks': 1 bullets, docs/api-notes-audit.md has 0 rows"]


def test_the_command_exits_1_on_a_gap_and_2_without_sources(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "commerce-api.md").write_text(source({"## Limits": ["a new limit"]}), encoding="utf-8")
    (tmp_path / "api-notes.md").write_text(notes(), encoding="utf-8")
    assert main([str(tmp_path)]) == 1
    assert "Limit: a new limit is not mapped" in capsys.readouterr().out
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "audit_docs.py"), str(tmp_path / "absent")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "cannot read" in done.stderr and "Traceback" not in done.stderr
