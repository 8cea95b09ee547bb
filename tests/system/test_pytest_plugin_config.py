"""The pytest plugin reads the project's config as `check` does: severities, the baseline of accepted
findings, freshness, match options; and it reports recordings a test never used."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.conftest import ENTRY_CASSETTE
from tests.integration.cli.test_match_ignore_json import recorded_update
from tests.system.plugin_suite import ENTRY, broken_etag_cassette, put_cassette


def commerce_proxy(suite: pytest.Pytester, *arguments: str) -> subprocess.CompletedProcess[str]:
    """The command line, run in the user's project folder as they would run it."""
    return subprocess.run(
        [sys.executable, "-m", "proxy", *arguments],
        cwd=suite.path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_findings_the_baseline_accepts_fail_no_strict_test_as_they_fail_no_check(
    suite: pytest.Pytester,
) -> None:
    broken_etag_cassette(suite)
    (suite.path / "commerce-proxy.yaml").write_text("baseline: accepted.json\n")
    written = commerce_proxy(suite, "check", "cassettes", "--write-baseline", "accepted.json")
    assert written.returncode == 0, written.stderr
    checked = commerce_proxy(suite, "check", "cassettes")
    assert checked.returncode == 0 and "accepted by the baseline" in checked.stdout, checked.stdout

    strict = suite.runpytest_subprocess("-p", "no:cacheprovider", "--commerce-conformance=strict")
    strict.assert_outcomes(passed=2)
    strict.stdout.fnmatch_lines(["test_etag.py::test_reads_entry: 1 accepted by the baseline"])
    assert "error entry.etag.matches-etag-id" not in strict.stdout.str()

    (suite.path / "accepted.json").write_text('{"baseline_format": 1, "accepted": []}\n')
    unaccepted = suite.runpytest_subprocess("-p", "no:cacheprovider", "--commerce-conformance=strict")
    unaccepted.assert_outcomes(failed=1, passed=1)


def test_a_baseline_the_config_names_but_that_is_missing_is_one_clear_error(
    suite: pytest.Pytester,
) -> None:
    broken_etag_cassette(suite)
    (suite.path / "commerce-proxy.yaml").write_text("baseline: accepted.json\n")
    result = suite.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines(["*accepted.json: no such baseline file; write one with *"])
    assert "Traceback" not in result.stdout.str()


UNUSED_SUITE = f'''
from helpers import get

def test_reads_entry_only(commerce_replay):
    assert get(commerce_replay, "{ENTRY}")[0] == 200

def test_fails_early(commerce_replay):
    assert False, "the client is broken"
'''


def test_recordings_a_test_never_used_are_reported_or_fail_it(suite: pytest.Pytester) -> None:
    put_cassette(suite, "test_unused/test_reads_entry_only.yaml")  # the token answer goes unused
    put_cassette(suite, "test_unused/test_fails_early.yaml")
    suite.makepyfile(test_unused=UNUSED_SUITE)
    warned = suite.runpytest_subprocess("-p", "no:cacheprovider")
    warned.assert_outcomes(passed=1, failed=1)
    line = (
        "cassettes/test_unused/test_reads_entry_only.yaml: 1 of 2 recordings never used by its test: "
        "#0 POST /oauth/access_token"
    )
    warned.stdout.fnmatch_lines(["*= commerce-proxy: recordings never used =*", line])
    assert "test_fails_early.yaml: 2 of 2" not in warned.stdout.str()  # a failed test stopped early

    failed = suite.runpytest_subprocess("-p", "no:cacheprovider", "--commerce-unused=fail")
    failed.assert_outcomes(passed=1, failed=1)
    failed.stdout.fnmatch_lines(
        ["*= commerce-proxy: recordings never used (--commerce-unused=fail: the run fails) =*", line]
    )
    assert failed.ret == pytest.ExitCode.TESTS_FAILED

    ignored = suite.runpytest_subprocess("-p", "no:cacheprovider", "--commerce-unused=ignore")
    ignored.assert_outcomes(passed=1, failed=1)
    assert "never used" not in ignored.stdout.str()


IGNORING_SUITE = """
import json, urllib.request, uuid
import pytest

PATH = "/v2/subscriptions/features/0b6f8e1c-1c52-4a6c-9f3e-2d1f6c9a7b10"

def put(base):
    body = {"data": {"type": "subscription_feature", "attributes": {"name": "Gold"},
                     "meta": {"request_id": str(uuid.uuid4())}}}
    request = urllib.request.Request(base + PATH, json.dumps(body).encode(), method="PUT",
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status
    except urllib.error.HTTPError as error:
        return error.code

@pytest.mark.commerce_cassette("update.yaml", match_ignore_json=["data.meta.request_id"])
def test_marked(commerce_replay):
    assert put(commerce_replay) == 200

@pytest.mark.commerce_cassette("update.yaml")
def test_unmarked(commerce_replay):
    assert put(commerce_replay) == 200
"""


def test_the_marker_and_the_config_ignore_a_generated_id_in_request_bodies(suite: pytest.Pytester) -> None:
    (suite.path / "cassettes").mkdir()
    recorded_update(suite.path / "cassettes")
    suite.makepyfile(test_ignoring=IGNORING_SUITE)
    marked_only = suite.runpytest_subprocess("-p", "no:cacheprovider")
    marked_only.assert_outcomes(passed=1, failed=1)
    marked_only.stdout.fnmatch_lines(["FAILED test_ignoring.py::test_unmarked*"])
    (suite.path / "commerce-proxy.yaml").write_text("match:\n  ignore_json: [data.meta.request_id]\n")
    suite.runpytest_subprocess("-p", "no:cacheprovider").assert_outcomes(passed=2)


def test_max_age_is_off_unless_configured_and_then_judged_as_check_judges_it(suite: pytest.Pytester) -> None:
    text = re.sub(
        r"recorded_at: .*", "recorded_at: '2020-01-01T00:00:00.000000Z'", ENTRY_CASSETTE.read_text()
    )
    put_cassette(suite, "test_old/test_reads_entry.yaml", text=text)
    suite.makepyfile(
        test_old=f'''
from helpers import get

def test_reads_entry(commerce_replay):
    assert get(commerce_replay, "{ENTRY}")[0] == 200
'''
    )
    strict = ("-p", "no:cacheprovider", "--commerce-conformance=strict")
    suite.runpytest_subprocess(*strict).assert_outcomes(passed=1)  # an upgrade fails no suite
    (suite.path / "commerce-proxy.yaml").write_text("max_age: 90d\n")
    warned = suite.runpytest_subprocess(*strict)
    warned.assert_outcomes(passed=1)
    warned.stdout.fnmatch_lines(
        ["*warning cassette.max-age #1 GET *: recorded longer ago than the project's max_age*"]
    )
    (suite.path / "commerce-proxy.yaml").write_text("max_age: 90d\nseverity:\n  cassette.max-age: error\n")
    failed = suite.runpytest_subprocess(*strict)
    failed.assert_outcomes(failed=1)
    failed.stdout.fnmatch_lines(
        ["*: recorded_at: expected at most 90d old, found 2020-01-01T00:00:00.000000Z*"]
    )
