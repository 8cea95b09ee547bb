"""The pytest plugin reads the project's config as `check` does: severities, the baseline of accepted
findings, freshness, match options; and it reports recordings a test never used."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.system.plugin_suite import broken_etag_cassette


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
