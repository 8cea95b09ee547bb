"""docs/security.md points at code and tests a reader can find: every file it names exists, and every
function, class or test it names after a file is defined there. Its table names a mechanism and a test
for every boundary."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tests.paths import ROOT

PAGE = (ROOT / "docs" / "security.md").read_text(encoding="utf-8")
NAMED = re.compile(r"`((?:proxy|tests)/[\w/]+\.py)(?:(?::|::)(\w+)(?:\.(\w+))?)?")


def defined(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    return {node.name for node in ast.walk(tree) if isinstance(node, kinds)}


def test_every_file_and_name_the_page_gives_exists() -> None:
    named = NAMED.findall(PAGE)
    assert len(named) > 15
    for file, name, member in named:
        path = ROOT / file
        assert path.is_file(), file
        for wanted in (name, member):
            if wanted:
                assert wanted in defined(path), f"{file}: no {wanted}"


def test_every_boundary_row_names_a_mechanism_and_a_test() -> None:
    section = PAGE[PAGE.index("## Boundaries") : PAGE.index("## Limits")]
    rows = [
        line for line in section.splitlines() if line.startswith("| ") and not line.startswith("| boundary")
    ]
    assert len(rows) >= 8
    for row in rows:
        boundary, invariant, mechanism, test = row.strip("|").split(" | ")
        assert len(invariant) > 40, boundary
        assert "`proxy/" in mechanism, boundary
        assert "`tests/" in test, boundary
