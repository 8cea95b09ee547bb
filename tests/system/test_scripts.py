"""The README's quick start, run as a new user runs it: `scripts/run demo`."""

from __future__ import annotations

import subprocess
from pathlib import Path

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


def test_the_quick_benchmark_names_what_its_table_lacks() -> None:
    """`scripts/bench --quick` (the benchmarks' smoke run, outside this suite) fails on an incomplete table:
    a complete one (the docs page a full run wrote) passes, and each gap is named."""
    import sys

    sys.path.insert(0, str(ROOT / "scripts" / "benchmarks"))
    import smoke

    table = (ROOT / "docs" / "benchmarks.md").read_text()
    assert smoke.problems(table) == []
    lines = table.splitlines()
    without_wiremock = "\n".join(line for line in lines if not line.startswith("| WireMock (playback) |"))
    assert smoke.problems(without_wiremock) == ["no throughput row for WireMock (playback)"]
    without_verify = "\n".join(line for line in lines if not line.startswith("| verify |"))
    assert smoke.problems(without_verify) == ["no complete verify row (50 ms, 8 connections, a time in s)"]
    unmeasured = table.replace("| talkback (replay) | 6,476 |", "| talkback (replay) | failed |")
    assert smoke.problems(unmeasured) == [
        "talkback (replay) has no requests/s figure",
        "a measurement failed: " + next(line for line in unmeasured.splitlines() if "failed" in line),
    ]


def test_the_pre_commit_hooks_are_scripts_check_steps_run_locally() -> None:
    """.pre-commit-config.yaml fetches no hook repository: every hook is a step of scripts/check, and
    together they are all of its steps, so a commit is checked as CI checks it."""
    import yaml

    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text())
    assert [repo["repo"] for repo in config["repos"]] == ["local"]
    hooks = config["repos"][0]["hooks"]
    assert [hook["entry"] for hook in hooks] == [
        "scripts/check lint",
        "scripts/check format",
        "scripts/check types",
    ]
    assert all(hook["language"] == "script" and hook["pass_filenames"] is False for hook in hooks)
    refused = subprocess.run(
        [str(ROOT / "scripts" / "check"), "tests"], capture_output=True, text=True, timeout=60, check=False
    )
    assert (refused.returncode, refused.stdout) == (2, "")
    assert refused.stderr == "scripts/check: error: unknown step 'tests' (lint, format or types)\n"
