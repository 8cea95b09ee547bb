"""No ending of a writing process leaves a file of ours behind: each writer of whole files, killed while
its new file is open and partly written, leaves its folder as it was (the target whole, no `.tmp-`
name), since the new file has no name until `commit`; where O_TMPFILE is refused, the old named way."""

from __future__ import annotations

import errno
import os
import re
import signal
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from proxy.core.cassette import document as cassette_format
from proxy.core.cassette.document import Cassette
from proxy.store import writing
from proxy.store.cassette_reader import parse_cache
from proxy.store.cassette_reader.cache_paths import entry_path
from proxy.store.saving import save_cassette, write_atomically
from proxy.store.writing import NewFile, write_file
from tests.conftest import json_body, make_exchange

PROXY = Path(__file__).resolve().parents[3] / "proxy"
CASSETTE = Cassette(
    tuple(make_exchange(body=json_body({"n": number, "text": "x" * 4000})) for number in range(20)),
    "http://127.0.0.1:9",
)


@dataclass(frozen=True)
class Writer:
    """A writer of whole files: the module that makes its `NewFile`, where it writes in a folder (made
    ready beforehand), and the write itself."""

    module: str
    target: Callable[[Path], Path]
    write: Callable[[Path], None]


def remembered(folder: Path) -> None:
    path = folder / "c.yaml"
    raw = cassette_format.dump_cassette(CASSETTE).encode()
    path.write_bytes(raw)
    parse_cache.remember_cassette(path, raw, parse_cache.file_state(path), CASSETTE)


def pieces() -> Iterator[str]:
    yield from ("name: x\n" for _ in range(5000))


WRITERS = {
    "cassette": Writer(
        "store/saving.py",
        lambda folder: folder / "c.yaml",
        lambda folder: save_cassette(folder / "c.yaml", CASSETTE),
    ),
    "report, rules, import (text pieces)": Writer(
        "store/saving.py",
        lambda folder: folder / "report.html",
        lambda folder: write_atomically(folder / "report.html", pieces()),
    ),
    "bytes": Writer(
        "store/writing.py",
        lambda folder: folder / "b.bin",
        lambda folder: write_file(folder / "b.bin", b"b" * 100_000, "the file"),
    ),
    "parse cache entry": Writer(
        "store/cassette_reader/parse_cache.py", lambda folder: _entry(folder), remembered
    ),
}
# The UI's index cache (store/traffic_cache.py) writes by name (SQLite's backup: `named`), and sweeps
# what a killed copy left itself: test_traffic_index_files.py.
NAMED = {"store/traffic_cache.py"}


def _entry(folder: Path) -> Path:
    entry = entry_path(folder / "c.yaml")
    assert entry is not None
    return entry


@pytest.fixture(autouse=True)
def beside(monkeypatch: pytest.MonkeyPatch) -> None:
    """Parse cache entries beside the cassettes, for cassettes of any size."""
    monkeypatch.delenv("COMMERCE_PROXY_CACHE", raising=False)
    monkeypatch.setattr(parse_cache, "SMALLEST_CACHED", 0)


class Stalling:
    """A new file's handle whose first write writes half, tells the parent, then ends the process
    (`exit`) or waits to be killed."""

    def __init__(self, real: Any, told: int, ending: str) -> None:
        self.real, self.told, self.ending = real, told, ending

    def write(self, data: bytes) -> int:
        self.real.write(data[: max(1, len(data) // 2)])
        self.real.flush()
        os.write(self.told, b"!")
        if self.ending == "exit":
            os._exit(3)
        time.sleep(60)  # the parent kills it here
        return 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)


def listing(folder: Path) -> dict[str, bytes | None]:
    return {
        str(path.relative_to(folder)): path.read_bytes() if path.is_file() else None
        for path in folder.rglob("*")
    }


@pytest.mark.parametrize("ending", ["SIGKILL", "exit"])
@pytest.mark.parametrize("existing", [True, False])
@pytest.mark.parametrize("name", WRITERS)
def test_a_writer_ended_mid_write_leaves_its_folder_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, existing: bool, ending: str
) -> None:
    writer = WRITERS[name]
    writer.target(tmp_path).parent.mkdir(parents=True, exist_ok=True)
    if name == "parse cache entry":
        remembered(tmp_path)  # the cache folder, its .gitignore and an entry
    target = writer.target(tmp_path)
    if existing:
        target.write_bytes(b"the old file\n")
    else:
        target.unlink(missing_ok=True)
    before = listing(tmp_path)
    told, tell = os.pipe()
    real_init = NewFile.__init__

    def stalled(self: NewFile, *args: Any, **kwargs: Any) -> None:
        real_init(self, *args, **kwargs)
        self.handle = Stalling(self.handle, tell, ending)

    monkeypatch.setattr(NewFile, "__init__", stalled)
    child = os.fork()
    if child == 0:  # pragma: no cover (the child)
        try:
            os.close(told)
            writer.write(tmp_path)
        finally:
            os._exit(0)
    os.close(tell)
    try:
        assert os.read(told, 1) == b"!", "the child wrote"
        if ending == "SIGKILL":
            opened = [os.readlink(link) for link in Path(f"/proc/{child}/fd").iterdir()]
            files = [name for name in opened if name.startswith(str(tmp_path)) and not os.path.isdir(name)]
            assert files and all(name.endswith(" (deleted)") for name in files), opened
            os.kill(child, signal.SIGKILL)
    except BaseException:
        os.kill(child, signal.SIGKILL)  # not left waiting
        raise
    finally:
        os.close(told)
        _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == (-signal.SIGKILL if ending == "SIGKILL" else 3)
    assert listing(tmp_path) == before


def test_the_table_holds_every_writer_of_whole_files() -> None:
    """Every module that makes a `NewFile` (or calls `write_file`) is in the table, or writes by name."""
    found = {
        str(path.relative_to(PROXY))
        for path in PROXY.rglob("*.py")
        if re.search(r"\b(NewFile|write_file)\(", path.read_text()) and path.name != "writing.py"
    }
    assert found == {writer.module for writer in WRITERS.values()} - {"store/writing.py"} | NAMED


@pytest.mark.parametrize("refusal", ["EOPNOTSUPP", "EISDIR", "EINVAL", "no /proc"])
def test_where_an_unnamed_file_is_refused_a_named_one_is_written_as_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, refusal: str
) -> None:
    real_open, real_stat = os.open, os.stat

    def refusing_open(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if refusal != "no /proc" and flags & os.O_TMPFILE == os.O_TMPFILE:
            raise OSError(getattr(errno, refusal), os.strerror(getattr(errno, refusal)))
        return real_open(path, flags, *args, **kwargs)

    def refusing_stat(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        if refusal == "no /proc" and str(path).startswith("/proc/self/fd/"):
            raise FileNotFoundError(errno.ENOENT, "No such file or directory")
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(writing.os, "open", refusing_open)
    monkeypatch.setattr(writing.os, "stat", refusing_stat)
    target = tmp_path / "c.yaml"
    target.write_text("old\n")
    seen: list[list[str]] = []

    def looking() -> Iterator[str]:
        seen.append(sorted(path.name for path in tmp_path.iterdir()))
        yield "new\n"

    write_file(target, looking(), "the file")
    assert len(seen[0]) == 2 and seen[0][0].startswith(".c.yaml.tmp-"), seen
    assert target.read_text() == "new\n" and [path.name for path in tmp_path.iterdir()] == ["c.yaml"]

    def failing() -> Iterator[str]:
        yield "half"
        raise RuntimeError("the maker failed")

    with pytest.raises(RuntimeError):
        write_file(target, failing(), "the file")
    assert target.read_text() == "new\n" and [path.name for path in tmp_path.iterdir()] == ["c.yaml"]
    new = NewFile(target, "the file")
    assert new.named and new.temporary_path.exists()
    new.abandon()
    assert [path.name for path in tmp_path.iterdir()] == ["c.yaml"]


def test_an_unnamed_new_file_has_no_name_until_commit(tmp_path: Path) -> None:
    """While written, nothing in the folder names it; `abandon` leaves nothing; `commit` puts it whole
    in place, with the user's permissions; `named` gives a temporary name at once."""
    target = tmp_path / "c.yaml"
    new = NewFile(target, "the file")
    new.handle.write(b"new\n")
    assert not new.named and list(tmp_path.iterdir()) == []
    assert os.readlink(f"/proc/self/fd/{new.handle.fileno()}").endswith(" (deleted)")
    with pytest.raises(ValueError, match="named=True"):
        _ = new.temporary_path
    new.abandon()
    assert list(tmp_path.iterdir()) == []
    new = NewFile(target, "the file")
    new.handle.write(b"new\n")
    new.commit()
    assert target.read_bytes() == b"new\n" and [path.name for path in tmp_path.iterdir()] == ["c.yaml"]
    named = NewFile(target, "the file", named=True)
    assert named.temporary_path.exists()
    named.abandon()
    assert [path.name for path in tmp_path.iterdir()] == ["c.yaml"]
