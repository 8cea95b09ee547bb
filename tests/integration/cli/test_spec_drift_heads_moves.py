"""`cassette diff A B --spec S` from the command line: a head the spec requires gone is breaking (exit
1) where the comparison alone says nothing (exit 0); a relationship moved to the other branch of its
`anyOf` is data, said by the `anyOf`, not breaking. In-process through the real parsers; the fixtures
are those of `test_drift_heads` and `test_drift_branches`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from proxy.cli.main import main
from proxy.core.cassette.document import Cassette
from proxy.core.model.exchange import Exchange
from proxy.store.saving import save_cassette
from tests.unit.core.contract import test_drift_branches, test_drift_heads

HEADS = "/paths/~1v2~1heads~1{id}/get/responses/200/headers/X-Request-Id"


def cassettes(folder: Path, recorded: Exchange, live: Exchange) -> None:
    save_cassette(folder / "a.yaml", Cassette((recorded,)))
    save_cassette(folder / "b.yaml", Cassette((live,)))
    (folder / "none.yaml").write_text("{}\n")  # a config without specs


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_required_head_gone_is_breaking_with_the_spec(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copyfile(test_drift_heads.SPEC, here / "heads.yaml")
    recorded = test_drift_heads.exchange("/v2/heads/h1", test_drift_heads.with_head("X-Request-Id", "r1"))
    cassettes(here, recorded, test_drift_heads.exchange("/v2/heads/h1", test_drift_heads.BASE))
    assert main(["cassette", "diff", "a.yaml", "b.yaml", "--config", "none.yaml"]) == 0
    capsys.readouterr()
    code = main(["cassette", "diff", "a.yaml", "b.yaml", "--spec", "heads.yaml", "--config", "none.yaml"])
    out = capsys.readouterr().out
    assert code == 1
    assert "a.yaml -> b.yaml: 1 breaking, 0 additive, 0 data, 0 volatile" in out
    assert f"  breaking  headers.X-Request-Id: 'r1' -> missing (spec: heads.yaml#{HEADS})" in out


def test_a_move_to_a_branch_the_spec_allows_is_data(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copyfile(test_drift_branches.SPEC, here / "branches.yaml")
    single = test_drift_branches.SINGLE
    recorded = test_drift_branches.exchange("relationship", single)
    cassettes(here, recorded, test_drift_branches.exchange("relationship", {"data": [single["data"]]}))
    flags = ["--spec", "branches.yaml", "--config", "none.yaml", "--format", "json"]
    code = main(["cassette", "diff", "a.yaml", "b.yaml", *flags])
    report = json.loads(capsys.readouterr().out)
    assert code == 1  # data differs: the exit code says so, as without a spec
    assert report["counts"] == {"breaking": 0, "additive": 0, "data": 1, "volatile": 0}
    (change,) = report["changes"]
    assert (change["where"], change["tier"], change["source"]) == (
        "json.data.relationship.data",
        "data",
        "branches.yaml#/components/schemas/Relationship/anyOf",
    )
