"""The README's quick start, run as a new user runs it: `scripts/run demo`."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.paths import ROOT


def test_scripts_run_demo(tmp_path: Path) -> None:
    """`scripts/run demo` exits 0 and reports the full offline replay, from any working directory."""
    finished = subprocess.run(
        [str(ROOT / "scripts" / "run"), "demo", "--cassette", str(tmp_path / "demo.yaml")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )
    assert finished.returncode == 0, finished.stderr
    assert "replayed 18/18 requests offline" in finished.stdout
    assert (tmp_path / "demo.yaml").is_file()


def test_re_recording_the_examples_from_an_unchanged_sandbox_changes_no_byte(tmp_path: Path) -> None:
    """`scripts/record-examples` twice: the second run leaves every cassette as it was (the kept
    entries are named in the demo's summary), so `git diff` after it is empty."""
    import sys

    def record() -> str:
        done = subprocess.run(
            [sys.executable, str(ROOT / "scripts" / "record_examples.py"), str(tmp_path)],
            capture_output=True,
            text=True,
            timeout=300,
            stdin=subprocess.DEVNULL,
        )
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        return done.stdout

    record()
    first = {path.name: path.read_bytes() for path in tmp_path.glob("*.yaml")}
    again = record()
    assert sorted(first) == ["demo-session.yaml", "pagination-walk.yaml"]
    assert {path.name: path.read_bytes() for path in tmp_path.glob("*.yaml")} == first
    assert "replayed 18/18 requests offline" in again and "kept from the earlier recording" in again


@pytest.mark.serial
def test_scripts_bench_quick_runs_every_subject_and_writes_its_table(tmp_path: Path) -> None:
    """`scripts/bench --quick`: every peer measured, replay figures verified, loading and check timed.

    A benchmark, so no speed is asserted here: only that it runs end to end and writes its table.
    """
    import os
    import shutil

    missing = [tool for tool in ("nginx", "wrk", "node", "npm", "java") if shutil.which(tool) is None]
    if missing:
        reason = f"scripts/bench needs {', '.join(missing)} (apt-get install nginx-light wrk nodejs npm openjdk-17-jre)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"{reason}; .ci/run installs them, so CI never skips this", pytrace=False)
        pytest.skip(reason)
    results = tmp_path / "results.md"
    finished = subprocess.run(
        [str(ROOT / "scripts" / "bench"), "--quick", "-o", str(results)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=280,
        stdin=subprocess.DEVNULL,
    )
    assert finished.returncode == 0, finished.stderr[-3000:]
    text = results.read_text()
    rows = {line.split(" | ")[0].lstrip("| "): line for line in text.splitlines() if line.startswith("| ")}
    for subject in (
        "direct to nginx (the limit)",
        "baseline: aiohttp pass-through + uvloop",
        "commerce-proxy record (recording, checking)",
        "commerce-proxy spy (checking)",
        "commerce-proxy replay",
        "mitmdump --server-replay",
        "talkback (replay)",
        "WireMock (playback)",
    ):
        assert subject in rows, f"no row for {subject}:\n{text}"
        requests_per_s = rows[subject].split(" | ")[1]
        assert requests_per_s.replace(",", "").isdigit(), f"{subject} has no figure:\n{text}"
    loaders = [line for line in text.splitlines() if line.startswith("| 1,000 |")]
    assert [line.split(" | ")[1] for line in loaders] == ["commerce-proxy", "vcrpy", "cassetter"]
    assert "| cold (YAML parsed) |" in text and "| warm (parse cache) |" in text
    (verify,) = [line.split(" | ") for line in text.splitlines() if line.startswith("| verify |")]
    assert verify[2:4] == ["50 ms", "8"] and verify[4].endswith(" s"), text  # 1,000 reads re-sent
    assert "failed" not in text, text
