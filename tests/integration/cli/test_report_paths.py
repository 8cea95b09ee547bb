"""Every command that writes a report checks where it goes once, at start, before any traffic or work,
in one place (`proxy.store.outputs.refuse_overwrite`): a table of commands x kinds of bad path, each
refused in one line naming its reason, with every file left as it was and nothing served."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from proxy.cli import replay, serving
from proxy.cli.main import main
from proxy.store.shipped import shipped_dir
from tests.integration.cli.test_cli import one_error_line

UPSTREAM = ["--upstream", "http://127.0.0.1:9"]  # never reached: the refusal comes first

# each command: its command line writing to OUT, and the cassette it reads or writes (None: none)
COMMANDS: dict[str, tuple[Callable[[str], list[str]], str | None]] = {
    "check": (lambda out: ["check", "a.yaml", "-o", out], "a.yaml"),
    "verify": (lambda out: ["verify", "a.yaml", *UPSTREAM, "-o", out], "a.yaml"),
    "cassette diff": (lambda out: ["cassette", "diff", "a.yaml", "b.yaml", "-o", out], "b.yaml"),
    "spy": (lambda out: ["spy", *UPSTREAM, "--port", "0", "-o", out], None),
    "record": (
        lambda out: ["record", *UPSTREAM, "--cassette", "new.yaml", "--port", "0", "-o", out],
        "new.yaml",
    ),
    "replay --usage-report": (
        lambda out: ["replay", "--cassette", "a.yaml", "--port", "0", "--usage-report", out],
        "a.yaml",
    ),
    "export-har": (lambda out: ["export-har", "a.yaml", "-o", out], "a.yaml"),
}

# each kind of bad path: the path given (None: the command's own cassette), and the reason said
KINDS: dict[str, tuple[str | None, str]] = {
    "folder missing": ("out/nope/r.txt", "no such folder out/nope"),
    "a folder": ("out", "is a folder"),
    "a file on the way": ("notes.txt/r.txt", "notes.txt: is not a folder"),
    "a link on the way": ("linked/r.txt", "linked: is a symbolic link"),
    "a link at the name": ("dangling.txt", "is a symbolic link"),
    "the config found": ("commerce-proxy.yaml", "inputs (its config file"),
    "the config by ..": ("out/../commerce-proxy.yaml", "inputs (its config file"),
    "the config by a link": ("config-link.yaml", "inputs (its config file"),
    "a rule file": ("myrules/shapes/x.json", "inputs (a file of its rule folder"),
    "the baseline": ("accepted.json", "inputs (its baseline"),
    "its cassette": (None, "is one of this command's inputs ("),
}

TABLE = [
    pytest.param(command, kind, id=f"{command}-{kind}")
    for command, (_, own) in COMMANDS.items()
    for kind, (path, _) in KINDS.items()
    if path is not None or own is not None
]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project with a config naming its rule folder and baseline, two cassettes and the odd paths."""
    monkeypatch.chdir(tmp_path)
    shipped = sorted(shipped_dir("cassettes").glob("*.yaml"))
    shutil.copy(shipped[0], tmp_path / "a.yaml")
    shutil.copy(shipped[0], tmp_path / "b.yaml")
    shutil.copytree(shipped_dir("rules"), tmp_path / "myrules")
    (tmp_path / "myrules" / "shapes").mkdir(exist_ok=True)
    (tmp_path / "myrules" / "shapes" / "x.json").write_text("{}\n", encoding="utf-8")
    (tmp_path / "commerce-proxy.yaml").write_text(
        "rules: myrules\nbaseline: accepted.json\n", encoding="utf-8"
    )
    (tmp_path / "accepted.json").write_text(
        json.dumps({"baseline_format": 1, "accepted": []}), encoding="utf-8"
    )
    (tmp_path / "out").mkdir()
    (tmp_path / "notes.txt").write_text("notes\n", encoding="utf-8")
    (tmp_path / "linked").symlink_to("out")
    (tmp_path / "dangling.txt").symlink_to("out/elsewhere.txt")
    (tmp_path / "config-link.yaml").symlink_to("commerce-proxy.yaml")
    return tmp_path


def _files(folder: Path) -> dict[str, bytes | str]:
    return {
        str(path.relative_to(folder)): str(path.readlink()) if path.is_symlink() else path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_symlink() or path.is_file()
    }


@pytest.mark.parametrize(("command", "kind"), TABLE)
def test_a_bad_report_path_is_refused_at_start_naming_why(
    project: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    command: str,
    kind: str,
) -> None:
    def served(*_: object) -> int:
        raise AssertionError(f"{command} started serving with a report it cannot write")

    monkeypatch.setattr(serving, "serve", served)
    monkeypatch.setattr(replay, "serve", served)
    line, own = COMMANDS[command]
    path, reason = KINDS[kind]
    before = _files(project)
    assert main(line(path or str(own))) == 2
    error = one_error_line(capsys)
    assert reason in error, error
    assert _files(project) == before
    assert not (project / "new.yaml").exists()


def test_the_table_covers_every_command_and_kind() -> None:
    """7 commands x 11 kinds, less `spy`'s cassette (it reads none)."""
    assert len(TABLE) == len(COMMANDS) * len(KINDS) - 1


def test_a_good_report_path_in_an_existing_folder_is_written(project: Path) -> None:
    assert main(["check", "a.yaml", "--format", "json", "-o", "out/r.json"]) in (0, 1)
    assert json.loads((project / "out" / "r.json").read_text(encoding="utf-8"))["exchanges"] > 0
    assert main(["cassette", "diff", "a.yaml", "b.yaml", "--format", "json", "-o", "out/d.json"]) == 0
    assert json.loads((project / "out" / "d.json").read_text(encoding="utf-8")) is not None


def test_check_refuses_one_file_for_the_report_and_the_baseline(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check", "a.yaml", "-o", "out/x.json", "--write-baseline", "out/x.json"]) == 2
    assert "-o and --write-baseline name the same file" in one_error_line(capsys)
    assert not (project / "out" / "x.json").exists()


def test_write_baseline_may_rewrite_the_baseline_the_config_names(project: Path) -> None:
    assert main(["check", "a.yaml", "--write-baseline", "accepted.json"]) == 0
