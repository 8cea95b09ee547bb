"""Every test docs/api-notes-audit.md names exists: the audit cannot point at a test that is gone. (That it
has one row for every bullet of api-notes.md is `scripts/audit-docs`'s check: a clone lacks the notes.)"""

from __future__ import annotations

import ast
import re

from tests.paths import ROOT, TESTS

AUDIT = ROOT / "docs" / "api-notes-audit.md"


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
