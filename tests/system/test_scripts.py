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


def test_the_matrix_names_each_cell_below_its_goal_and_each_ratio_missing() -> None:
    """`scripts/bench --only matrix` (outside this suite): for a table of cells drawn by a loop (every
    workload, each subject at a spread of rates over two rounds), the goals not met are exactly the cells
    whose median same-round ratio is under them, and the quick run's check names a cell without a ratio."""
    import sys

    sys.path.insert(0, str(ROOT / "scripts" / "benchmarks"))
    import matrix
    import smoke
    import workloads
    from throughput import Measurement

    plan = workloads.matrix()
    groups = []
    for number, workload in enumerate(plan):
        group = matrix.Group(workload, {key: matrix.subject(name) for key, name in matrix.NAMES.items()})
        for round_number in range(2):
            rates = {}
            for index, key in enumerate(matrix.NAMES):
                figure = 1000.0 * (1 + (number * 7 + index * 3 + round_number) % 11)
                rates[key] = {count: figure for count in workload.connections}
                for count in workload.connections:
                    group.subjects[key].figures.setdefault(count, []).append(
                        Measurement(figure, 1.0, 2.0, 0, 0)
                    )
            group.rounds.append(rates)
        groups.append(group)
    wanted = []
    for group in groups:
        for count in group.workload.connections:
            for key, against, goal in matrix.goals(group.workload, count):
                ratios = sorted(rates[key][count] / rates[against][count] for rates in group.rounds)
                if sum(ratios) / 2 < goal:
                    wanted.append((group.workload.label, count, key))
    below = [line for line in matrix.shortfalls(groups) if "below the goal" in line]
    assert len(below) == len(wanted) > 0
    assert all(
        f"{label}, {count} connection(s): {key} is" in line
        for line, (label, count, key) in zip(below, wanted, strict=True)
    )
    lines = matrix.report(groups, 2, 5.0, 2.0, "1.0 1.0 1.0")
    assert smoke.matrix_problems(lines) == []
    assert sum(line.startswith("  - ") for line in lines) == len(below)
    groups[1].subjects["talkback"].failed = "not counted: wrk saw non-2xx answers or socket errors"
    label = groups[1].workload.label
    assert smoke.matrix_problems(matrix.report(groups, 2, 5.0, 2.0, "1.0 1.0 1.0")) == [
        f"matrix cell {label} at 64 connections lacks a ratio"
    ]
    assert (
        f"{groups[1].workload.varied}: {label}, 64 connection(s): no replay / talkback ratio (goal 1x): see the notes"
        in matrix.shortfalls(groups)
    )


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
