"""Beside test_no_trace (the servers): every other run that makes something in the temporary folder
leaves nothing there, however it ends. A table over (run) x (ending: done, Ctrl-C, SIGTERM, SIGKILL
then the next run of the same kind), each with a temporary folder of its own: after a SIGKILL, what the
killed run left is swept by the next one."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.integration.cli.test_no_trace import environment, left_in

ROOT = Path(__file__).resolve().parents[3]
# A recording session's hold of its cassette's lock, with the plugin's handling of SIGTERM meanwhile.
HOLD_A_LOCK = (
    "import sys, time; from pathlib import Path; from proxy.store.locks import cassette_lock\n"
    "from proxy.pytest_plugin.signals import StopSignals\n"
    "StopSignals().take()\n"
    "with cassette_lock(Path(sys.argv[1])):\n    time.sleep(float(sys.argv[2]))\n"
)
# run: (its command, given the test's folder and whether it should wait to be ended)
RUNS = {
    # the lock a recording session of the pytest plugin holds for its cassette
    "cassette lock": lambda folder, wait: [
        sys.executable,
        "-c",
        HOLD_A_LOCK,
        str(folder / ("killed.yaml" if wait else "next.yaml")),
        "120" if wait else "0",
    ],
    "demo": lambda folder, wait: [sys.executable, "-m", "proxy", "demo"],
    "fuzz": lambda folder, wait: [
        sys.executable,
        str(ROOT / "scripts" / "fuzz_cassettes.py"),
        "--target=heads",
        f"--runs={100_000 if wait else 20}",
        f"--seconds={120 if wait else 30}",
    ],
}
ENDINGS = ["done", signal.SIGINT, signal.SIGTERM, signal.SIGKILL]


def run(command: list[str], setting: dict[str, str], cwd: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        command,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, **setting, "PYTHONPATH": str(ROOT)},
        start_new_session=True,  # a group of its own, which the ending is sent to
    )


def ended(process: subprocess.Popen[bytes], temporary: str, ending: signal.Signals) -> None:
    """`ending` sent once the run has made its thing in the temporary folder."""
    try:
        deadline = time.monotonic() + 120
        # Its own thing, by our names: Python's first `tempfile.gettempdir()` makes and removes a probe
        # file of a random name there, which a SIGKILL sent on seeing it would leave (not ours).
        while not [name for name in left_in(temporary) if name.startswith("commerce-proxy")]:
            assert process.poll() is None and time.monotonic() < deadline, "it never made its thing"
            time.sleep(0.05)
        os.killpg(process.pid, ending)  # to its group, as Ctrl-C in a terminal or a CI job's cancel
        process.wait(timeout=120)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)  # only the group this test started
            process.wait()


@pytest.mark.parametrize("ending", ENDINGS, ids=lambda ending: getattr(ending, "name", ending))
@pytest.mark.parametrize("kind", sorted(RUNS))
def test_a_run_leaves_nothing_in_the_temporary_folder(kind: str, ending: object, tmp_path: Path) -> None:
    setting = environment(tmp_path)
    command = RUNS[kind]
    if isinstance(ending, signal.Signals):
        ended(run(command(tmp_path, True), setting, tmp_path), setting["TMPDIR"], ending)
    if ending in ("done", signal.SIGKILL):  # after a SIGKILL, the next run sweeps what was left
        assert run(command(tmp_path, False), setting, tmp_path).wait(timeout=300) == 0
    assert left_in(setting["TMPDIR"]) == []


def test_the_fuzz_targets_imported_and_run_make_nothing(tmp_path: Path) -> None:
    """As tests/reliability imports them (each import once made an empty folder that stayed)."""
    setting = environment(tmp_path)
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); import fuzz_targets as f\n"
        "for seed in f.HEAD_SEEDS: f.heads_input(seed)\n"
        "for seed in f.REDACTION_SEEDS: f.redaction_input(seed)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(ROOT / "scripts")],
        env={**os.environ, **setting, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert left_in(setting["TMPDIR"]) == []
