"""max_age from the command line: `check` reports stale exchanges by the project's own rule, with the
severity the config gives it, and `cassette list --stale` lists them; off unless configured."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from proxy.cli.main import main
from proxy.core.cassette.document import Cassette
from proxy.store.clock import now_stamp
from proxy.store.saving import save_cassette
from proxy.store.shipped import shipped_dir
from tests.unit.core.exchanges import list_read

OLD = "2020-01-01T00:00:00.000000Z"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The working folder: a cassette recorded long ago (#0), just now (#1) and at no known time (#2)."""
    page = list_read()
    exchanges = (replace(page, recorded_at=OLD), replace(page, recorded_at=now_stamp()), page)
    save_cassette(tmp_path / "session.yaml", Cassette(exchanges))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def stale_findings(capsys: pytest.CaptureFixture[str], *options: str) -> tuple[int, list[dict[str, object]]]:
    code = main(["check", "--format", "json", "session.yaml", *options])
    report = json.loads(capsys.readouterr().out)
    found = [item for item in report["findings"] if item["rule"] == "cassette.max-age"]
    return code, found


def test_check_reports_what_is_older_than_max_age_only_when_it_is_set(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert stale_findings(capsys) == (0, [])
    (project / "commerce-proxy.yaml").write_text("max_age: 90d\n")
    code, found = stale_findings(capsys)
    assert code == 0 and [(item["exchange"], item["severity"]) for item in found] == [(0, "warning")]
    assert "expected at most 90d old" in str(found[0]["message"]) and OLD in str(found[0]["message"])
    (project / "commerce-proxy.yaml").write_text("max_age: 90d\nseverity:\n  cassette.max-age: error\n")
    code, found = stale_findings(capsys)
    assert code == 1 and [item["severity"] for item in found] == ["error"]


def test_cassette_list_stale_lists_only_the_stale_with_their_time(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "commerce-proxy.yaml").write_text("max_age: 90d\n")
    assert main(["cassette", "list", "session.yaml", "--stale"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "RECORDED" in lines[0] and len(lines) == 2
    assert lines[1].split()[:2] == ["0", "GET"] and OLD in lines[1]
    assert main(["cassette", "list", "session.yaml", "--stale", "1w", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["exchanges"]
    assert [(row["index"], row["recorded_at"]) for row in rows] == [(0, OLD)]
    assert main(["cassette", "list", "session.yaml"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 4  # without --stale: every exchange


@pytest.mark.parametrize(
    ("config", "arguments", "expected"),
    [
        ("", ["cassette", "list", "session.yaml", "--stale"], "--stale: no max_age in the project config"),
        ("", ["cassette", "list", "session.yaml", "--stale", "soon"], "--stale: expected a positive number"),
        (
            "max_age: 3 months\n",
            ["check", "session.yaml"],
            "commerce-proxy.yaml: max_age: expected a positive",
        ),
        ("max_age: 90d\nrules: my-rules\n", ["check", "session.yaml"], "max_age: no rule in force judges it"),
    ],
)
def test_a_bad_max_age_is_one_line_naming_where(
    project: Path, capsys: pytest.CaptureFixture[str], config: str, arguments: list[str], expected: str
) -> None:
    if config:
        (project / "commerce-proxy.yaml").write_text(config)
    shutil.copytree(shipped_dir("rules"), project / "my-rules")
    (project / "my-rules" / "freshness.yaml").unlink()
    assert main(arguments) == 2
    err = capsys.readouterr().err
    assert expected in err and len(err.strip().splitlines()) == 1, err
