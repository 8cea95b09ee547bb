"""`demo` as a new user runs it: each finding printed once, and its temporary folder removed however the
demo ends (done, an error, Ctrl-C)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from proxy.demo import run_demo


def test_demo_lists_each_finding_once_and_leaves_no_folder(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "proxy", "demo"],
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "TMPDIR": str(tmp_path)},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    output = done.stdout + done.stderr
    listed = re.findall(r"(?:warning|error) (\S+) (#\d+)", output)
    assert listed and len(listed) == len(set(listed)), output  # each finding, once
    assert len(re.findall(r"checked \d+ exchanges", output)) == 1, output
    assert "keep it with --cassette" in done.stdout
    assert not [path.name for path in tmp_path.iterdir() if path.name.startswith("commerce-proxy-demo-")]


class Stop(Exception):
    pass


@pytest.mark.parametrize("ending", [Stop, KeyboardInterrupt])
@pytest.mark.parametrize("at", ["sandbox ", "record ", "replay ", "simulate ", "  #3 "])
def test_demo_removes_its_folder_and_servers_when_it_fails_or_is_interrupted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ending: type[BaseException], at: str
) -> None:
    """An error or Ctrl-C at each stage of the demo (raised as it prints a line): no folder is left
    behind, and every server it started is stopped (an unclosed socket fails the test)."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    seen: list[str] = []

    def say(line: str) -> None:
        seen.append(line)
        if line.startswith(at):
            raise ending

    with pytest.raises(ending):
        run_demo(None, say)
    assert seen[-1].startswith(at)
    assert not [path.name for path in tmp_path.iterdir() if path.name.startswith("commerce-proxy-demo-")]


def _stopped_demo(tmp_path: Path, stop: signal.Signals, at: str, moment: float = 0.0) -> tuple[int, str]:
    """Run the demo, send `stop` `moment` seconds after it prints a line starting with `at` (each
    stage prints one as it starts), and give its exit code and output."""
    demo = subprocess.Popen(
        [sys.executable, "-u", "-m", "proxy", "demo"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "TMPDIR": str(tmp_path)},
    )
    output = ""
    try:
        assert demo.stdout is not None
        for line in demo.stdout:
            output += line
            if line.startswith(at):
                time.sleep(moment)
                demo.send_signal(stop)
                break
        output += demo.stdout.read()
        code = demo.wait(timeout=60)
    finally:
        if demo.poll() is None:
            demo.kill()
            demo.wait()
        if demo.stdout is not None:
            demo.stdout.close()
    return code, output


def _ended_as_stopped_or_done(tmp_path: Path, stop: signal.Signals, code: int, output: str) -> None:
    """Stopped (130, or the signal's own exit once the demo had let its handlers go), or, when the
    signal came after the end (this reader runs behind the demo's output), done: never a failed replay
    or an internal error (a stop taken for a broken request), and never with its folder left."""
    finished = "the recording was in a temporary folder, removed now" in output
    assert code in (130, -stop) or (code == 0 and finished), output
    assert "internal error" not in output and "DIFFERS" not in output, output
    assert not [path.name for path in tmp_path.iterdir() if path.name.startswith("commerce-proxy-demo-")]


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
@pytest.mark.parametrize("at", ["record ", "replay "])
def test_a_demo_stopped_by_a_signal_leaves_no_folder(tmp_path: Path, stop: signal.Signals, at: str) -> None:
    """A cancelled job (SIGTERM), a closed terminal (SIGHUP) or Ctrl-C as a stage starts: the demo
    ends at once and takes its temporary folder with it."""
    code, output = _stopped_demo(tmp_path, stop, at)
    _ended_as_stopped_or_done(tmp_path, stop, code, output)


# Moments across the demo's run, in seconds after its first line (it runs for about a second here):
# a signal lands in a server's parser, a client's read, a cassette's save, the folder's removal, or
# after the demo is done.
MOMENTS = [0.0, 0.05, 0.15, 0.3, 0.45, 0.6, 0.8, 1.1]


@pytest.mark.parametrize("moment", MOMENTS)
@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_demo_stopped_at_any_moment_says_interrupted_and_leaves_no_folder(
    tmp_path: Path, stop: signal.Signals, moment: float
) -> None:
    """Wherever the signal lands, the demo ends as stopped, or as done when it came after the end."""
    code, output = _stopped_demo(tmp_path, stop, "sandbox ", moment)
    _ended_as_stopped_or_done(tmp_path, stop, code, output)
