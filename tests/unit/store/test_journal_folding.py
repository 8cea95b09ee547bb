"""A journal is folded in exactly once, and only into its own cassette: one already absorbed is removed
quietly, one of another cassette or of an older version of this one is refused and left as it was."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from proxy.app.recording import RecordingSession, RecordSettings
from proxy.cli.main import main
from proxy.core.cassette.document import Cassette
from proxy.errors import JournalError
from proxy.store import saving
from proxy.store.cassette_reader.loading import load_cassette
from proxy.store.journal import JournalWriter, journal_path
from proxy.store.saving import save_cassette
from tests.unit.store.test_files import numbered

UPSTREAM = "http://127.0.0.1:9"


def queries(cassette: Cassette) -> list[str]:
    return [exchange.request.query for exchange in cassette.exchanges]


def recording(path: Path, mode: str = "new_episodes", new: int = 2) -> RecordingSession:
    """A `record` session into `path` that has journaled `new` exchanges after those in the cassette."""
    start = len(load_cassette(path).cassette.exchanges) if path.exists() else 0
    session = RecordingSession(RecordSettings(upstream=UPSTREAM, cassette=path, mode=mode))
    for exchange in numbered(new, start=start):
        session.keep(exchange)
    return session


def test_a_reader_right_after_the_save_sees_every_exchange_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A command loading the cassette between the save and the journal's removal (record still holds
    its lock) reads the saved cassette alone: no exchange twice, no claim of a crash."""
    path = tmp_path / "c.yaml"
    save_cassette(path, Cassette(tuple(numbered(3)), UPSTREAM))
    session = recording(path)
    seen = []
    remember = saving.remember_cassette

    def reader_arrives(*arguments: object) -> None:
        remember(*arguments)
        seen.append(load_cassette(path))

    monkeypatch.setattr(saving, "remember_cassette", reader_arrives)
    session.finish()
    [loaded] = seen
    assert queries(loaded.cassette) == [f"n={n}" for n in range(5)]
    assert loaded.notes == ()


def test_a_kill_right_after_the_save_folds_nothing_twice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`kill -9` after the new cassette is in place but before the journal is removed: the next load
    removes the journal quietly and the cassette keeps each exchange once."""
    path = tmp_path / "c.yaml"
    save_cassette(path, Cassette(tuple(numbered(3)), UPSTREAM))
    session = recording(path)
    assert session.journal is not None
    monkeypatch.setattr(JournalWriter, "close", lambda writer, remove: os.close(writer._fd))  # died here
    session.finish()
    saved = path.read_bytes()
    loaded = load_cassette(path)
    assert queries(loaded.cassette) == [f"n={n}" for n in range(5)]
    assert loaded.notes == ()
    assert not journal_path(path).exists() and path.read_bytes() == saved


def test_a_journal_of_another_cassette_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A leftover journal of `a.yaml` beside `b.yaml` is not folded into b: one line, exit 2, b intact."""
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    session = recording(a, mode="all")
    assert session.journal is not None
    os.close(session.journal._fd)  # the recording of a.yaml was killed
    save_cassette(b, Cassette(tuple(numbered(50)), UPSTREAM))
    before = b.read_bytes()
    journal_path(a).rename(journal_path(b))
    with pytest.raises(JournalError, match=r"the journal of 'a.yaml', not of 'b.yaml'"):
        load_cassette(b)
    assert main(["check", str(b), "-q"]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert "the journal of 'a.yaml', not of 'b.yaml'; nothing was folded in" in line
    assert b.read_bytes() == before and journal_path(b).exists()


def test_a_journal_of_an_older_version_of_the_cassette_is_refused(tmp_path: Path) -> None:
    """A crashed recording's journal, after the cassette was replaced since: neither folded into the
    new cassette nor dropped; the error says how to keep its exchanges."""
    path = tmp_path / "c.yaml"
    save_cassette(path, Cassette(tuple(numbered(3)), UPSTREAM))
    session = recording(path)
    assert session.journal is not None
    os.close(session.journal._fd)  # killed
    journal = journal_path(path)
    kept = journal.read_bytes()
    journal.rename(tmp_path / "aside")
    save_cassette(path, Cassette(tuple(numbered(1)), UPSTREAM))  # the cassette moves on meanwhile
    (tmp_path / "aside").rename(journal)
    before = path.read_bytes()
    with pytest.raises(JournalError, match=r"another version of c.yaml .* keep its 2 exchanges"):
        load_cassette(path)
    assert path.read_bytes() == before and journal.read_bytes() == kept


def test_a_crashed_recording_is_still_folded_in_once(tmp_path: Path) -> None:
    """The journal of a killed recording whose cassette is as it began is folded in, then gone."""
    path = tmp_path / "c.yaml"
    save_cassette(path, Cassette(tuple(numbered(3)), UPSTREAM))
    session = recording(path)
    assert session.journal is not None
    os.close(session.journal._fd)
    first = load_cassette(path)
    assert queries(first.cassette) == [f"n={n}" for n in range(5)] and "recovered 2" in first.notes[0]
    assert load_cassette(path) == type(first)(path, first.cassette)
