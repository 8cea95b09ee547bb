"""A recording is kept only when the run that made it ended well: each way a test or a run can end,
in each record mode, and a run killed mid-recording (its journal never folded in, in CI or locally).
Real pytest sessions (pytester, a subprocess each; signals sent to a pytest of our own)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

# Each way a test can end: (decorator, what the body does after its request, whether it is kept).
TEST_ENDINGS = {
    "passes": ("", "pass", True),
    "fails": ("", "assert False, 'broken'", False),
    "xfail_fails": ("@pytest.mark.xfail", "assert False, 'known'", False),
    "xfail_strict_fails": ("@pytest.mark.xfail(strict=True)", "assert False, 'known'", False),
    "xfail_passes": ("@pytest.mark.xfail", "pass", True),  # XPASS: the body ran through
    "xfail_strict_passes": ("@pytest.mark.xfail(strict=True)", "pass", False),  # reported failed
    "xfails_itself": ("", "pytest.xfail('not yet')", False),
    "skips_itself": ("", "pytest.skip('no service')", False),
    "errors": ("", "raise RuntimeError('client bug')", False),
}
# Each way a run can stop in a test: what the test does after its request.
RUN_ENDINGS = {
    "interrupt": "raise KeyboardInterrupt",  # what Ctrl-C raises in the test
    "exit": "pytest.exit('stop')",
    "exit_ok": "pytest.exit('stop', returncode=0)",
}
REQUEST = "get(commerce_record, '/v2/brands?page[limit]=' + os.environ['RUN'])"


def module_of(endings: dict[str, tuple[str, str, bool]]) -> str:
    lines = ["import os, pytest", "from helpers import get", ""]
    for name, (decorator, body, _) in endings.items():
        lines += [decorator, f"def test_{name}(commerce_record):", f"    {REQUEST}", f"    {body}", ""]
    return "\n".join(lines)


MODULE_SCOPED = """
import os, pytest
from helpers import get

def test_passes(commerce_record_module):
    get(commerce_record_module, '/v2/brands?page[limit]=' + os.environ['RUN'])

@pytest.mark.xfail
def test_xfail_fails(commerce_record_module):
    get(commerce_record_module, '/v2/brands?page[offset]=' + os.environ['RUN'])
    assert False
"""


def stopping_module(ending: str) -> str:
    return f"""
import os, pytest
from helpers import get

def test_a_passes(commerce_record):
    {REQUEST}

def test_b_module(commerce_record_module):
    get(commerce_record_module, '/v2/brands?page[limit]=' + os.environ['RUN'])

def test_c_stops(commerce_record):
    {REQUEST}
    {ending}
"""


def snapshot(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.glob("**/*")) if path.is_file()}


def no_journals(folder: Path) -> None:
    assert not list(folder.glob("**/*.journal"))


def run(suite: pytest.Pytester, sandbox: str, number: int, *arguments: str) -> pytest.RunResult:
    os.environ["RUN"] = str(number)  # monkeypatched by the caller, so it is restored
    return suite.runpytest_subprocess("-p", "no:cacheprovider", f"--commerce-upstream={sandbox}", *arguments)


def discarded(result: pytest.RunResult) -> dict[str, str]:
    """The summary's `recordings discarded` section: each cassette named, and what became of it."""
    lines = result.stdout.str().splitlines()
    heads = [number for number, line in enumerate(lines) if "commerce-proxy: recordings discarded" in line]
    named: dict[str, str] = {}
    for line in lines[heads[0] + 1 :] if heads else []:
        for what in ("not created", "left as it was"):
            if f".yaml {what}: " in line:
                named[line.split(f" {what}: ")[0]] = what
    return named


def test_a_recording_is_kept_only_when_its_test_passed(
    suite: pytest.Pytester, sandbox: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RUN", "0")
    suite.makepyfile(test_endings=module_of(TEST_ENDINGS), test_mod=MODULE_SCOPED)
    cassettes = suite.path / "cassettes"
    first = run(suite, sandbox, 1, "--commerce-record-mode=once")
    for name, (_, _, kept) in TEST_ENDINGS.items():
        assert (cassettes / "test_endings" / f"test_{name}.yaml").exists() == kept, name
    assert not (cassettes / "test_mod.yaml").exists()
    expected = {
        f"cassettes/test_endings/test_{name}.yaml": "not created"
        for name, (_, _, kept) in TEST_ENDINGS.items()
        if not kept
    }
    assert discarded(first) == {**expected, "cassettes/test_mod.yaml": "not created"}
    no_journals(cassettes)
    # Everything recorded (keep), then re-recorded in each mode: only what passed changes.
    run(suite, sandbox, 2, "--commerce-record-mode=all", "--commerce-failed-recordings=keep")
    for number, mode in enumerate(("new_episodes", "all"), start=3):
        before = snapshot(cassettes)
        assert len(before) == len(TEST_ENDINGS) + 1
        again = run(suite, sandbox, number, f"--commerce-record-mode={mode}")
        left = {path: "left as it was" for path in expected}
        assert discarded(again) == {**left, "cassettes/test_mod.yaml": "left as it was"}, mode
        after = snapshot(cassettes)
        for name, (_, _, kept) in TEST_ENDINGS.items():
            file = f"test_{name}.yaml"
            assert (after[file] != before[file]) == kept, (mode, name)
        assert after["test_mod.yaml"] == before["test_mod.yaml"], mode
        no_journals(cassettes)


@pytest.mark.parametrize("ending", sorted(RUN_ENDINGS))
def test_a_run_that_stops_keeps_only_what_ended_before(
    suite: pytest.Pytester, sandbox: str, monkeypatch: pytest.MonkeyPatch, ending: str
) -> None:
    monkeypatch.setenv("RUN", "0")
    suite.makepyfile(test_stop=stopping_module(RUN_ENDINGS[ending]))
    cassettes = suite.path / "cassettes"
    first = run(suite, sandbox, 1, "--commerce-record-mode=once")
    assert sorted(path.name for path in cassettes.glob("**/*.yaml")) == ["test_a_passes.yaml"]
    stopped = {
        "cassettes/test_stop/test_c_stops.yaml": "not created",
        "cassettes/test_stop.yaml": "not created",
    }
    assert discarded(first) == stopped, first.stdout.str()
    no_journals(cassettes)
    run(suite, sandbox, 2, "--commerce-record-mode=all", "--commerce-failed-recordings=keep")
    for number, mode in enumerate(("new_episodes", "all"), start=3):
        before = snapshot(cassettes)
        assert len(before) == 3
        again = run(suite, sandbox, number, f"--commerce-record-mode={mode}")
        assert discarded(again) == dict.fromkeys(stopped, "left as it was"), mode
        after = snapshot(cassettes)
        assert after["test_a_passes.yaml"] != before["test_a_passes.yaml"], mode
        assert after["test_c_stops.yaml"] == before["test_c_stops.yaml"], mode
        assert after["test_stop.yaml"] == before["test_stop.yaml"], mode
        no_journals(cassettes)


def test_a_stop_after_a_failure_names_the_module_recording_it_discarded(
    suite: pytest.Pytester, sandbox: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RUN", "0")
    suite.makepyfile(test_stop=stopping_module("assert False"))
    result = run(suite, sandbox, 1, "--commerce-record-mode=once", "-x", "-p", "no:randomly")
    assert discarded(result) == {
        "cassettes/test_stop/test_c_stops.yaml": "not created",
        "cassettes/test_stop.yaml": "not created",
    }, result.stdout.str()
    result.stdout.fnmatch_lines(
        ["cassettes/test_stop.yaml not created: a test failed (test_stop.py::test_c_stops)"]
    )


WAITING = """
import os, time
from pathlib import Path
from helpers import get

def test_waits(commerce_record):
    get(commerce_record, '/v2/brands?page[limit]=' + os.environ['RUN'])
    if os.environ.get("WAIT"):
        Path("recorded").write_text("yes")
        for _ in range(600):  # bounded: the outer test signals within a second or two
            time.sleep(0.1)
"""


def signalled(suite: pytest.Pytester, sandbox: str, number: int, mode: str, how: signal.Signals) -> None:
    """An inner pytest recording, sent `how` once its exchange is journaled."""
    marker = suite.path / "recorded"
    marker.unlink(missing_ok=True)
    environment = {**os.environ, "RUN": str(number), "WAIT": "1"}
    environment.pop("CI", None)
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", f"--commerce-upstream={sandbox}"]
    process = subprocess.Popen(
        [*command, f"--commerce-record-mode={mode}"],
        cwd=suite.path,
        env=environment,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(1200):  # bounded: at most about two minutes under load
            if marker.exists() or process.poll() is not None:
                break
            time.sleep(0.1)
        assert marker.exists(), "the inner test never recorded"
        process.send_signal(how)
        process.wait(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_ctrl_c_discards_and_a_killed_recording_is_never_folded_in(
    suite: pytest.Pytester, sandbox: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RUN", "0")
    monkeypatch.delenv("WAIT", raising=False)
    suite.makepyfile(test_wait=WAITING)
    cassette = suite.path / "cassettes" / "test_wait" / "test_waits.yaml"
    journal = cassette.with_name(cassette.name + ".journal")
    signalled(suite, sandbox, 1, "once", signal.SIGINT)  # Ctrl-C during a first recording
    assert not cassette.exists() and not journal.exists()
    signalled(suite, sandbox, 1, "once", signal.SIGKILL)  # killed during a first recording
    assert not cassette.exists() and journal.exists()
    left = journal.read_bytes()
    monkeypatch.setenv("CI", "true")  # CI after a killed run: nothing folded, nothing written
    ci = run(suite, sandbox, 1, "--commerce-record-mode=all")
    ci.assert_outcomes(failed=1)  # its request fails, naming the cassette and the journal
    ci.stdout.fnmatch_lines(["*no cassette*test_waits.yaml*left by a recording that did not end*"])
    assert not cassette.exists() and journal.read_bytes() == left
    monkeypatch.delenv("CI")
    local = run(suite, sandbox, 1, "--commerce-record-mode=once")  # the user is offered the choice
    local.assert_outcomes(errors=1)
    local.stdout.fnmatch_lines(["*test_waits.yaml.journal was left by a recording that did not end*"])
    assert not cassette.exists() and journal.read_bytes() == left
    journal.unlink()
    run(suite, sandbox, 1, "--commerce-record-mode=once").assert_outcomes(passed=1)
    recorded = cassette.read_bytes()
    signalled(suite, sandbox, 2, "all", signal.SIGINT)  # Ctrl-C while re-recording
    assert cassette.read_bytes() == recorded and not journal.exists()
    signalled(suite, sandbox, 3, "new_episodes", signal.SIGKILL)  # killed while adding episodes
    left = journal.read_bytes()
    monkeypatch.setenv("CI", "true")
    replayed = run(suite, sandbox, 1, "--commerce-record-mode=new_episodes")
    replayed.assert_outcomes(passed=1)
    assert cassette.read_bytes() == recorded and journal.read_bytes() == left
