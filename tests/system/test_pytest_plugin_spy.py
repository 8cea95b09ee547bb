"""Record mode spy and the commerce_sandbox fixture, as a user's suite meets them (pytester): the suite
talks to the live service through a spying proxy, every exchange is checked, nothing is written; strict
fails a test on an error finding and the summary lists the findings; CI runs spy only when its own
COMMERCE_PROXY_CI_MODE says so."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.system.plugin_suite import ENTRY

SUITE = f"""
from helpers import get, token

def test_reads_an_entry(commerce_record, commerce_sandbox, request):
    assert commerce_record != commerce_sandbox  # through the proxy, not straight to the sandbox
    assert "{ENTRY.rsplit("/", 1)[-1]}" in commerce_sandbox.entry_ids
    status, document = get(commerce_record, "{ENTRY}", token(commerce_record, commerce_sandbox))
    assert status == 200, document
    assert [sent.path for sent in commerce_record.requests] == ["/oauth/access_token", "{ENTRY}"]
    spying = request.config.getoption("--commerce-record-mode") == "spy"
    assert commerce_record.answered_by == (["forwarded"] * 2 if spying else [0, 1])
    commerce_record.assert_header_sent("Authorization", path="{ENTRY}")

def test_sends_nothing(commerce_record):
    pass
"""

BROKEN = """
import pytest
from proxy.sandbox.app import SandboxSettings

@pytest.fixture(scope="session")
def commerce_sandbox_settings():
    return SandboxSettings(broken="entry.etag.matches-etag-id")
"""


def tree(root: Path) -> dict[str, bytes]:
    """The user's project: every file and folder, less Python's caches and pytester's own output (the
    inner run's captured stdout and stderr, its basetemp)."""
    return {
        str(path.relative_to(root)): path.read_bytes() if path.is_file() else b"(folder)"
        for path in sorted(root.rglob("*"))
        if "__pycache__" not in path.parts
        and not path.relative_to(root).parts[0].startswith("runpytest-")
        and str(path.relative_to(root)) not in ("stdout", "stderr")
    }


def test_spy_checks_every_exchange_writes_nothing_and_strict_fails_on_an_error(
    suite: pytest.Pytester,
) -> None:
    suite.makepyfile(test_spied=SUITE)
    suite.makeconftest(BROKEN)
    before = tree(suite.path)
    warned = suite.runpytest_subprocess(
        "-p", "no:cacheprovider", "--commerce-record-mode=spy", "--commerce-sandbox"
    )
    warned.assert_outcomes(passed=2)
    warned.stdout.fnmatch_lines(
        [
            "commerce-proxy: record mode spy (checking live traffic, writing nothing)*the sandbox*",
            "*commerce-proxy conformance*",
            "test_spied.py::test_reads_an_entry: 1 error*",
            "  error entry.etag.matches-etag-id * GET /v2/extensions/wishlists/*",
        ]
    )
    strict = suite.runpytest_subprocess(
        "-p",
        "no:cacheprovider",
        "--commerce-record-mode=spy",
        "--commerce-sandbox",
        "--commerce-conformance=strict",
    )
    strict.assert_outcomes(passed=1, failed=1)
    strict.stdout.fnmatch_lines(["*commerce-proxy conformance (strict)*", "*entry.etag.matches-etag-id*"])
    assert tree(suite.path) == before  # no cassette, no journal, no folder


def test_under_ci_spy_runs_only_with_its_own_opt_in(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite.makepyfile(test_spied=SUITE)
    suite.makeconftest(BROKEN)
    before = tree(suite.path)
    monkeypatch.setenv("CI", "true")
    monkeypatch.setenv("PYTEST_ADDOPTS", "--commerce-record-mode=spy")
    replaying = suite.runpytest_subprocess("-p", "no:cacheprovider", "--commerce-sandbox", "-k", "reads")
    assert replaying.parseoutcomes().get("passed", 0) == 0  # replay: no cassette to answer from
    replaying.stdout.fnmatch_lines(["*record mode none (CI=true: record mode spy not used)*"])
    monkeypatch.setenv("COMMERCE_PROXY_CI_MODE", "spy")
    spying = suite.runpytest_subprocess("-p", "no:cacheprovider", "--commerce-sandbox", "-k", "reads")
    spying.assert_outcomes(passed=1, deselected=1)
    spying.stdout.fnmatch_lines(["test_spied.py::test_reads_an_entry: 1 error*"])
    assert tree(suite.path) == before


def test_the_sandbox_fixture_records_then_ci_replays(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--commerce-sandbox records a suite with no real service; the cassette then replays under CI."""
    suite.makepyfile(test_spied=SUITE)
    recorded = suite.runpytest_subprocess("-p", "no:cacheprovider", "--commerce-sandbox")
    recorded.assert_outcomes(passed=2)
    cassette = suite.path / "cassettes" / "test_spied" / "test_reads_an_entry.yaml"
    written = cassette.read_bytes()
    assert b"sandbox-secret" not in written
    monkeypatch.setenv("CI", "true")
    replayed = suite.runpytest_subprocess("-p", "no:cacheprovider", "-k", "test_reads_an_entry")
    replayed.assert_outcomes(passed=1, deselected=1)
    assert cassette.read_bytes() == written


def test_the_sandbox_and_an_upstream_together_are_one_usage_error(suite: pytest.Pytester) -> None:
    suite.makepyfile(test_nothing="def test_nothing():\n    pass\n")
    result = suite.runpytest_subprocess(
        "-p", "no:cacheprovider", "--commerce-sandbox", "--commerce-upstream", "http://127.0.0.1:9"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert [line for line in result.stderr.lines if line.strip()] == [
        "ERROR: --commerce-sandbox and --commerce-upstream both name the upstream: give one of them"
    ]
