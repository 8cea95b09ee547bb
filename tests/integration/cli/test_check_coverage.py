"""`check --coverage` and `--min-coverage` from the command line: exact counts per operation of the
fixture specs (tests/fixtures/contract/, modelled on the published subscriptions.yaml) in every report
format that shows them, and the threshold failing the run below it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from proxy.cli.main import main
from proxy.core.cassette.document import Cassette
from proxy.store.saving import save_cassette
from tests.unit.core.contract.plans import FIXTURES, JSON, exchange

PLAN = "specs/subscriptions.yaml GET /v2/subscriptions/plans/{plan_uuid}"
CREATE = "specs/subscriptions.yaml POST /v2/subscriptions/plans"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`t.yaml`: the plan read four times (200 twice, 404, an undocumented 500), the plan create never,
    and two operations no spec knows."""
    shutil.copytree(FIXTURES, tmp_path / "specs")
    refused = {"errors": [{"status": 404, "title": "Not Found"}]}
    traffic = (
        exchange(),
        exchange(),
        exchange(status=404, body=refused, headers=JSON),
        exchange(status=500, body=refused, headers=JSON),
        exchange(path="/v2/settings", body={"data": {}}, headers=JSON),
        exchange(path="/v2/carts/abc-123", body={"data": {}}, headers=JSON),
    )
    save_cassette(tmp_path / "t.yaml", Cassette(traffic))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], *arguments: str) -> tuple[int, str, str]:
    code = main(list(arguments))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_coverage_counts_each_operation_and_status(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "check", "--spec", "specs", "--coverage", "--format", "json", "t.yaml")
    assert code == 0
    coverage = json.loads(out)["coverage"]
    assert (coverage["operations"], coverage["exercised"], coverage["percent"]) == (2, 1, 50.0)
    create, read = coverage["by_operation"]
    assert (create["method"], create["exchanges"], create["documented_never"]) == ("POST", 0, ["201", "4XX"])
    assert read == {
        "spec": "specs/subscriptions.yaml",
        "method": "GET",
        "path": "/v2/subscriptions/plans/{plan_uuid}",
        "exchanges": 4,
        "statuses": {"200": 2, "404": 1, "500": 1},
        "documented_seen": ["200", "4XX"],
        "documented_never": [],
        "undocumented_seen": [500],
    }
    assert coverage["unknown"] == [
        {"operation": "GET /v2/carts/{id}", "exchanges": 1},
        {"operation": "GET /v2/settings", "exchanges": 1},
    ]

    _, text, _ = run(capsys, "check", "--spec", "specs", "--coverage", "t.yaml")
    assert text.splitlines()[-5:] == [
        "contract coverage: 1 of 2 operations exercised (50.0%):",
        f"  {CREATE}: 0 exchange(s); never 201, 4XX",
        f"  {PLAN}: 4 exchange(s); seen 200, 4XX; undocumented 500",
        "  not in any spec: GET /v2/carts/{id}: 1 exchange(s)",
        "  not in any spec: GET /v2/settings: 1 exchange(s)",
    ]
    _, markdown, _ = run(capsys, "check", "--spec", "specs", "--coverage", "--format", "markdown", "t.yaml")
    assert "### Contract coverage" in markdown
    row = (
        "| `specs/subscriptions.yaml` | `GET /v2/subscriptions/plans/{plan_uuid}` | 4 | `200, 4XX` |  | 500 |"
    )
    assert row in markdown
    _, plain, _ = run(capsys, "check", "--spec", "specs", "t.yaml")
    assert "contract coverage" not in plain  # only when asked for


def test_the_html_page_carries_the_section(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, _ = run(
        capsys, "check", "--spec", "specs", "--coverage", "--format", "html", "-o", "r.html", "t.yaml"
    )
    assert code == 0
    page = (project / "r.html").read_text(encoding="utf-8")
    assert '<div id="coverage"' in page
    assert "contract coverage: 1 of 2 operations exercised (50.0%)" in page
    assert json.dumps(f"{PLAN}: 4 exchange(s); seen 200, 4XX; undocumented 500") in page


@pytest.mark.parametrize(("threshold", "code"), [("50", 0), ("50.1", 1), ("0", 0), ("100", 1)])
def test_min_coverage_fails_below_its_threshold(
    project: Path, capsys: pytest.CaptureFixture[str], threshold: str, code: int
) -> None:
    got, _, err = run(capsys, "check", "--spec", "specs", "--min-coverage", threshold, "-q", "t.yaml")
    assert got == code
    below = [line for line in err.splitlines() if "--min-coverage" in line]
    expected = (
        f"commerce-proxy: contract coverage 50.0% is below --min-coverage {threshold}% (1 of 2 operations)"
    )
    assert below == ([expected] if code else [])


@pytest.mark.parametrize("flag", [["--coverage"], ["--min-coverage", "10"]])
def test_coverage_needs_specs(project: Path, capsys: pytest.CaptureFixture[str], flag: list[str]) -> None:
    code, _, err = run(capsys, "check", *flag, "t.yaml")
    assert code == 2
    assert err.strip().endswith(
        "counts the operations of the specs: name them with --spec (or the config's specs:)"
    )


@pytest.mark.parametrize("bad", ["101", "-1", "nan", "most"])
def test_min_coverage_is_a_percent(project: Path, capsys: pytest.CaptureFixture[str], bad: str) -> None:
    with pytest.raises(SystemExit) as ended:
        main(["check", "--spec", "specs", "--min-coverage", bad, "t.yaml"])
    assert ended.value.code == 2
    assert "expected a percent from 0 to 100" in capsys.readouterr().err
