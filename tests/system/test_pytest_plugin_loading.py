"""What loading the plugin costs a run: every pytest run in a project where commerce-proxy is installed
loads it, so it brings only its options, hooks and fixtures' names; the servers, the rules, the
contract and the sandbox (aiohttp) load when a test first asks for a fixture that needs them. pytest
rewrites the asserts of none of our modules but the first few the plugin loads (unrewritten.py), so a
run where bytecode may not be written does not parse and compile each of them again."""

from __future__ import annotations

import json

import pytest

from tests.system.plugin_suite import put_cassette
from tests.system.test_pytest_plugin_usage import FETCH, files_cassette

# The modules a test sees loaded, and which of ours pytest rewrote, written beside the suite.
SEEN = """
import json, sys
from pathlib import Path

from _pytest.assertion.rewrite import AssertionRewritingHook

def note(name):
    ours = sorted(module for module in list(sys.modules) if module.split(".")[0] == "proxy")
    rewritten = [
        module for module in ours
        if isinstance(getattr(sys.modules[module], "__loader__", None), AssertionRewritingHook)
    ]
    with open(Path(__file__).parent / "seen.jsonl", "a") as out:
        out.write(json.dumps({"test": name, "modules": sorted(sys.modules), "rewritten": rewritten}) + "\\n")
"""

TESTS = """
from fetch import fetch
from seen import note

def test_a_without_fixtures():
    note("plain")

def test_b_replaying(commerce_replay):
    fetch(commerce_replay, 0)
    note("replaying")
"""

# Loaded only when a fixture needs them: the server stack, the rules, the contract, the sandbox (its
# server is aiohttp's; another installed plugin may load aiohttp itself).
HEAVY = (
    "proxy.sandbox.app",
    "proxy.app",
    "proxy.server.serving",
    "proxy.core.contract",
    "proxy.core.replay.book",
)
FIRST = {"proxy", "proxy.version", "proxy.pytest_plugin", "proxy.pytest_plugin.unrewritten"}


@pytest.mark.parametrize("bytecode", ["written", "not written"])
def test_the_plugin_loads_its_servers_only_when_a_test_asks_and_pytest_rewrites_none_of_them(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, bytecode: str
) -> None:
    if bytecode == "not written":
        monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    else:
        monkeypatch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)
    suite.makepyfile(fetch=FETCH, seen=SEEN, test_loading=TESTS)
    put_cassette(suite, "test_loading/test_b_replaying.yaml", text=files_cassette(1))
    result = suite.runpytest_subprocess("-p", "no:cacheprovider", "--commerce-record-mode=none")
    result.assert_outcomes(passed=2)
    seen = {
        line["test"]: line for line in map(json.loads, (suite.path / "seen.jsonl").read_text().splitlines())
    }
    plain, replaying = seen["plain"], seen["replaying"]
    for heavy in HEAVY:
        assert not [module for module in plain["modules"] if module.startswith(heavy)], heavy
    assert any(module.startswith("proxy.core.replay.book") for module in replaying["modules"])
    assert set(replaying["rewritten"]) <= FIRST, sorted(set(replaying["rewritten"]) - FIRST)


# A user's suite that tests its own pytest code with pytester in-process runs using our fixtures, then
# uses a fixture itself: each run drops the modules first imported inside it.
INNER = """
def test_inner(commerce_replay):
    assert commerce_replay.startswith("http://127.0.0.1:")
"""
IN_PROCESS = f"""
INNER = {INNER!r}

def test_first(pytester):
    pytester.makepyfile(test_x=INNER)
    pytester.runpytest_inprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)

def test_second(pytester):
    pytester.makepyfile(test_y=INNER)
    pytester.runpytest_inprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)
"""
OUTER = """
def test_outer(commerce_replay):
    assert commerce_replay.startswith("http://127.0.0.1:")
"""


def test_fixtures_work_after_in_process_runs_that_used_them(suite: pytest.Pytester) -> None:
    suite.makeconftest('pytest_plugins = ["pytester"]\n')
    suite.makepyfile(test_in_process=IN_PROCESS, test_zouter=OUTER)
    result = suite.runpytest_subprocess("-p", "no:cacheprovider", "--commerce-record-mode=none")
    result.assert_outcomes(passed=3)
