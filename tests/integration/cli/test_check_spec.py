"""`check --spec` from the command line: the contract's findings in every report format with their
source, once per disagreement in the text summary, the severity config and the baseline applied to
them as to every rule, the undocumented-operation note only where no spec knows the operation, and a
broken spec one line and exit 2."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from proxy.app.report_writing import FORMATS
from proxy.cli.main import main
from proxy.core.cassette.document import Cassette
from proxy.core.model.exchange import Exchange
from proxy.store.saving import save_cassette
from tests.unit.core.contract.plans import FIXTURES, exchange, plan

BAD_ID = "specs/common.yaml#/components/schemas/Resource/properties/id/format"


def _bad_id() -> Exchange:
    document = plan()
    document["data"]["id"] = "plan-1"
    return exchange(body=document)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Specs in `specs/`; `good.yaml` conforms (and reads a setting no spec knows); `bad.yaml` answers
    five plans with an id that is not a uuid."""
    shutil.copytree(FIXTURES, tmp_path / "specs")
    unknown = exchange(
        path="/v2/settings", body={"data": {}}, headers=(("Content-Type", "application/json"),)
    )
    save_cassette(tmp_path / "good.yaml", Cassette((exchange(), unknown)))
    save_cassette(tmp_path / "bad.yaml", Cassette(tuple(_bad_id() for _ in range(5))))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], *arguments: str) -> tuple[int, str, str]:
    code = main(list(arguments))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_conforming_traffic_gets_no_contract_finding(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "check", "--format", "json", "--spec", "specs", "good.yaml")
    assert code == 0
    found = [(f["rule"], f["path"]) for f in json.loads(out)["findings"]]
    assert found == [("coverage.undocumented-endpoint", "/v2/settings")]  # the plan read is the spec's


def test_without_spec_every_operation_is_undocumented(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out, _ = run(capsys, "check", "--format", "json", "good.yaml")
    assert [f["rule"] for f in json.loads(out)["findings"]] == ["coverage.undocumented-endpoint"] * 2


def test_one_disagreement_over_five_exchanges_is_said_once(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "check", "--spec", "specs", "bad.yaml")
    assert code == 1
    assert "ERROR   contract.response.schema  (5x)" in out
    assert out.count("GET /v2/subscriptions/plans/{plan_uuid}: 5 exchange(s) (#0, #1, #2, ...)") == 1
    assert out.count(f"spec: {BAD_ID}") == 1
    _, detail, _ = run(capsys, "check", "--format", "json", "--spec", "specs", "bad.yaml")
    findings = json.loads(detail)["findings"]
    assert [(f["exchange"], f["rule"], f["section"], f["where"]) for f in findings] == [
        (index, "contract.response.schema", BAD_ID, "body.data.id") for index in range(5)
    ]


@pytest.mark.parametrize("format_name", FORMATS)
def test_every_format_names_the_source(
    project: Path, capsys: pytest.CaptureFixture[str], format_name: str
) -> None:
    code, _, _ = run(capsys, "check", "--format", format_name, "-o", "report", "--spec", "specs", "bad.yaml")
    assert code == 1
    assert BAD_ID in (project / "report").read_text()


def test_severity_config_and_baseline_apply(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "check", "--spec", "specs", "--write-baseline", "accepted.json", "bad.yaml")
    assert code == 0 and "1 accepted finding(s)" in err
    code, out, _ = run(capsys, "check", "--spec", "specs", "--baseline", "accepted.json", "bad.yaml")
    assert code == 0 and "5 accepted by the baseline" in out
    (project / "commerce-proxy.yaml").write_text("severity:\n  contract.response.schema: warning\n")
    code, out, _ = run(capsys, "check", "--format", "json", "--spec", "specs", "bad.yaml")
    assert code == 0
    assert {f["severity"] for f in json.loads(out)["findings"]} == {"warning"}


def test_a_broken_spec_is_one_line_and_exit_2(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "specs" / "common.yaml").write_text("openapi: 3.1.0\npaths: {}\n")  # its schemas gone
    code, out, err = run(capsys, "check", "--spec", "specs", "bad.yaml")
    assert code == 2 and out == ""
    assert err.strip().count("\n") == 0
    assert err == (
        "commerce-proxy: error: specs/subscriptions.yaml: #/components/schemas/Plan/allOf/0/$ref: "
        "common.yaml#/components/schemas/Resource does not resolve\n"
    )
    assert "Traceback" not in err


def test_a_report_never_replaces_a_spec(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = (project / "specs" / "common.yaml").read_bytes()
    code, _, err = run(capsys, "check", "-o", "specs/common.yaml", "--spec", "specs/common.yaml", "bad.yaml")
    assert code == 2 and "inputs" in err
    assert (project / "specs" / "common.yaml").read_bytes() == before


def test_every_contract_rule_a_report_cites_is_shown_by_rules(capsys: pytest.CaptureFixture[str]) -> None:
    """Each report cites `commerce-proxy rules RULE` for more: it answers for every contract rule."""
    from proxy.core.contract.findings import RULES

    for rule in RULES:
        code, out, _ = run(capsys, "rules", rule.id)
        assert code == 0
        assert out.startswith(f"{rule.id}  ({rule.severity})")
        assert "the spec file and the JSON pointer" in " ".join(out.split())


RELAX = "components:\n  schemas:\n    Resource:\n      properties:\n        id:\n          format: text\n"
TIGHTEN = """overlay: 1.0.0
info: {title: ids are never empty, version: 1.0.0}
extends: common.yaml
actions:
  - target: $.components.schemas.Resource.properties.id
    update: {minLength: 40}
"""


def test_overlays_correct_the_specs_and_are_named(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A merge correction (named as the SDK names its files) takes away the id format the service does
    not keep; an Overlay 1.0 document adds a limit, and the finding names it as its source."""
    (project / "common_service_corrections.yaml").write_text(RELAX)
    (project / "tighten.yaml").write_text(TIGHTEN)
    code, out, _ = run(capsys, "check", "--format", "json", "--spec", "specs", "bad.yaml")
    assert code == 1 and {f["section"] for f in json.loads(out)["findings"]} == {BAD_ID}
    relaxed = ("--spec", "specs", "--overlay", "common_service_corrections.yaml", "bad.yaml")
    code, out, _ = run(capsys, "check", "--format", "json", *relaxed)
    assert code == 0 and [f for f in json.loads(out)["findings"] if f["rule"].startswith("contract.")] == []
    code, out, _ = run(
        capsys, "check", "--format", "json", *relaxed[:-1], "--overlay", "tighten.yaml", "good.yaml"
    )
    sections = {f["section"] for f in json.loads(out)["findings"] if f["rule"].startswith("contract.")}
    assert code == 1 and sections == {
        "specs/common.yaml#/components/schemas/Resource/properties/id/minLength (overlay tighten.yaml)"
    }


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        (("--overlay", "tighten.yaml", "good.yaml"), "name the specs with --spec"),
        (
            ("--spec", "specs", "--overlay", "nowhere_corrections.yaml", "good.yaml"),
            "nowhere_corrections.yaml",
        ),
        (("--spec", "specs", "--overlay", "missing.yaml", "good.yaml"), "missing.yaml"),
    ],
)
def test_an_unusable_overlay_is_one_line(
    project: Path, capsys: pytest.CaptureFixture[str], arguments: tuple[str, ...], said: str
) -> None:
    (project / "tighten.yaml").write_text(TIGHTEN)
    (project / "nowhere_corrections.yaml").write_text(RELAX)
    code, out, err = run(capsys, "check", *arguments)
    assert code == 2 and out == "" and len(err.splitlines()) == 1 and said in err, err
