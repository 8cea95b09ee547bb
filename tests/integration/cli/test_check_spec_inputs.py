"""`check --spec` on every broken input of the loading table: exit 2 and one line naming the file and the
JSON pointer, before any work; never a traceback, never a hang (a FIFO is among them)."""

from __future__ import annotations

from pathlib import Path

import pytest

from proxy.cli.main import main
from proxy.core.cassette.document import Cassette
from proxy.store.saving import save_cassette
from tests.unit.core.contract.test_spec_inputs import BROKEN, _write


def test_every_broken_spec_input_is_exit_2_and_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    save_cassette(tmp_path / "empty.yaml", Cassette(()))
    monkeypatch.chdir(tmp_path)
    for index, case in enumerate(sorted(BROKEN)):
        files, expected = BROKEN[case]
        folder = Path(f"case{index}")
        _write(folder, files)
        code = main(["check", "--spec", str(folder / next(iter(files))), "empty.yaml"])
        captured = capsys.readouterr()
        assert (code, captured.out) == (2, ""), case
        assert captured.err.startswith(f"commerce-proxy: error: {folder}/{expected}"), case
        assert captured.err.count("\n") == 1, case
