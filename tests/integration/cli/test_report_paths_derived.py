"""A report never goes to a file the tool keeps for one of the command's cassettes under a name derived
from its path (its recording journal, parse cache entry and folder, lock file, temporary files, the
folder its writers lock): a table of commands x derived files x spellings, each refused at start in one
line naming what the file is, nothing written and nothing served."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from proxy.cli import replay, serving
from proxy.cli.main import main
from proxy.store.locks import lock_path
from tests.integration.cli.test_cli import one_error_line
from tests.integration.cli.test_report_paths import COMMANDS, _files, project

__all__ = ["project"]  # the fixture, shared with the table of other bad paths

# each derived file: where it is for the cassette `own` in the project `root`, and the reason said
DERIVED = {
    "journal": (lambda root, own: root / f"{own}.journal", "'s recording journal"),
    "cache entry": (
        lambda root, own: root / ".commerce-proxy-cache" / f"{own}.json",
        "'s parse cache entry",
    ),
    "cache folder file": (
        lambda root, own: root / ".commerce-proxy-cache" / ".gitignore",
        "parse cache folder",
    ),
    "cache folder": (lambda root, own: root / ".commerce-proxy-cache", "parse cache folder"),
    "lock file": (lambda root, own: lock_path(root / own), "'s lock file"),
    "temporary file": (lambda root, own: root / f".{own}.tmp-0123456789ab", "'s temporary file"),
}

SPELLINGS = {
    "relative": lambda root, target: os.path.relpath(target, root),
    "absolute": lambda root, target: str(target),
    "by ..": lambda root, target: os.path.join("out", "..", os.path.relpath(target, root)),
    "by a link": lambda root, target: _link(root, target),
}

TABLE = [
    pytest.param(command, kind, spelling, id=f"{command}-{kind}-{spelling}")
    for command, (_, own) in COMMANDS.items()
    if own is not None
    for kind in DERIVED
    for spelling in SPELLINGS
]


@pytest.fixture
def never_served(monkeypatch: pytest.MonkeyPatch) -> None:
    """A command that would serve fails the test instead: each refusal comes before any serving."""

    def served(*_: object) -> int:
        raise AssertionError("started serving with a report path it must refuse")

    monkeypatch.setattr(serving, "serve", served)
    monkeypatch.setattr(replay, "serve", served)


def _link(root: Path, target: Path) -> str:
    (root / "spelled-link").symlink_to(target)
    return "spelled-link"


@pytest.mark.parametrize(("command", "kind", "spelling"), TABLE)
def test_a_report_path_naming_a_derived_file_is_refused_naming_it(
    project: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    never_served: None,
    command: str,
    kind: str,
    spelling: str,
) -> None:
    monkeypatch.delenv("COMMERCE_PROXY_CACHE", raising=False)  # the cache beside the cassette
    line, own = COMMANDS[command]
    assert own is not None
    where, reason = DERIVED[kind]
    target = where(project, own)
    spelled = SPELLINGS[spelling](project, target)
    before = _files(project)
    lock_before = target.exists() if kind == "lock file" else None
    assert main(line(spelled)) == 2
    error = one_error_line(capsys)
    assert reason in error and "never replaces a file the tool keeps for an input" in error, error
    if "'s " in reason:
        assert f"is {own}{reason}" in error, error
    assert _files(project) == before
    assert not (project / "new.yaml").exists()
    assert not (project / "new.yaml.journal").exists()
    if lock_before is not None:
        assert target.exists() == lock_before


def test_the_table_covers_every_cassette_command_kind_and_spelling() -> None:
    """6 commands with a cassette x 6 derived files x 4 spellings."""
    assert len(TABLE) == 6 * len(DERIVED) * len(SPELLINGS) == 144


def test_the_entry_in_a_cache_folder_named_by_the_environment_is_refused(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from proxy.store.cassette_reader.cache_paths import entry_path

    monkeypatch.setenv("COMMERCE_PROXY_CACHE", str(project / "out"))
    entry = entry_path(project / "a.yaml")
    assert entry is not None
    assert main(["check", "a.yaml", "-o", str(entry)]) == 2
    assert "is a.yaml's parse cache entry" in one_error_line(capsys)
    assert not entry.exists()


def test_the_folder_a_new_cassette_will_be_recorded_in_is_refused(
    project: Path, capsys: pytest.CaptureFixture[str], never_served: None
) -> None:
    line = ["record", "--upstream", "http://127.0.0.1:9", "--port", "0", "--cassette", "sub/new.yaml"]
    assert main([*line, "-o", "sub"]) == 2
    assert "is new.yaml's folder" in one_error_line(capsys)
    assert not (project / "sub").exists()


def test_a_folder_of_cassettes_refuses_anything_in_its_cache_folder(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "cassettes").mkdir()
    assert main(["check", "cassettes", "-o", "cassettes/.commerce-proxy-cache/r.txt"]) == 2
    assert "is the cassette folder's parse cache folder" in one_error_line(capsys)


def test_a_report_beside_the_cassette_is_still_written(project: Path) -> None:
    assert main(["check", "a.yaml", "-o", "a.yaml.report.txt"]) in (0, 1)
    assert (project / "a.yaml.report.txt").read_text(encoding="utf-8")
