"""`check --propose-overlay`: for each kind of disagreement with the fixture specs (tests/fixtures/contract/,
modelled on the published subscriptions.yaml), the proposed Overlay, read back with `--overlay` on the
same traffic, leaves no contract finding; what has no smallest change is named, not guessed; the file is
written as every output is (never over an input)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from proxy.cli.main import main
from proxy.core.cassette.document import Cassette
from proxy.core.model.exchange import Exchange
from proxy.store.saving import save_cassette
from tests.unit.core.contract.plans import FIXTURES, JSON, exchange, plan, plan_request

ATTRIBUTES = ("data", "attributes")


def _answer(*path: str, value: Any = None, delete: bool = False) -> Callable[[], Exchange]:
    def made() -> Exchange:
        document = plan()
        node: Any = document
        for part in path[:-1]:
            node = node[part]
        if delete:
            del node[path[-1]]
        else:
            node[path[-1]] = value
        return exchange(body=document)

    return made


def _accepted_pattern() -> Exchange:
    sent = plan_request()
    sent["data"]["attributes"]["configuration"] = {"type": "access", "tag": "Gold Plan"}
    return exchange("POST", "/v2/subscriptions/plans", 201, sent=sent)


UNIT = (*ATTRIBUTES, "price_units")
KINDS: dict[str, Callable[[], Exchange]] = {
    "status": lambda: exchange(status=500, body={"errors": []}, headers=JSON),
    "content-type": lambda: exchange(headers=(("Content-Type", "text/html"), ("ETag", 'W/"1"'))),
    "header": lambda: exchange(headers=JSON),
    "type": _answer(*ATTRIBUTES, "name", value=5),
    "nullable": _answer(*ATTRIBUTES, "name", value=None),
    "number": _answer(*UNIT, value={"unit": "day", "amount": 1.5}),
    "enum": _answer(*UNIT, value={"unit": "week", "amount": 1}),
    "minimum": _answer(*UNIT, value={"unit": "day", "amount": 0}),
    "required (across files)": _answer("data", "meta", delete=True),
    "required (a discriminator's branch)": _answer(*ATTRIBUTES, "configuration", value={"type": "usage"}),
    "additionalProperties": _answer(*UNIT, value={"unit": "day", "amount": 1, "every": 2}),
    "format": _answer("data", "id", value="plan-1"),
    "minLength": _answer(*ATTRIBUTES, "name", value="ab"),
    "accepted request (pattern)": _accepted_pattern,
}


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copytree(FIXTURES, tmp_path / "specs")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], *arguments: str) -> tuple[int, str, str]:
    code = main(list(arguments))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def contract_rules(capsys: pytest.CaptureFixture[str], *more: str) -> list[str]:
    _, out, _ = run(capsys, "check", "--format", "json", "--spec", "specs", *more, "t.yaml")
    return [
        finding["rule"] for finding in json.loads(out)["findings"] if finding["rule"].startswith("contract.")
    ]


@pytest.mark.parametrize("kind", list(KINDS))
def test_the_proposed_overlay_makes_the_spec_accept_the_traffic(
    project: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    save_cassette(project / "t.yaml", Cassette((exchange(), KINDS[kind](), KINDS[kind]())))
    assert contract_rules(capsys)  # the disagreement is there
    _, _, err = run(capsys, "check", "--spec", "specs", "--propose-overlay", "p.yaml", "-q", "t.yaml")
    assert "no correction proposed" not in err
    proposal = yaml.safe_load((project / "p.yaml").read_text(encoding="utf-8"))
    assert proposal["overlay"] == "1.0.0"
    assert all(" 2 exchange(s) (#1, #2) of " in action["description"] for action in proposal["actions"])
    assert contract_rules(capsys, "--overlay", "p.yaml") == []


def test_a_folder_gets_one_overlay_per_spec(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    save_cassette(project / "t.yaml", Cassette((KINDS["format"](), KINDS["status"]())))
    code, _, err = run(capsys, "check", "--spec", "specs", "--propose-overlay", "p.yaml", "-q", "t.yaml")
    assert code == 2
    assert "p.yaml: the disagreements concern 2 specs" in err
    (project / "proposed").mkdir()
    run(capsys, "check", "--spec", "specs", "--propose-overlay", "proposed", "-q", "t.yaml")
    written = sorted(path.name for path in (project / "proposed").iterdir())
    assert written == ["common.overlay.yaml", "subscriptions.overlay.yaml"]
    assert contract_rules(capsys, "--overlay", "proposed") == []
    code, _, err = run(capsys, "check", "--spec", "specs", "--propose-overlay", "proposed", "-q", "t.yaml")
    assert code == 2 and "proposed/" in err and "pass --force" in err  # not replaced without it
    code, _, _ = run(capsys, "check", "--spec", "specs", "--propose-overlay", "proposed", "--force", "t.yaml")
    assert code == 1  # the report's error; the proposal replaced


def test_no_smallest_change_is_named_not_guessed(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    both = _answer(*ATTRIBUTES, "discount", value={"amount": 1, "percentage": 5})
    save_cassette(project / "t.yaml", Cassette((both(),)))
    code, _, err = run(capsys, "check", "--spec", "specs", "--propose-overlay", "p.yaml", "-q", "t.yaml")
    assert code == 1  # the report's error stands
    assert "no correction proposed for specs/subscriptions.yaml#/components/schemas/Discount/oneOf" in err
    assert "p.yaml: not written" in err
    assert not (project / "p.yaml").exists()


@pytest.mark.parametrize("output", ["specs/subscriptions.yaml", "t.yaml"])
def test_an_input_is_never_the_proposal(
    project: Path, capsys: pytest.CaptureFixture[str], output: str
) -> None:
    save_cassette(project / "t.yaml", Cassette((KINDS["status"](),)))
    before = (project / output).read_bytes()
    code, _, err = run(capsys, "check", "--spec", "specs", "--propose-overlay", output, "t.yaml")
    assert code == 2
    assert "is one of this command's inputs" in err
    assert (project / output).read_bytes() == before


def test_every_kind_at_once_round_trips_without_a_warning(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Propose, read back, check again: no finding but the one the proposal comments, no warning. Before,
    a place broken by two exchanges of two operations got one action per operation: the second `remove`
    selected nothing (a warning) and an `enum` value was appended twice."""
    both = _answer(*ATTRIBUTES, "discount", value={"amount": 1, "percentage": 5})
    yearly = plan()
    yearly["data"]["attributes"]["price_units"] = {"unit": "year", "amount": 1}  # the enum, another value
    created = exchange("POST", "/v2/subscriptions/plans", 201, body=yearly, sent=plan_request())
    save_cassette(
        project / "t.yaml",
        Cassette((*(made() for made in KINDS.values() for _ in range(2)), both(), created)),
    )
    (project / "proposed").mkdir()
    _, _, err = run(capsys, "check", "--spec", "specs", "--propose-overlay", "proposed", "-q", "t.yaml")
    assert err.count("no correction proposed for ") == 1
    written = (project / "proposed" / "subscriptions.overlay.yaml").read_text(encoding="utf-8")
    assert written.startswith("# no correction proposed (no smallest change) for specs/subscriptions.yaml#")
    assert written.count("- week\n") == written.count("- year\n") == 1  # one enum update, both values
    targets = [
        action["target"]
        for path in (project / "proposed").iterdir()
        for action in yaml.safe_load(path.read_text(encoding="utf-8"))["actions"]
    ]
    assert len(targets) == len(set(targets))
    _, out, err = run(
        capsys, "check", "--format", "json", "--spec", "specs", "--overlay", "proposed", "t.yaml"
    )
    assert "selects nothing" not in err and "warning" not in err.lower()
    left = [finding for finding in json.loads(out)["findings"] if finding["rule"].startswith("contract.")]
    assert [finding["section"].rpartition("/")[2] for finding in left] == ["oneOf"]
