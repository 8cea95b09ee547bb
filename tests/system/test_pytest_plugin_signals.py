"""A run stopped by signals while it records writes nothing and leaves no journal: Ctrl-C once, twice
at several spacings (the second landing while pytest reports the first, during the teardown, or during
the discard), and SIGTERM or SIGHUP (how CI cancels a job), which end the run as Ctrl-C does. A real
pytest of our own in a subprocess, signalled by its PID, each wait bounded."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

SLOW_TEARDOWN = """
import os, time
from pathlib import Path
import pytest
from helpers import get

@pytest.fixture
def slow_teardown():
    yield
    Path("tearing").write_text("yes")
    for _ in range(30):  # bounded: the outer test signals again within a second
        time.sleep(0.1)

def test_waits(commerce_record, slow_teardown):
    get(commerce_record, '/v2/brands?page[limit]=' + os.environ['RUN'])
    Path("recorded").write_text("yes")
    for _ in range(600):  # bounded: the outer test signals within a second or two
        time.sleep(0.1)
"""

# Each way a run is stopped: the signals sent, and the pause before each after the first. "teardown"
# waits until the interrupted test's teardown has begun.
STOPS: dict[str, tuple[tuple[signal.Signals, float | str], ...]] = {
    "ctrl_c": ((signal.SIGINT, 0),),
    "ctrl_c_twice_at_once": ((signal.SIGINT, 0), (signal.SIGINT, 0)),
    "ctrl_c_twice_10ms": ((signal.SIGINT, 0), (signal.SIGINT, 0.01)),
    "ctrl_c_twice_50ms": ((signal.SIGINT, 0), (signal.SIGINT, 0.05)),
    "ctrl_c_twice_200ms": ((signal.SIGINT, 0), (signal.SIGINT, 0.2)),
    "ctrl_c_twice_in_teardown": ((signal.SIGINT, 0), (signal.SIGINT, "teardown")),
    "sigterm": ((signal.SIGTERM, 0),),
    "sigterm_twice_50ms": ((signal.SIGTERM, 0), (signal.SIGTERM, 0.05)),
    "sighup": ((signal.SIGHUP, 0),),
    "sigterm_then_ctrl_c": ((signal.SIGTERM, 0), (signal.SIGINT, 0.05)),
}


def wait_for(path: Path, process: subprocess.Popen[bytes]) -> None:
    for _ in range(1200):  # bounded: at most about two minutes under load
        if path.exists() or process.poll() is not None:
            return
        time.sleep(0.1)


def stopped(suite: pytest.Pytester, sandbox: str, mode: str, stop: str) -> tuple[int, str]:
    """An inner pytest recording, stopped as `stop` says once its exchange is journaled; its exit
    status and output."""
    for name in ("recorded", "tearing"):
        (suite.path / name).unlink(missing_ok=True)
    environment = {**os.environ, "RUN": "1"}
    environment.pop("CI", None)
    output = suite.path / "output.txt"
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", f"--commerce-upstream={sandbox}"]
    with output.open("wb") as out:
        process = subprocess.Popen(
            [*command, f"--commerce-record-mode={mode}"],
            cwd=suite.path,
            env=environment,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
        try:
            wait_for(suite.path / "recorded", process)
            assert (suite.path / "recorded").exists(), "the inner test never recorded"
            for number, pause in STOPS[stop]:
                if pause == "teardown":
                    wait_for(suite.path / "tearing", process)
                else:
                    time.sleep(float(pause))
                if process.poll() is None:
                    process.send_signal(number)
            process.wait(timeout=120)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
    return process.returncode, output.read_text()


@pytest.mark.parametrize("stop", list(STOPS))
def test_a_stopped_run_writes_no_recording_and_leaves_no_journal(
    suite: pytest.Pytester, sandbox: str, stop: str
) -> None:
    suite.makepyfile(test_wait=SLOW_TEARDOWN)
    folder = suite.path / "cassettes" / "test_wait"
    cassette = folder / "test_waits.yaml"
    status, output = stopped(suite, sandbox, "once", stop)
    assert not cassette.exists(), output
    assert not list(suite.path.glob("cassettes/**/*.journal")), output
    assert status != 0, output
    if len(STOPS[stop]) == 1:  # one signal: the run ends as Ctrl-C ends it, saying what it discarded
        assert status == pytest.ExitCode.INTERRUPTED, output
        assert "commerce-proxy: recordings discarded" in output, output
        assert "cassettes/test_wait/test_waits.yaml not created" in output, output


@pytest.mark.parametrize("stop", ["ctrl_c_twice_50ms", "sigterm"])
def test_a_stopped_re_recording_leaves_the_cassette_as_it_was(
    suite: pytest.Pytester, sandbox: str, stop: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite.makepyfile(test_wait=SLOW_TEARDOWN.replace("for _ in range(600)", "for _ in range(0)"))
    monkeypatch.setenv("RUN", "1")
    monkeypatch.delenv("CI", raising=False)
    suite.runpytest_subprocess(
        "-p", "no:cacheprovider", f"--commerce-upstream={sandbox}", "--commerce-record-mode=once"
    ).assert_outcomes(passed=1)
    cassette = suite.path / "cassettes" / "test_wait" / "test_waits.yaml"
    recorded = cassette.read_bytes()
    suite.makepyfile(test_wait=SLOW_TEARDOWN)
    _, output = stopped(suite, sandbox, "all", stop)
    assert cassette.read_bytes() == recorded, output
    assert not list(suite.path.glob("cassettes/**/*.journal")), output
