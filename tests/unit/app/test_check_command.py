"""The `check` use case on its own, without the command line: it refuses an output it was not asked
to replace before any work, and writes every report format (or hands it to the document sink)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from proxy.app.check_command import CheckRequest, run_check
from proxy.app.replay_setup import ReplayOptions, ReplayRequest, prepare_replay
from proxy.app.report_writing import FORMATS, ReportRequest, Shown
from proxy.core.cassette.document import Cassette
from proxy.errors import UsageError
from proxy.store.saving import save_cassette
from tests.conftest import make_exchange


class Seen:
    """What the use case showed: documents and notes."""

    def __init__(self) -> None:
        self.documents: list[str] = []
        self.notes: list[str] = []

    def shown(self) -> Shown:
        return Shown(self.documents.append, self.notes.append)


@pytest.fixture
def cassette(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "c.yaml"
    save_cassette(path, Cassette((make_exchange(),)))
    return path


@pytest.mark.parametrize("format_name", FORMATS)
def test_every_format_is_written_to_the_file_asked_for(cassette: Path, format_name: str) -> None:
    output = cassette.parent / f"report.{format_name}"
    seen = Seen()
    status = run_check(CheckRequest((cassette,), report=ReportRequest(format_name, output)), seen.shown())
    assert status in (0, 1)
    assert output.read_text().strip()
    assert seen.documents == []
    assert f"wrote {output}" in seen.notes


def test_without_a_file_the_report_goes_to_the_document_sink(cassette: Path) -> None:
    seen = Seen()
    run_check(CheckRequest((cassette,), report=ReportRequest("json")), seen.shown())
    assert json.loads("".join(seen.documents))["cassettes"][0]["exchanges"] == 1


@pytest.mark.parametrize("force", [False, True])
def test_a_cassette_checked_is_never_replaced(cassette: Path, force: bool) -> None:
    before = cassette.read_bytes()
    asked = CheckRequest((cassette,), report=ReportRequest("json", cassette), force=force)
    with pytest.raises(UsageError, match="is one of this command's inputs"):
        run_check(asked, Seen().shown())
    assert cassette.read_bytes() == before


def test_another_cassette_is_replaced_only_with_force(cassette: Path) -> None:
    other = cassette.parent / "other.yaml"
    save_cassette(other, Cassette())
    before = other.read_bytes()
    asked = CheckRequest((cassette,), report=ReportRequest("json", other))
    with pytest.raises(UsageError, match="pass --force to replace it"):
        run_check(asked, Seen().shown())
    assert other.read_bytes() == before
    run_check(CheckRequest((cassette,), report=ReportRequest("json", other), force=True), Seen().shown())
    assert json.loads(other.read_text())["cassettes"]


def test_the_baseline_written_accepts_what_was_found_and_is_then_read(cassette: Path) -> None:
    baseline = cassette.parent / "baseline.json"
    seen = Seen()
    assert run_check(CheckRequest((cassette,), write_baseline=baseline), seen.shown()) == 0
    assert "accepted" in json.loads(baseline.read_text())
    assert seen.documents == []
    again = Seen()
    assert (
        run_check(CheckRequest((cassette,), baseline=baseline, report=ReportRequest("json")), again.shown())
        == 0
    )
    assert json.loads("".join(again.documents))["counts"]["error"] == 0


def test_the_report_and_the_baseline_cannot_be_one_file(cassette: Path) -> None:
    same = cassette.parent / "out.json"
    asked = CheckRequest((cassette,), report=ReportRequest("json", same), write_baseline=same)
    with pytest.raises(UsageError, match="name the same file"):
        run_check(asked, Seen().shown())
    assert not same.exists()


def test_replay_is_prepared_from_its_typed_request(cassette: Path) -> None:
    """The replay use case takes the request as built once: the folder comes from the cassettes, and
    a usage report may not replace a cassette."""
    replay = prepare_replay(ReplayRequest((cassette.parent,), check=True))
    assert replay.options.folder == cassette.parent
    assert len(replay.book.recordings) == 1 and replay.live is not None
    with pytest.raises(UsageError, match="is one of this command's inputs"):
        prepare_replay(ReplayRequest((cassette,), options=ReplayOptions(usage_report=cassette)))
