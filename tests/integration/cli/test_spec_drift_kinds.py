"""`cassette diff A B --spec S` from the command line, one exchange for each kind of difference (a
field removed or added, a value changed or retyped, the whole body retyped, a list's length, the
status, a header, a body that is not JSON, the recording's own time): each gets the spec's tier and
source in the JSON and text reports, and the exit code says whether more than volatile values differ.
In-process through the real parsers; the cases are those of `test_drift_kinds`."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from proxy.cli.main import main
from proxy.core.cassette.document import Cassette
from proxy.store.saving import save_cassette
from tests.unit.core.contract.test_drift_kinds import CASES, SPEC, Case, pair

CHOSEN = (
    "id: removed",
    "added, refused",
    "name: another value",
    "code: a type it takes",
    "body to an array",
    "listed: emptied",
    "others: item lacking its required field",
    "status not documented",
    "required header gone",
    "body not JSON",
)
FLAGS = ["--spec", "shapes.yaml", "--config", "none.yaml"]


def chosen() -> list[Case]:
    """One case at least of each kind, each at a request of its own (`/v2/shapes/0`...)."""
    by_name = {case.name: case for case in CASES}
    return [
        replace(by_name[name], path=by_name[name].path.replace("s1", str(index)))
        for index, name in enumerate(CHOSEN)
    ]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copyfile(SPEC, tmp_path / "shapes.yaml")
    (tmp_path / "none.yaml").write_text("{}\n")  # a config without specs
    pairs = [pair(case) for case in chosen()]
    recorded = tuple(replace(one, recorded_at="2026-01-01T00:00:00Z") for one, _ in pairs)
    save_cassette(tmp_path / "a.yaml", Cassette(recorded))
    save_cassette(tmp_path / "b.yaml", Cassette(tuple(live for _, live in pairs)))
    # B's recording time alone differs: volatile, which no spec judges
    save_cassette(
        tmp_path / "same.yaml",
        Cassette(tuple(replace(one, recorded_at="2026-02-01T00:00:00Z") for one in recorded)),
    )
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_each_kind_gets_the_spec_s_tier_and_source(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["cassette", "diff", "a.yaml", "b.yaml", "--format", "json", *FLAGS])
    changes = json.loads(capsys.readouterr().out)["changes"]
    assert code == 1
    for index, case in enumerate(chosen()):
        tier, pointer = case.expected
        said = [
            (item["tier"], item.get("source"))
            for item in changes
            if (item["index_a"], item["where"]) == (index, case.where)
        ]
        assert said == [(tier, None if pointer is None else f"shapes.yaml#{pointer}")], case.name


def test_the_text_report_names_the_keyword_that_decided(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["cassette", "diff", "a.yaml", "b.yaml", *FLAGS])
    out = capsys.readouterr().out
    assert code == 1
    list_place = "/components/schemas/Shape/properties/listed/minItems"
    assert f"json.data.listed.length: 2 -> 0 (spec: shapes.yaml#{list_place})" in out
    anyof = "/components/schemas/Shape/properties/code/anyOf"
    assert f"json.data.code: 'A1' -> 7 (spec: shapes.yaml#{anyof})" in out


def test_only_the_recording_time_differing_is_no_drift(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["cassette", "diff", "a.yaml", "same.yaml", "--format", "json", "-v", *FLAGS])
    changes = json.loads(capsys.readouterr().out)["changes"]
    assert code == 0
    assert {(item["where"], item["tier"], item.get("source")) for item in changes} == {
        ("recorded_at", "volatile", None)
    }
