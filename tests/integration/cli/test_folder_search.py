"""A folder searched for cassettes holds the project's own files too: its config, the baseline and the
rule folder the config names are not cassettes, for every command that searches a folder; a file
named on its own is still read as given."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from proxy.app.replay_setup import build_book
from proxy.cli.main import main
from proxy.core.redaction.redact import RedactionPolicy
from proxy.core.replay.matching import MatchPolicy
from proxy.store.shipped import shipped_dir

BASELINE = '{"baseline_format": 1, "accepted": []}\n'


def config_only(root: Path) -> None:
    (root / "commerce-proxy.yaml").write_text("severity: {}\n")


def config_naming_a_baseline(root: Path) -> None:
    (root / "commerce-proxy.yaml").write_text("baseline: accepted.yaml\n")
    (root / "accepted.yaml").write_text(BASELINE)


def config_naming_a_rule_folder(root: Path) -> None:
    (root / "commerce-proxy.yaml").write_text("rules: my-rules\n")
    shutil.copytree(shipped_dir("rules"), root / "my-rules")


def pyproject_naming_a_baseline(root: Path) -> None:
    (root / "pyproject.toml").write_text('[tool.commerce-proxy]\nbaseline = "ci/accepted.yml"\n')
    (root / "ci").mkdir()
    (root / "ci" / "accepted.yml").write_text(BASELINE)


def config_in_a_subfolder(root: Path) -> None:
    (root / "sub").mkdir()
    (root / "sub" / "commerce-proxy.yaml").write_text("baseline: accepted.yaml\n")
    (root / "sub" / "accepted.yaml").write_text(BASELINE)


PROJECTS: dict[str, Callable[[Path], None]] = {
    "config": config_only,
    "config naming a baseline": config_naming_a_baseline,
    "config naming a rule folder": config_naming_a_rule_folder,
    "pyproject naming a baseline": pyproject_naming_a_baseline,
    "config in a subfolder": config_in_a_subfolder,
}


def check(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "."]) in (0, 1)
    assert "in 1 cassette(s)" in capsys.readouterr().out


def cassette_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cassette", "list", "."]) == 0
    assert capsys.readouterr().out.split()[0] == "INDEX"  # no CASSETTE column: one cassette


def fmt_check(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cassette", "fmt", "--check", "."]) == 0
    assert capsys.readouterr().out == ""


def replay_folder(capsys: pytest.CaptureFixture[str]) -> None:
    """What `replay --cassette .` serves."""
    _, loaded = build_book([Path(".")], MatchPolicy(), RedactionPolicy())
    assert [one.path.name for one in loaded] == ["c.yaml"]


COMMANDS: dict[str, Callable[[pytest.CaptureFixture[str]], None]] = {
    "check": check,
    "cassette list": cassette_list,
    "fmt --check": fmt_check,
    "replay --cassette": replay_folder,
}


@pytest.mark.parametrize("project", PROJECTS.values(), ids=PROJECTS.keys())
@pytest.mark.parametrize("command", COMMANDS.values(), ids=COMMANDS.keys())
def test_the_projects_own_files_are_not_cassettes(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    project: Callable[[Path], None],
    command: Callable[[pytest.CaptureFixture[str]], None],
) -> None:
    project(tmp_path)
    (tmp_path / "cassettes").mkdir()
    shutil.copyfile(shipped_dir("cassettes") / "demo-session.yaml", tmp_path / "cassettes" / "c.yaml")
    monkeypatch.chdir(tmp_path)
    command(capsys)
    assert "cassette_format" not in capsys.readouterr().err


def test_a_config_named_on_its_own_is_read_as_a_cassette(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    config_only(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["check", "commerce-proxy.yaml"]) == 2
    assert "commerce-proxy.yaml:1: document: missing 'cassette_format'" in capsys.readouterr().err
