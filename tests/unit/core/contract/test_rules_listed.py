"""Every finding kind the contract package can emit is a rule a user can look up: `rules` lists it in
each format, `rules ID` explains it (what it checks, the place of the spec it names, how to silence
it), and the docs' All rules page has its entry. The kinds are read from the package's code, not
from a list kept by hand: every `contract.*` string literal of proxy/core/contract."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from proxy.cli.main import main
from proxy.core.contract.findings import BY_ID, SOURCE
from tests.paths import ROOT

PACKAGE = ROOT / "proxy" / "core" / "contract"
KIND = re.compile(r"contract(\.[a-z][a-z-]*)+")


def _emitted() -> set[str]:
    """Every `contract.*` rule id written in the package's modules but findings.py (which lists them);
    a rule id built at run time (an f-string) would escape this reading, so it fails the test."""
    found: set[str] = set()
    for module in sorted(PACKAGE.glob("*.py")):
        if module.name == "findings.py":
            continue
        for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
            if isinstance(node, ast.JoinedStr):
                head = node.values[0] if node.values else None
                text = head.value if isinstance(head, ast.Constant) else ""
                assert not str(text).startswith("contract."), f"{module.name}: a rule id built at run time"
            elif (
                isinstance(node, ast.Constant) and isinstance(node.value, str) and KIND.fullmatch(node.value)
            ):
                found.add(node.value)
    return found


EMITTED = sorted(_emitted())
PAGE = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")


def test_the_kinds_read_from_the_code_are_the_rules_findings_makes() -> None:
    """No kind the judge emits lacks a rule, and no rule is never emitted (the reading is not empty)."""
    assert len(EMITTED) >= 10
    assert set(EMITTED) == set(BY_ID)


@pytest.fixture(autouse=True)
def _no_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # the shipped severities: no project config found


def test_rules_lists_every_kind_in_each_format(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules"]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines()]
    table = {row[0]: row[1] for row in rows if len(row) > 1}
    assert main(["rules", "--format", "json"]) == 0
    listed = {rule["id"]: rule for rule in json.loads(capsys.readouterr().out)["rules"]}
    for kind in EMITTED:
        assert table[kind] == BY_ID[kind].severity
        assert listed[kind]["severity"] == BY_ID[kind].severity
        assert listed[kind]["sections"] and listed[kind]["description"] == BY_ID[kind].description


@pytest.mark.parametrize("kind", EMITTED)
def test_each_kind_is_explained_and_documented(kind: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", kind]) == 0
    explained = capsys.readouterr().out
    assert main(["rules", kind, "--format", "json"]) == 0
    assert [rule["id"] for rule in json.loads(capsys.readouterr().out)["rules"]] == [kind]
    entry = PAGE.split(f'<a id="rule-{kind.replace(".", "-")}"></a>', 1)[1].split("<a id=", 1)[0]
    assert explained.startswith(f"{kind}  ({BY_ID[kind].severity})")
    assert entry.split("\n\n")[2] == f"**{BY_ID[kind].severity}**. Spec: [{SOURCE}](#section-contract)."
    for text in (explained, entry):
        flat = " ".join(text.split())
        assert "JSON pointer of" in flat  # the place of the spec the finding names
        for way in ("overlay:", "baseline", "severity"):  # how to silence it
            assert way in flat, (kind, way)
