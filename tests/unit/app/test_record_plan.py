"""A recording fixture's plan for its cassette, decided by the use case alone (no plugin, no server):
replay (mode none, or once over a cassette that exists), stop at a leftover journal, or record."""

from __future__ import annotations

from pathlib import Path

from proxy.app.record_setup import LeftOver, RecordIt, ReplayOnly, plan
from proxy.app.recording import RECORD_MODES
from proxy.store.journal import JournalWriter, journal_path
from tests.unit.core.exchanges import entry_read


def test_each_mode_and_cassette_state_has_its_plan(tmp_path: Path) -> None:
    cassette = tmp_path / "c.yaml"
    for mode in RECORD_MODES:  # no cassette: every mode but none records
        assert plan(mode, cassette) == (ReplayOnly() if mode == "none" else RecordIt()), mode
    killed = JournalWriter(journal_path(cassette), "append", None)  # a killed run's journal, which
    killed.append(0, entry_read())  # recorded one exchange; no recording holds it now
    killed.close(remove=False)
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


def test_a_journal_left_with_nothing_in_it_is_recorded_over(tmp_path: Path) -> None:
    """A run stopped as it started leaves a journal with no exchange (empty, or its header alone):
    nothing to fold in or lose, so the next recording starts instead of stopping at it."""
    cassette = tmp_path / "c.yaml"
    for made in ("empty", "header"):
        if made == "empty":
            journal_path(cassette).write_text("")
        else:
            JournalWriter(journal_path(cassette), "replace", None).close(remove=False)
        for mode in RECORD_MODES:
            assert plan(mode, cassette) == (ReplayOnly() if mode == "none" else RecordIt()), (made, mode)
    journal_path(cassette).write_text('{"commerce_proxy_journal": 99}\n')  # unreadable: not judged empty
    assert plan("all", cassette) == LeftOver(journal_path(cassette))
