"""Adding to a cassette from the plugin as a pytest-recording user does, with the remedy every miss
prints (`--commerce-record-mode=new_episodes`): from the sandbox, which listens on a new port each
session, the cassette keeps its origin and grows; with no upstream at all, what is recorded replays
and only a new request fails, saying how to give an upstream. Real pytest sessions (pytester)."""

from __future__ import annotations

import re

import pytest

from tests.system.plugin_suite import ENTRY, put_cassette

SUITE = f"""
import os
from helpers import get, token

def test_reads(commerce_record, commerce_sandbox):
    bearer = token(commerce_record, commerce_sandbox)
    for target in ["{ENTRY}", *os.environ.get("ALSO_READ", "").split()]:
        status, document = get(commerce_record, target, bearer)
        assert status == 200, document
"""
CASSETTE = "cassettes/test_grows/test_reads.yaml"


def _upstream(text: str) -> str:
    found = re.search(r"^upstream: (\S+)$", text, re.MULTILINE)
    assert found is not None, text[:200]
    return found.group(1)


def test_new_episodes_from_a_new_sandbox_port_adds_to_the_cassette_at_its_origin(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite.makepyfile(test_grows=SUITE)
    suite.runpytest_subprocess("-p", "no:cacheprovider", "--commerce-sandbox").assert_outcomes(passed=1)
    first = (suite.path / CASSETTE).read_text()
    monkeypatch.setenv("ALSO_READ", "/v2/brands")
    grown = suite.runpytest_subprocess(
        "-p", "no:cacheprovider", "--commerce-sandbox", "--commerce-record-mode=new_episodes"
    )
    grown.assert_outcomes(passed=1)
    second = (suite.path / CASSETTE).read_text()
    origin = _upstream(first)
    assert _upstream(second) == origin  # the cassette keeps where it was recorded from
    assert second.count("path: /v2/brands") == 1 and second.count("path: /oauth/access_token") == 1
    links = re.findall(r"https?://[^\s\"/]+", second)  # the brands page's links, moved to the origin
    assert len(links) >= 3 and set(links) == {origin}, links
    monkeypatch.setenv("CI", "true")  # replayed offline, the added episode answers too
    suite.runpytest_subprocess("-p", "no:cacheprovider", "--commerce-sandbox").assert_outcomes(passed=1)


NO_UPSTREAM = f"""
import urllib.parse, urllib.request
from helpers import get

def test_recorded(commerce_record):
    form = b"grant_type=client_credentials&client_id=sandbox-client&client_secret=s"
    request = urllib.request.Request(commerce_record + "/oauth/access_token", data=form, method="POST")
    request.add_header("Content-Type", "application/x-www-form-urlencoded")
    with urllib.request.urlopen(request, timeout=10) as answer:
        assert answer.status == 200
    assert get(commerce_record, "{ENTRY}")[0] == 200

def test_new(commerce_record):
    get(commerce_record, "/v2/brands")
"""


@pytest.mark.parametrize("mode", ["new_episodes", "all"])
def test_without_an_upstream_what_is_recorded_replays_and_a_new_request_says_how_to_record_it(
    suite: pytest.Pytester, mode: str
) -> None:
    for test in ("test_recorded", "test_new"):
        put_cassette(suite, f"test_nowhere/{test}.yaml")
    before = {path: path.read_bytes() for path in (suite.path / "cassettes").rglob("*.yaml")}
    suite.makepyfile(test_nowhere=NO_UPSTREAM)
    result = suite.runpytest_subprocess("-p", "no:cacheprovider", f"--commerce-record-mode={mode}")
    result.assert_outcomes(passed=1, failed=1)
    output = result.stdout.str()
    assert output.count("(answered 404)") == 1
    result.stdout.fnmatch_lines(
        [
            "E   GET /v2/brands matched no recording",
            "E     cassette: cassettes/test_nowhere/test_new.yaml",
            f"E     record mode {mode} needs an upstream to record cassettes/test_nowhere/test_new.yaml "
            "from: --commerce-upstream URL, commerce_upstream in the ini file, --commerce-sandbox, or a "
            "commerce_upstream fixture (or --commerce-record-mode=none to replay only)",
        ]
    )
    assert {path: path.read_bytes() for path in (suite.path / "cassettes").rglob("*.yaml")} == before


def test_a_refusal_while_setting_up_a_recording_is_printed_once(suite: pytest.Pytester) -> None:
    """A cassette new_episodes cannot read: one error, its text once (not again as the context of the
    failure, "During handling of the above exception")."""
    put_cassette(suite, "test_grows/test_reads.yaml", text="exchanges: [unclosed\n")
    suite.makepyfile(test_grows=SUITE)
    result = suite.runpytest_subprocess(
        "-p", "no:cacheprovider", "--commerce-sandbox", "--commerce-record-mode=new_episodes"
    )
    result.assert_outcomes(errors=1)
    output = result.stdout.str()
    assert "During handling" not in output and "Traceback" not in output
    assert output.count("test_reads.yaml:") == 1, output
