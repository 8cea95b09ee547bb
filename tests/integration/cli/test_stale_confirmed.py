"""`cassette list --stale` shows what each exchange's age counts from: its RECORDED date and its
cassette's CONFIRMED date (the later one counts), in the text table and in JSON."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from proxy.cli.main import main
from proxy.store.shipped import shipped_dir


@pytest.fixture
def confirmed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A shipped cassette confirmed on 2027-04-20, listed on 2027-06-01 with --stale 30d."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COMMERCE_PROXY_NOW", "2027-06-01T00:00:00Z")
    path = tmp_path / "c.yaml"
    shutil.copy(sorted(shipped_dir("cassettes").glob("*.yaml"))[0], path)
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("exchanges:", "confirmed_at: '2027-04-20'\nexchanges:", 1), encoding="utf-8")
    return path


def test_text_has_a_confirmed_column(confirmed: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cassette", "list", str(confirmed), "--stale", "30d"]) == 0
    header, first, *_ = capsys.readouterr().out.splitlines()
    assert header.split()[-3:] == ["RECORDED", "CONFIRMED", "PATH"], header
    assert "2027-04-20" in first.split(), first


def test_json_has_confirmed_at(confirmed: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cassette", "list", str(confirmed), "--stale", "30d", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["exchanges"]
    assert rows and {row["confirmed_at"] for row in rows} == {"2027-04-20"}
