"""`check`'s progress bar: drawn on a terminal (a real pty), never when stderr is a pipe or a file."""

from __future__ import annotations

import os
import pty
import re
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path

from proxy.cli.progress import Progress
from tests.paths import ROOT


def many_cassettes(folder: Path, copies: int = 12) -> Path:
    for number in range(copies):
        shutil.copyfile(ROOT / "cassettes" / "demo-session.yaml", folder / f"session-{number:02}.yaml")
    return folder


def run_on_a_terminal(arguments: list[str], env: dict[str, str], out: Path) -> tuple[int, bytes, bytes]:
    """Run with stderr on a pty (stdout into a file); returns the exit code, stdout, and what the terminal saw."""
    leader, follower = pty.openpty()
    with out.open("wb") as stdout:
        process = subprocess.Popen(
            arguments, stdout=stdout, stderr=follower, stdin=subprocess.DEVNULL, env=env
        )
    os.close(follower)
    seen = b""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        ready, _, _ = select.select([leader], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            seen += chunk
        elif process.poll() is not None:
            break
    os.close(leader)
    return process.wait(timeout=30), out.read_bytes(), seen


def environment(**extra: str) -> dict[str, str]:
    env = {**os.environ, "TERM": "xterm", "COMMERCE_PROXY_PROGRESS_DELAY": "0", "COLUMNS": "120", **extra}
    env.pop("CI", None)
    return env


def test_a_check_on_a_terminal_draws_a_bar_and_clears_it(tmp_path: Path) -> None:
    folder = many_cassettes(tmp_path)
    code, stdout, seen = run_on_a_terminal(
        [sys.executable, "-m", "proxy", "check", str(folder), "--format", "json"],
        environment(),
        tmp_path / "out",
    )
    text = seen.decode()
    assert code == 0
    frames = re.findall(
        r"\r(checking \[[#.]{24}\] \d+/12 cassettes, [\d,]+ exchanges, \d+ s: \w+ [^\r\x1b]*)\x1b\[K", text
    )
    assert frames, text
    drawn, _, after = text.rpartition("\r\x1b[K")  # cleared: what follows starts on a clean line
    assert drawn and re.fullmatch(r"commerce-proxy: checked 216 exchanges in \d+\.\d s\r\n", after), text
    assert b'"exchanges": 216' in stdout  # the report itself is untouched


def test_a_check_into_a_pipe_or_with_quiet_draws_nothing(tmp_path: Path) -> None:
    folder = many_cassettes(tmp_path)
    piped = subprocess.run(
        [sys.executable, "-m", "proxy", "check", str(folder)],
        capture_output=True,
        text=True,
        env=environment(),
        timeout=120,
    )
    assert piped.returncode == 0
    assert "checking [" not in piped.stderr and "\r" not in piped.stderr
    code, _, seen = run_on_a_terminal(
        [sys.executable, "-m", "proxy", "check", "-q", str(folder)], environment(), tmp_path / "out"
    )
    assert code == 0
    assert b"checking [" not in seen


def test_the_line_counts_files_and_exchanges_and_fits_the_width() -> None:
    class Terminal:
        def isatty(self) -> bool:
            return True

    progress = Progress(4, Terminal(), wanted=True)  # type: ignore[arg-type]
    progress.reading(0, Path("a.yaml"))
    assert progress.line(200).startswith("checking [........................] 0/4 cassettes, 0 exchanges")
    progress.checking(100)
    progress.advance(50)
    assert "[####....................] 0/4 cassettes, 50 exchanges" in progress.line(200)
    progress.reading(1, Path("b.yaml"))
    progress.checking(10)
    assert "1/4 cassettes, 100 exchanges" in progress.line(200)
    assert len(progress.line(30)) == 30
