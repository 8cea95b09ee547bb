"""Cassette files: atomic saves, folders, and recovery of a recording that did not stop cleanly."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

import pytest

from proxy.core.cassette.document import Cassette
from proxy.errors import CassetteFormatError, CommerceProxyError, JournalError
from proxy.store.cassette_folders import cassette_files
from proxy.store.cassette_reader.loading import load_cassette, load_cassettes
from proxy.store.journal import JournalWriter, journal_path, read_journal
from proxy.store.saving import save_cassette
from tests.conftest import json_body, make_exchange, make_request


def numbered(count: int, start: int = 0) -> list:
    return [
        make_exchange(make_request(query=f"n={n}"), body=json_body(n)) for n in range(start, start + count)
    ]


def test_save_is_atomic_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    """A saved cassette loads back; nothing else is left in the folder."""
    path = tmp_path / "c.yaml"
    cassette = Cassette(tuple(numbered(3)), "http://127.0.0.1:1")
    save_cassette(path, cassette)
    assert load_cassette(path).cassette == cassette
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.yaml"]


def test_crashed_replace_recording_is_recovered_in_arrival_order(tmp_path: Path) -> None:
    """A journal left by a killed `record` becomes the cassette, ordered by arrival, and is removed."""
    path = tmp_path / "c.yaml"
    writer = JournalWriter(journal_path(path), "replace", "http://127.0.0.1:1")
    exchanges = numbered(3)
    for sequence in (2, 1, 3):  # responses completed out of arrival order
        writer.append(sequence, exchanges[sequence - 1])
    os.close(writer._fd)  # the process died: the lock goes, the journal stays
    loaded = load_cassette(path)
    assert [e.request.query for e in loaded.cassette.exchanges] == ["n=0", "n=1", "n=2"]
    assert "recovered 3 exchanges" in loaded.notes[0]
    assert not journal_path(path).exists()
    assert load_cassette(path).cassette == loaded.cassette


def test_crashed_append_recording_keeps_the_old_exchanges(tmp_path: Path) -> None:
    """A crashed new_episodes run adds its journal to the cassette it started from."""
    path = tmp_path / "c.yaml"
    save_cassette(path, Cassette(tuple(numbered(2)), "http://127.0.0.1:1"))
    writer = JournalWriter(journal_path(path), "append", "http://127.0.0.1:1")
    writer.append(1, numbered(1, start=2)[0])
    os.close(writer._fd)
    assert [e.request.query for e in load_cassette(path).cassette.exchanges] == ["n=0", "n=1", "n=2"]


def test_torn_last_line_is_dropped_with_a_note(tmp_path: Path) -> None:
    """A half-written last line (the crash) is dropped; the complete ones are kept."""
    path = tmp_path / "c.yaml"
    writer = JournalWriter(journal_path(path), "replace", None)
    writer.append(1, numbered(1)[0])
    os.write(writer._fd, b'{"seq":2,"exchange":{"requ')
    os.close(writer._fd)
    loaded = load_cassette(path)
    assert len(loaded.cassette.exchanges) == 1
    assert "torn last line" in loaded.notes[0]


def test_a_live_recording_is_read_but_not_recovered(tmp_path: Path) -> None:
    """While `record` holds the journal, loading reads it without taking it over."""
    path = tmp_path / "c.yaml"
    writer = JournalWriter(journal_path(path), "replace", None)
    writer.append(1, numbered(1)[0])
    loaded = load_cassette(path)
    assert len(loaded.cassette.exchanges) == 1 and "being recorded right now" in loaded.notes[0]
    assert journal_path(path).exists() and not path.exists()
    writer.close(remove=True)


def test_a_second_writer_is_refused(tmp_path: Path) -> None:
    """Two recordings into one cassette would interleave: the second one is refused."""
    journal = tmp_path / "c.yaml.journal"
    writer = JournalWriter(journal, "replace", None)
    writer.append(1, numbered(1)[0])
    before = journal.read_bytes()
    with pytest.raises(CommerceProxyError, match="another record is writing"):
        JournalWriter(journal, "replace", None)
    assert journal.read_bytes() == before, "the refused writer must not touch the live journal"
    writer.close(remove=True)


def test_a_journal_broken_in_the_middle_is_an_error(tmp_path: Path) -> None:
    """Only the last line may be torn; garbage before it is reported with its line."""
    journal = tmp_path / "c.yaml.journal"
    journal.write_text('{"commerce_proxy_journal":1,"mode":"replace","upstream":null}\nnot json\n{}\n')
    with pytest.raises(JournalError, match=r"c.yaml.journal:2: not a JSON line"):
        read_journal(journal)


def test_folders_list_cassettes_and_orphan_journals(tmp_path: Path) -> None:
    """A folder gives its cassettes sorted, and a first recording that crashed before writing one."""
    save_cassette(tmp_path / "b.yaml", Cassette())
    (tmp_path / "sub").mkdir()
    save_cassette(tmp_path / "sub" / "a.yml", Cassette())
    (tmp_path / "notes.txt").write_text("x")
    writer = JournalWriter(tmp_path / "new.yaml.journal", "replace", None)
    fcntl.flock(writer._fd, fcntl.LOCK_UN)
    assert [p.relative_to(tmp_path).as_posix() for p in cassette_files(tmp_path)] == [
        "b.yaml",
        "new.yaml",
        "sub/a.yml",
    ]
    writer.close(remove=True)


def test_missing_empty_and_undecodable_inputs_are_one_line_errors(tmp_path: Path) -> None:
    """No such file, an empty folder and non-UTF-8 bytes each give a clear error."""
    with pytest.raises(CommerceProxyError, match="no such cassette"):
        load_cassette(tmp_path / "none.yaml")
    with pytest.raises(CommerceProxyError, match="no cassettes"):
        load_cassettes([tmp_path])
    (tmp_path / "bad.yaml").write_bytes(b"cassette_format: 1\n\xff\n")
    with pytest.raises(CassetteFormatError, match=r"bad.yaml:2: not UTF-8"):
        load_cassette(tmp_path / "bad.yaml")


def test_an_empty_journal_writes_nothing(tmp_path: Path) -> None:
    """A recording killed before its first answer leaves no cassette behind, and an old one untouched."""
    path = tmp_path / "c.yaml"
    writer = JournalWriter(journal_path(path), "replace", None)
    os.close(writer._fd)
    loaded = load_cassette(path)
    assert loaded.cassette.exchanges == () and "nothing to recover" in loaded.notes[0]
    assert not path.exists() and not journal_path(path).exists()
    save_cassette(path, Cassette(tuple(numbered(1))))
    before = path.read_bytes()
    writer = JournalWriter(journal_path(path), "replace", None)
    os.close(writer._fd)
    assert len(load_cassette(path).cassette.exchanges) == 1
    assert path.read_bytes() == before
