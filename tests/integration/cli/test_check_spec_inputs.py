"""`check --spec` on every broken input of the loading table: exit 2 and one line naming the file and the
JSON pointer, before any work; never a traceback, never a hang (a FIFO is among them)."""

from __future__ import annotations

from pathlib import Path

import pytest

from proxy.cli.main import main
from proxy.core.cassette.document import Cassette
from proxy.store.contract_files import source_name
from proxy.store.saving import save_cassette
from tests.unit.core.contract.test_spec_inputs import BROKEN, _schema_ref, _write


def test_every_broken_spec_input_is_exit_2_and_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Run from a project folder the specs are outside of: their $refs stay in their own folders.
    (tmp_path / "project").mkdir()
    save_cassette(tmp_path / "project" / "empty.yaml", Cassette(()))
    monkeypatch.chdir(tmp_path / "project")
    for index, case in enumerate(sorted(BROKEN)):
        files, expected = BROKEN[case]
        folder = Path("..") / f"case{index}"
        _write(folder, files)
        code = main(["check", "--spec", str(folder / next(iter(files))), "empty.yaml"])
        captured = capsys.readouterr()
        assert (code, captured.out) == (2, ""), case
        # a file outside the working folder is named by its absolute path, whatever the command
        assert captured.err.startswith(f"commerce-proxy: error: {source_name(folder)}/{expected}"), case
        assert captured.err.count("\n") == 1, case


def test_specs_in_the_project_share_files_up_their_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Inside the working folder, a spec's `$ref` may go up to a file beside its folder (a shared
    `../common/errors.yaml`); the same spec run from outside its project may not."""
    _write(tmp_path / "specs" / "carts", {"api.yaml": _schema_ref("../common/errors.yaml#/A")})
    _write(tmp_path / "specs" / "common", {"errors.yaml": "A: {type: string}\n"})
    save_cassette(tmp_path / "empty.yaml", Cassette(()))
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--spec", "specs/carts/api.yaml", "empty.yaml"]) == 0
    capsys.readouterr()
    monkeypatch.chdir(tmp_path / "specs" / "carts")
    assert main(["check", "--spec", "api.yaml", "../../empty.yaml"]) == 2
    assert "the folder a $ref of this spec stays in" in capsys.readouterr().err
