"""A missing cassette and a request nothing answered, as a pytest-recording user meets them: no error
until a request is sent, and then the test fails with the explanation in its own error (E) lines."""

from __future__ import annotations

import pytest

from tests.system.plugin_suite import ENTRY, put_cassette

FIXTURES = ("commerce_replay", "commerce_record", "commerce_replay_module", "commerce_record_module")
# (record mode, CI): every ending of the fixtures' choice between replaying and recording.
MODES = [("none", False), ("once", False), ("new_episodes", False), ("all", False), ("once", True)]


def _e_lines(output: str) -> list[str]:
    return [line[1:] for line in output.splitlines() if line.startswith("E   ")]


@pytest.mark.parametrize(("mode", "ci"), MODES, ids=[f"{mode}{'-ci' if ci else ''}" for mode, ci in MODES])
def test_a_missing_cassette_is_an_error_only_when_a_request_is_sent(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, mode: str, ci: bool
) -> None:
    if ci:
        monkeypatch.setenv("CI", "true")
    quiet = "\n".join(
        f"def test_quiet_{name}({name}):\n    assert {name}.startswith('http')\n" for name in FIXTURES
    )
    sends = "\n".join(
        f"def test_sends_{name}({name}):\n    assert get({name}, '{ENTRY}')[0] == 200\n" for name in FIXTURES
    )
    suite.makepyfile(test_quiet=quiet, test_sends="from helpers import get\n\n" + sends)
    result = suite.runpytest_subprocess("-p", "no:cacheprovider", f"--commerce-record-mode={mode}")
    result.assert_outcomes(passed=4, failed=4)
    errors = "\n".join(_e_lines(result.stdout.str()))
    recording = mode != "none" and not ci
    for name in FIXTURES:
        cassette = "test_sends.yaml" if name.endswith("_module") else f"test_sends/test_sends_{name}.yaml"
        if recording and name.startswith("commerce_record"):
            assert f"record mode {mode} needs an upstream to record cassettes/{cassette}" in errors
        else:
            assert f"no cassette {suite.path}/cassettes/{cassette}: record it with `pytest " in errors
    assert f"GET {ENTRY} matched no recording" in errors
    assert "Traceback" not in result.stdout.str()
    assert not (suite.path / "cassettes").exists()


MISS = ENTRY.replace("5b0f", "0000") + "?include=items"


def test_a_miss_fails_the_test_once_with_the_closest_recording_and_how_to_record_it(
    suite: pytest.Pytester,
) -> None:
    """One client swallows the 404, one raises it: each test fails, its E lines explaining the miss."""
    put_cassette(suite, "test_misses/test_swallows.yaml")
    put_cassette(suite, "test_misses/test_raises.yaml")
    suite.makepyfile(
        test_misses=f'''
import urllib.request
from helpers import get

def test_swallows(commerce_replay):
    assert get(commerce_replay, "{MISS}")[0] == 404

def test_raises(commerce_replay):
    urllib.request.urlopen(commerce_replay + "{MISS}", timeout=10)
'''
    )
    result = suite.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(failed=2)
    output = result.stdout.str()
    errors = _e_lines(output)
    assert sum("HTTP Error 404" in line for line in errors) == 1  # the raising client's own error is kept
    for test in ("test_swallows", "test_raises"):
        wanted = [
            f"commerce-proxy: GET {MISS} matched no recording in cassettes/test_misses/{test}.yaml "
            "(answered 404):",
            f"GET {MISS} matched no recording",
            f"  cassette: cassettes/test_misses/{test}.yaml",
            f"  closest: #1 GET {ENTRY}, which differs in",
            f"    path: recorded {ENTRY}; sent {MISS.split('?')[0]}",
            "  commerce_replay only replays: record it with commerce_record and "
            "`pytest --commerce-record-mode=new_episodes --commerce-upstream URL`",
        ]
        for line in wanted:  # in each test's failure once
            assert sum(error.endswith(line) for error in errors) == (1 if test in line else 2), (line, output)
    assert any(line.endswith("    query.include: recorded (absent); sent items") for line in errors)
    assert "no match:" not in output  # not again in a captured log
    result.stdout.fnmatch_lines(["FAILED test_misses.py::test_raises - *"])


def test_record_mode_none_says_which_mode_records_the_miss(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    put_cassette(suite, "test_ci/test_reads.yaml")
    suite.makepyfile(
        test_ci=f'from helpers import get\n\ndef test_reads(commerce_record):\n    get(commerce_record, "{MISS}")\n'
    )
    monkeypatch.setenv("CI", "true")
    result = suite.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    assert (
        "  record mode none replays only: record it without CI=true with "
        "`pytest --commerce-record-mode=new_episodes --commerce-upstream URL`"
    ) in result.stdout.str()
    monkeypatch.delenv("CI")
    once = suite.runpytest_subprocess("-p", "no:cacheprovider", "--commerce-record-mode=once")
    once.assert_outcomes(failed=1)
    assert any(
        line.endswith(
            "  record mode once does not add to an existing cassette: record it with `pytest "
            "--commerce-record-mode=new_episodes --commerce-upstream URL`"
        )
        for line in _e_lines(once.stdout.str())
    )


SWALLOWS = f"""
from helpers import get

def test_swallows(commerce_replay):
    get(commerce_replay, "{MISS}")  # the client ignores the 404
"""


@pytest.mark.parametrize(
    "arguments", [("-rf",), ("-rf", "-n", "2"), ("-rf", "-vv")], ids=["serial", "xdist", "untrimmed"]
)
def test_the_short_summary_of_a_swallowed_miss_reads_like_pytest_s_own(
    suite: pytest.Pytester, arguments: tuple[str, ...]
) -> None:
    put_cassette(suite, "test_miss/test_swallows.yaml")
    suite.makepyfile(test_miss=SWALLOWS)
    result = suite.runpytest_subprocess("-p", "no:cacheprovider", *arguments)
    result.assert_outcomes(failed=1)
    output = result.stdout.str()
    summary = [line for line in output.splitlines() if line.startswith("FAILED test_miss.py::test_swallows")]
    assert len(summary) == 1, output
    assert summary[0].startswith(f"FAILED test_miss.py::test_swallows - commerce-proxy: GET {MISS[:10]}"), (
        summary
    )
    assert f"E   GET {MISS} matched no recording" in output  # the failure itself keeps its E lines
