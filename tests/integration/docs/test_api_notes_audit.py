"""docs/api-notes-audit.md has one row for every bullet of api-notes.md, section by section, and every
test it names exists: the audit cannot fall behind the notes or point at a test that is gone."""

from __future__ import annotations

import ast
import re

from tests.paths import ROOT, TESTS

AUDIT = ROOT / "docs" / "api-notes-audit.md"
NOTES = ROOT.parent / "shared" / "spec" / "api-notes.md"


def sections(text: str, item: str) -> dict[str, int]:
    """How many items (bullets, or table rows) each `## ` section holds."""
    counts: dict[str, int] = {}
    current = None
    for line in text.splitlines():
        if line.startswith("## "):
            current = line[3:].split("(")[0].strip()
            counts[current] = 0
        elif current is not None and re.match(item, line):
            counts[current] += 1
    return counts


def test_every_bullet_of_the_notes_has_a_row() -> None:
    notes = sections(NOTES.read_text(encoding="utf-8"), r"- ")
    audit = sections(AUDIT.read_text(encoding="utf-8"), r"\| (?!bullet |fact |---)")
    assert {name: count for name, count in audit.items() if name in notes} == notes


def test_every_test_the_audit_names_exists() -> None:
    text = AUDIT.read_text(encoding="utf-8")
    named = re.findall(r"`([a-z_/]+\.py)(?:::(test_[a-z0-9_]+))?", text)
    assert named
    for file, test in named:
        path = TESTS / file.removeprefix("tests/")
        assert path.is_file(), file
        if test:
            functions = {
                node.name
                for node in ast.walk(ast.parse(path.read_text()))
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            }
            assert test in functions, f"{file}::{test}"
    for bare in re.findall(r"`::(test_[a-z0-9_]+)`", text):
        assert bare in (TESTS / "unit" / "core" / "replay" / "test_matching.py").read_text(), bare
