"""Where `record` writes: never through a symbolic link into another file, never into a FIFO, device or
folder; a cassette that is a symbolic link is refused, the file it names kept."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from proxy.errors import UsageError
from proxy.store.cassette_reader.loading import read_cassette_file
from proxy.store.journal import journal_path
from proxy.store.saving import save_cassette
from tests.running import run_commerce_proxy

UPSTREAM = "http://127.0.0.1:9"


def one_line(stderr: str) -> str:
    [line] = stderr.splitlines()
    return line


def test_a_journal_that_is_a_link_is_refused_and_its_target_kept(tmp_path: Path) -> None:
    """`record --mode all` with PATH.journal linking to a user's file: exit 2 at start, the file intact."""
    precious = tmp_path / "notes.txt"
    precious.write_text("a week of work\n")
    cassette = tmp_path / "c.yaml"
    journal_path(cassette).symlink_to(precious)
    done = run_commerce_proxy("record", "--upstream", UPSTREAM, "--cassette", str(cassette), "--mode", "all")
    assert done.returncode == 2, done.stderr
    assert "is a symbolic link; a journal is never written through one" in one_line(done.stderr)
    assert precious.read_text() == "a week of work\n"


def test_a_fifo_at_the_journal_path_is_refused_at_once(tmp_path: Path) -> None:
    """A FIFO where the journal goes: one line and exit 2, not a `record` that waits forever."""
    cassette = tmp_path / "c.yaml"
    os.mkfifo(journal_path(cassette))
    done = run_commerce_proxy("record", "--upstream", UPSTREAM, "--cassette", str(cassette), "--mode", "all")
    assert done.returncode == 2, done.stderr
    assert "not a regular file; a journal is written only as one" in one_line(done.stderr)


def test_a_folder_as_the_cassette_is_refused_before_any_traffic(tmp_path: Path) -> None:
    """`--cassette FOLDER` in every recording mode: one line saying it is a folder, nothing written."""
    folder = tmp_path / "cassettes"
    folder.mkdir()
    for mode in ("once", "new_episodes", "all"):
        done = run_commerce_proxy("record", "--upstream", UPSTREAM, "--cassette", str(folder), "--mode", mode)
        assert done.returncode == 2, (mode, done.stderr)
        assert f"{folder}: is a folder; --cassette names a cassette file" in one_line(done.stderr), mode
    assert list(tmp_path.rglob("*")) == [folder]


def test_a_cassette_that_is_a_link_is_refused_and_the_file_it_names_kept(tmp_path: Path) -> None:
    """`record --cassette link.yaml` (link.yaml -> real.yaml) in every mode: exit 2 at start with one
    line, and real.yaml and the link untouched (a link in a cloned repository may name any file)."""
    real, link = tmp_path / "real.yaml", tmp_path / "link.yaml"
    save_cassette(real, read_cassette_file(_tiny(tmp_path)))
    before = real.read_bytes()
    link.symlink_to(real.name)
    for mode in ("once", "new_episodes", "all"):
        done = run_commerce_proxy("record", "--upstream", UPSTREAM, "--cassette", str(link), "--mode", mode)
        assert done.returncode == 2, (mode, done.stderr)
        assert "is a symbolic link; the cassette is never written through one" in one_line(done.stderr)
    assert link.is_symlink() and os.readlink(link) == real.name and real.read_bytes() == before
    assert not journal_path(link).exists() and not journal_path(real).exists()


def test_saving_through_a_link_is_refused_and_the_file_it_names_kept(tmp_path: Path) -> None:
    """Any command that saves a cassette named by a link (edits, imports) refuses; the link and the
    file it names stay as they were."""
    real, link = tmp_path / "real.yaml", tmp_path / "link.yaml"
    save_cassette(real, read_cassette_file(_tiny(tmp_path)))
    link.symlink_to(real)
    before = real.read_bytes()
    with pytest.raises(UsageError, match="is a symbolic link; the cassette is never written through one"):
        save_cassette(link, read_cassette_file(_tiny(tmp_path, "/v2/other")))
    assert link.is_symlink() and real.read_bytes() == before


def _tiny(folder: Path, path: str = "/v2/brands") -> Path:
    source = folder / f"source{path.replace('/', '-')}.yaml"
    source.write_text(
        "cassette_format: 2\nexchanges:\n"
        f"- request: {{method: GET, path: {path}}}\n  response: {{status: 200}}\n"
    )
    return source
