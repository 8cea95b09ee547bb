"""Where `record` writes: never through a symbolic link into another file, never into a FIFO, device or
folder, and a cassette that is a symbolic link stays one, with one lock for every way of naming it."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import aiohttp

from proxy.store.files import read_cassette_file
from proxy.store.journal import journal_path
from proxy.store.saving import save_cassette
from tests.reliability.faulty_upstream import faulty_upstream
from tests.running import commerce_proxy, free_port, run_commerce_proxy, stop_with

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


async def test_a_cassette_that_is_a_link_stays_one_and_shares_its_lock(tmp_path: Path) -> None:
    """Recording through `link.yaml -> real.yaml` adds to real.yaml and keeps the link; a second record
    into real.yaml meanwhile is refused (both names mean one cassette, one journal, one lock)."""
    port = free_port()
    upstream = f"http://127.0.0.1:{port}"
    real, link = tmp_path / "real.yaml", tmp_path / "link.yaml"
    async with faulty_upstream(port):
        first = ["record", "--upstream", upstream, "--cassette", str(link), "--mode", "once"]
        link.symlink_to(real.name)  # a link to a cassette not yet written
        async with commerce_proxy(*first) as proxy:
            async with aiohttp.ClientSession() as session, session.get(f"{proxy.url}/ok/1") as answer:
                assert answer.status == 200
            assert journal_path(link) == journal_path(real) and journal_path(real).exists()
            other = ["record", "--upstream", upstream, "--cassette", str(real), "--mode", "new_episodes"]
            refused = run_commerce_proxy(*other)
            assert refused.returncode == 2, refused.stderr
            assert "another record is writing this cassette" in one_line(refused.stderr), refused.stderr
            code, err = await stop_with(proxy, signal.SIGTERM)
        assert code == 0, err
        again = ["record", "--upstream", upstream, "--cassette", str(link), "--mode", "new_episodes"]
        async with commerce_proxy(*again) as proxy:
            async with aiohttp.ClientSession() as session, session.get(f"{proxy.url}/ok/2") as answer:
                assert answer.status == 200
            code, err = await stop_with(proxy, signal.SIGTERM)
        assert code == 0, err
    assert link.is_symlink() and os.readlink(link) == real.name
    paths = [exchange.request.path for exchange in read_cassette_file(real).exchanges]
    assert paths == ["/ok/1", "/ok/2"]
    assert sorted(item.name for item in tmp_path.iterdir() if not item.name.startswith(".")) == [
        "link.yaml",
        "real.yaml",
    ]


def test_saving_through_a_link_replaces_the_file_it_names(tmp_path: Path) -> None:
    """Any command that saves a cassette named by a link (edits, imports) keeps the link a link."""
    real, link = tmp_path / "real.yaml", tmp_path / "link.yaml"
    save_cassette(real, read_cassette_file(_tiny(tmp_path)))
    link.symlink_to(real)
    before = real.read_text()
    save_cassette(link, read_cassette_file(_tiny(tmp_path, "/v2/other")))
    assert link.is_symlink() and "/v2/other" in real.read_text() and real.read_text() != before


def _tiny(folder: Path, path: str = "/v2/brands") -> Path:
    source = folder / f"source{path.replace('/', '-')}.yaml"
    source.write_text(
        "cassette_format: 2\nexchanges:\n"
        f"- request: {{method: GET, path: {path}}}\n  response: {{status: 200}}\n"
    )
    return source
