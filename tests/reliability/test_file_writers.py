"""Every writer against every planted path: no file is ever written through a symbolic link (at the name
or at a folder on the way), into a FIFO, or over the file such a link names.

The table is every command (and library path) that writes a file by every attack on where it writes;
each case checks that the file outside, which the attack points at, is byte for byte as it was, that the
command neither hangs nor tracebacks, and that the planted link is still there.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from proxy.cli.main import main
from proxy.core.cassette.document import Cassette
from proxy.errors import CommerceProxyError
from proxy.store.cassette_reader.loading import read_cassette_file
from proxy.store.saving import save_cassette, write_atomically
from tests.reliability.figures import write_figure
from tests.running import run_commerce_proxy

SHIPPED = Path(__file__).parents[2] / "cassettes" / "demo-session.yaml"


@dataclass(frozen=True)
class Writer:
    """One way of writing: `target` is the file it writes (under out/), `run` does it (exit code)."""

    name: str
    target: str
    run: Callable[[Path], int]


def _cli(*arguments: str) -> Callable[[Path], int]:
    def run(project: Path) -> int:
        return main([part.format(project=project) for part in arguments])

    return run


def _subprocess(*arguments: str) -> Callable[[Path], int]:
    def run(project: Path) -> int:
        return run_commerce_proxy(*(part.format(project=project) for part in arguments)).returncode

    return run


def _library(call: Callable[[Path, Path], None], target: str) -> Callable[[Path], int]:
    def run(project: Path) -> int:
        try:
            call(project, project / target)
        except CommerceProxyError:
            return 2
        return 0

    return run


def _cassette_of(project: Path) -> Cassette:
    return read_cassette_file(project / "a.yaml")


IN_PLACE = "out/c.yaml"
EDITS = [
    ("set", "0", "status", "299"),
    ("unset", "0", "resp.header.content-type"),
    ("delete", "0"),
    ("keep", "--where", "status = 200"),
    ("redact", "--header", "x-request-id"),
    ("rehost", "--to", "http://127.0.0.1:1"),
    ("fix-etag",),
    ("fmt", "--drop-comments"),
]

WRITERS = [
    *(
        Writer(f"cassette {edit[0]}", IN_PLACE, _cli("cassette", edit[0], IN_PLACE, *edit[1:], "--no-check"))
        if edit[0] != "fmt"
        else Writer("cassette fmt", IN_PLACE, _cli("cassette", "fmt", IN_PLACE, *edit[1:]))
        for edit in EDITS
    ),
    Writer("cassette merge -o", IN_PLACE, _cli("cassette", "merge", "a.yaml", "-o", IN_PLACE, "--force")),
    Writer(
        "cassette split -o",
        "out/200.yaml",
        _cli("cassette", "split", "a.yaml", "--by", "status", "-o", "out", "--force", "--no-check"),
    ),
    Writer("import-har -o", IN_PLACE, _cli("import-har", "a.har", "-o", IN_PLACE, "--force")),
    Writer("export-har -o", "out/c.har", _cli("export-har", "a.yaml", "-o", "out/c.har", "--force")),
    Writer(
        "check -o", "out/r.json", _cli("check", "a.yaml", "-o", "out/r.json", "--force", "--format", "json")
    ),
    Writer(
        "check --write-baseline",
        "out/b.json",
        _cli("check", "a.yaml", "--write-baseline", "out/b.json", "--force"),
    ),
    Writer("demo --cassette", IN_PLACE, _subprocess("demo", "--cassette", "{project}/" + IN_PLACE)),
    *(
        Writer(
            f"record --mode {mode}",
            IN_PLACE,
            _subprocess(
                "record",
                "--upstream",
                "http://127.0.0.1:9",
                "--cassette",
                "{project}/" + IN_PLACE,
                "--mode",
                mode,
                "--port",
                "0",
            ),
        )
        for mode in ("new_episodes", "all")
    ),
    Writer(
        "save_cassette (python API, verify --update, journal folding)",
        IN_PLACE,
        _library(lambda project, target: save_cassette(target, _cassette_of(project)), IN_PLACE),
    ),
    Writer(
        "write_atomically (replay --usage-report, verify -o)",
        "out/u.json",
        _library(lambda _, target: write_atomically(target, "{}\n", "the usage report"), "out/u.json"),
    ),
]


def _link_at_name(project: Path, target: Path) -> None:
    target.symlink_to(project / "outside" / target.name)


def _link_at_folder(project: Path, target: Path) -> None:
    shutil.rmtree(target.parent)
    target.parent.symlink_to(project / "outside", target_is_directory=True)


def _link_to_folder_outside(project: Path, target: Path) -> None:
    target.symlink_to(project / "outside", target_is_directory=True)


def _fifo(project: Path, target: Path) -> None:
    os.mkfifo(target)


def _dangling_link(project: Path, target: Path) -> None:
    target.symlink_to(project / "outside" / "new-file")


ATTACKS: dict[str, Callable[[Path, Path], None]] = {
    "a link at the name to a file outside": _link_at_name,
    "a link at the folder on the way": _link_at_folder,
    "a link at the name to a folder outside": _link_to_folder_outside,
    "a link at the name to no file yet": _dangling_link,
    "a FIFO at the name": _fifo,
}


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    shutil.copy(SHIPPED, tmp_path / "a.yaml")
    assert main(["export-har", "a.yaml", "-o", "a.har"]) == 0
    return tmp_path


def _prepare(project: Path, writer: Writer) -> Path:
    """out/ beside outside/, each holding a valid cassette under the writer's file name."""
    out, outside = project / "out", project / "outside"
    for folder in (out, outside):
        if folder.is_symlink():
            folder.unlink()
        elif folder.exists():
            shutil.rmtree(folder)
        folder.mkdir()
    target = project / writer.target
    for where in (out, outside):  # off the normal layout by a blank line: `cassette fmt` rewrites it
        (where / target.name).write_bytes(SHIPPED.read_bytes() + b"\n")
    (outside / "keep.txt").write_text("a week of work\n")
    target.unlink()
    return target


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in folder.iterdir()}


def test_no_writer_writes_through_a_link_or_into_a_fifo(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each writer by each attack: refused with exit 2; outside/ byte for byte as it was, links kept."""
    cases = 0
    for writer in WRITERS:
        for attack_name, attack in ATTACKS.items():
            target = _prepare(project, writer)
            outside = _snapshot(project / "outside")
            attack(project, target)
            links = [path for path in (target, target.parent) if path.is_symlink()]
            capsys.readouterr()
            code = writer.run(project)
            case = (writer.name, attack_name)
            assert code == 2, case
            assert _snapshot(project / "outside") == outside, case
            assert "Traceback" not in capsys.readouterr().err, case
            assert all(path.is_symlink() for path in links), case
            cases += 1
    write_figure("writers_attacked", cases, "writers x planted links and FIFOs, nothing outside changed")


def test_an_ordinary_path_is_written_by_every_writer(project: Path) -> None:
    """The control: with nothing planted, every writer writes its file (so each case above could fail)."""
    for writer in WRITERS:
        target = _prepare(project, writer)
        if writer.name.startswith(("record", "demo")):
            continue  # they need an upstream; their refusals above are all they are here for
        if (
            writer.name.startswith("cassette")
            and writer.name != "cassette merge -o"
            and "split" not in writer.name
        ):
            target.write_bytes(SHIPPED.read_bytes() + b"\n")
        assert writer.run(project) in (0, 1), writer.name
        assert target.is_file(), writer.name
