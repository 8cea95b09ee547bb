"""A recording is kept only when every phase of every test that used it ended well: a fixture's setup or
teardown failing before or after `commerce_record` (fixtures end last in first out), with the test's
own endings, in each record mode; and a run stopped by `-x`, `--maxfail` or an internal error.
Real pytest sessions (pytester, a subprocess each)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.system.test_pytest_plugin_endings import TEST_ENDINGS, no_journals, run, snapshot

CONFTEST = """
import pytest

@pytest.fixture
def setup_fails():
    raise RuntimeError("setup broke")

@pytest.fixture
def teardown_fails():
    yield
    raise RuntimeError("teardown broke")

@pytest.fixture
def teardown_passes():
    yield

def pytest_runtest_logreport(report):
    if report.when == "call" and "internal_error" in report.nodeid:
        raise RuntimeError("a plugin's bug")
"""
# Each fixture ending: the test's fixtures around commerce_record, whether it is kept.
FIXTURE_ENDINGS = {
    f"{where}_{fixture}": (
        ([fixture, "commerce_record"] if where == "before" else ["commerce_record", fixture]),
        fixture.endswith("passes"),
    )
    for where in ("before", "after")
    for fixture in ("teardown_fails", "teardown_passes", "setup_fails")
}
REQUEST = "get(commerce_record, '/v2/brands?page[limit]=' + os.environ['RUN'])"


def module_of_endings() -> tuple[str, dict[str, bool]]:
    """Every fixture ending with every test ending: the module and whether each test's cassette is kept."""
    lines = ["import os, pytest", "from helpers import get", ""]
    kept: dict[str, bool] = {}
    for fixture_name, (fixtures, fixture_kept) in FIXTURE_ENDINGS.items():
        for test_name, (decorator, body, test_kept) in TEST_ENDINGS.items():
            name = f"test_{fixture_name}_{test_name}"
            lines += [decorator, f"def {name}({', '.join(fixtures)}):", f"    {REQUEST}", f"    {body}", ""]
            kept[name] = fixture_kept and test_kept
    return "\n".join(lines), kept


def test_a_recording_is_kept_only_when_every_fixture_of_its_test_ended_well(
    suite: pytest.Pytester, sandbox: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RUN", "0")
    module, kept = module_of_endings()
    suite.makeconftest(CONFTEST)
    suite.makepyfile(test_fixtures=module)
    cassettes = suite.path / "cassettes" / "test_fixtures"
    run(suite, sandbox, 1, "--commerce-record-mode=once")
    got = {name: (cassettes / f"{name}.yaml").exists() for name in kept}
    assert got == kept
    no_journals(suite.path)
    # Everything recorded (keep), then re-recorded in each mode: only what ended well changes.
    run(suite, sandbox, 2, "--commerce-record-mode=all", "--commerce-failed-recordings=keep")
    recorded = {name for name in kept if (cassettes / f"{name}.yaml").exists()}
    assert recorded == {name for name in kept if "setup_fails" not in name}  # no request: nothing to keep
    for number, mode in enumerate(("new_episodes", "all"), start=3):
        before = snapshot(cassettes)
        run(suite, sandbox, number, f"--commerce-record-mode={mode}")
        after = snapshot(cassettes)
        changed = {name for name in recorded if after[f"{name}.yaml"] != before[f"{name}.yaml"]}
        assert changed == {name for name in recorded if kept[name]}, mode
        no_journals(suite.path)


STOPPED = """
import os, pytest
from helpers import get

def test_a_passes(commerce_record_module):
    get(commerce_record_module, '/v2/brands?page[limit]=' + os.environ['RUN'])

def test_b_{name}(commerce_record):
    get(commerce_record, '/v2/brands?page[limit]=' + os.environ['RUN'])
    assert {passes}

def test_c_not_run(commerce_record_module):
    get(commerce_record_module, '/v2/brands?page[offset]=' + os.environ['RUN'])
"""
# How a run stops after test_b: its arguments, test_b's name and whether test_b passes.
STOPS = {
    "x": (["-x"], "fails", False),
    "maxfail": (["--maxfail=1"], "fails", False),
    "internal_error": ([], "internal_error", True),
}


@pytest.mark.parametrize("stop", sorted(STOPS))
def test_a_run_stopped_early_keeps_nothing_live(
    suite: pytest.Pytester, sandbox: str, monkeypatch: pytest.MonkeyPatch, stop: str
) -> None:
    arguments, name, passes = STOPS[stop]
    monkeypatch.setenv("RUN", "0")
    suite.makeconftest(CONFTEST)
    suite.makepyfile(test_stop=STOPPED.format(name=name, passes=passes))
    cassettes = suite.path / "cassettes"
    for number, mode in enumerate(("once", "new_episodes", "all"), start=1):
        before = snapshot(cassettes) if cassettes.exists() else {}
        result = run(suite, sandbox, number, f"--commerce-record-mode={mode}", *arguments)
        assert result.ret != 0
        assert snapshot(cassettes) == before, mode  # neither the module's cassette nor test_b's
        no_journals(suite.path)


def test_the_table_holds_each_ending() -> None:
    _, kept = module_of_endings()
    assert len(kept) == len(FIXTURE_ENDINGS) * len(TEST_ENDINGS)
    assert any(kept.values()) and not all(kept.values())
    assert Path(__file__).name.startswith("test_pytest_plugin")
