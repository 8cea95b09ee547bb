"""A server command whose port is taken says so in one line and nothing else (class: closing lines of
a session that never started). A loop over every serving command (spy; record into a new cassette and
into an existing one; replay) on a port another socket holds: exit 2, stderr is the one `cannot listen`
line, no cassette made, an existing one left byte for byte. Failed before: spy and record logged
"checked 0 exchanges: ..." (and record "nothing new recorded") before the error line."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from proxy.cli.main import main
from proxy.store.shipped import shipped_dir

DEMO = shipped_dir("cassettes") / "demo-session.yaml"


@pytest.fixture
def taken() -> Iterator[int]:
    """A port of 127.0.0.1 a socket of this test listens on."""
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        yield held.getsockname()[1]


def commands(folder: Path, port: int) -> Iterator[tuple[str, list[str], Path | None]]:
    upstream = ["--upstream", "http://127.0.0.1:46805", "--port", str(port)]  # the demo's own: no warning
    yield "spy", ["spy", *upstream], None
    yield "record new", ["record", *upstream, "--cassette", str(folder / "new.yaml")], folder / "new.yaml"
    existing = folder / "existing.yaml"
    existing.write_bytes(DEMO.read_bytes())
    yield (
        "record existing",
        ["record", *upstream, "--cassette", str(existing), "--mode", "new_episodes"],
        existing,
    )
    yield "replay", ["replay", "--cassette", str(DEMO), "--port", str(port)], None


def test_a_taken_port_is_the_one_line_said(
    tmp_path: Path, taken: int, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    for name, argv, cassette in commands(tmp_path, taken):
        before = cassette.read_bytes() if cassette is not None and cassette.exists() else None
        assert main(argv) == 2, name
        out, err = capsys.readouterr()
        assert out == "", (name, out)
        lines = err.splitlines()
        assert len(lines) == 1 and f"cannot listen on 127.0.0.1:{taken}" in lines[0], (name, err)
        if cassette is not None:
            assert (cassette.read_bytes() if cassette.exists() else None) == before, name
