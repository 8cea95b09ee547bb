"""A recording fixture's plan for its cassette, decided by the use case alone (no plugin, no server):
replay (mode none, or once over a cassette that exists), stop at a leftover journal, or record."""

from __future__ import annotations

from pathlib import Path

from proxy.app.record_setup import LeftOver, RecordIt, ReplayOnly, plan
from proxy.app.recording import RECORD_MODES
from proxy.store.journal import journal_path


def test_each_mode_and_cassette_state_has_its_plan(tmp_path: Path) -> None:
    cassette = tmp_path / "c.yaml"
    for mode in RECORD_MODES:  # no cassette: every mode but none records
        assert plan(mode, cassette) == (ReplayOnly() if mode == "none" else RecordIt()), mode
    journal_path(cassette).write_text("")  # a killed run's journal, no recording holding it
    for mode in RECORD_MODES:
        assert plan(mode, cassette) == (ReplayOnly() if mode == "none" else LeftOver(journal_path(cassette)))
    cassette.write_text("")
    for mode in RECORD_MODES:
        expected = ReplayOnly() if mode in ("none", "once") else LeftOver(journal_path(cassette))
        assert plan(mode, cassette) == expected, mode
    journal_path(cassette).unlink()
    assert [plan(mode, cassette) for mode in RECORD_MODES] == [
        ReplayOnly(),
        RecordIt(),
        RecordIt(),
        ReplayOnly(),
    ]
