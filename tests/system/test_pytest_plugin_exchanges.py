"""What a test can ask its fixture about the exchanges it caused, and the summary's quiet notes."""

from __future__ import annotations

import re

import pytest

from proxy.store.cassette_reader.loading import load_cassette
from tests.conftest import ENTRY_CASSETTE
from tests.paths import ROOT
from tests.system.plugin_suite import ENTRY, put_cassette

SECRET = "client-secret-never-on-disk-7f3a"


def test_the_fixture_is_a_url_that_lists_what_the_client_sent(suite: pytest.Pytester) -> None:
    put_cassette(suite, "test_sent/test_reads.yaml")
    suite.makepyfile(
        test_sent=f'''
import urllib.request
import pytest
from helpers import get

def test_reads(commerce_replay):
    assert isinstance(commerce_replay, str) and commerce_replay.startswith("http://127.0.0.1:")
    request = urllib.request.Request(commerce_replay + "{ENTRY}?include=items&x=1&x=2",
                                     headers={{"Authorization": "Bearer {SECRET}", "If-None-Match": 'W/"a"'}})
    try:
        urllib.request.urlopen(request, timeout=10)
    except Exception:
        pass
    assert get(commerce_replay, "{ENTRY}", "{SECRET}")[0] == 200
    sent = commerce_replay.requests
    assert [(one.method, one.path) for one in sent] == [("GET", "{ENTRY}")] * 2
    assert sent[0].query == (("include", "items"), ("x", "1"), ("x", "2"))
    assert sent[0].header("authorization") == "Bearer {SECRET}" and sent[0].body == b""
    assert commerce_replay.answered_by == ["missed", 1] and commerce_replay.play_count == 1
    assert commerce_replay.assert_header_sent("If-None-Match", 'W/"a"').query[0] == ("include", "items")
    with pytest.raises(AssertionError) as refused:
        commerce_replay.assert_header_sent("Authorization", "Bearer {SECRET}-not", path="/v2/other")
    assert "no request (/v2/other) sent header Authorization" in str(refused.value)
    with pytest.raises(AssertionError) as missing:
        commerce_replay.assert_header_sent("X-Request-Id")
    assert "{SECRET}" not in str(missing.value) + repr(sent), str(missing.value)
    assert "Authorization: Bearer <redacted>" in str(missing.value)
'''
    )
    result = suite.runpytest_subprocess("-p", "no:cacheprovider", "--junitxml=report.xml", "-rA")
    result.assert_outcomes(failed=1)  # the miss fails it, after every assertion above held
    output = result.stdout.str()
    assert re.search(
        r"^E   commerce-proxy: \S+ \S+ matched no recording in \S+ \(answered 404\):$", output, re.M
    )
    assert not re.search(r"^E\s+assert", output, re.MULTILINE), output
    assert SECRET not in output
    written = [  # but for the test's own source, which writes it, and its bytecode where pytest caches it
        path
        for path in suite.path.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and SECRET.encode() in path.read_bytes()
    ]
    assert written == [suite.path / "test_sent.py"]


def test_a_recording_fixture_lists_the_new_recordings_and_then_the_replayed_ones(
    suite: pytest.Pytester, sandbox: str
) -> None:
    suite.makepyfile(
        test_live="""
import json, urllib.parse, urllib.request
from helpers import get

def test_signs_in(commerce_record):
    form = urllib.parse.urlencode({"grant_type": "client_credentials", "client_id": "sandbox-client",
                                   "client_secret": "sandbox-secret"}).encode()
    with urllib.request.urlopen(commerce_record + "/oauth/access_token", data=form, timeout=10) as answer:
        token = json.loads(answer.read())["access_token"]
    assert get(commerce_record, "/v2/brands?page[limit]=2", token)[0] == 200
    assert commerce_record.answered_by == [0, 1], commerce_record.answered_by
    assert commerce_record.requests[0].body.startswith(b"grant_type=client_credentials")
    commerce_record.assert_header_sent("Authorization", method="GET", path="/v2/brands")
"""
    )
    options = ("-p", "no:cacheprovider", f"--commerce-upstream={sandbox}")
    suite.runpytest_subprocess(*options, "--commerce-record-mode=once").assert_outcomes(passed=1)
    cassette = suite.path / "cassettes" / "test_live" / "test_signs_in.yaml"
    assert len(load_cassette(cassette).cassette.exchanges) == 2
    suite.runpytest_subprocess(*options, "--commerce-record-mode=none").assert_outcomes(passed=1)


def test_the_docs_example_of_asking_what_was_sent_runs(suite: pytest.Pytester) -> None:
    page = (ROOT / "docs" / "pytest-plugin.md").read_text()
    example = re.search(
        r"<!-- not run: .*?test_pytest_plugin_exchanges.*? -->\n```python\n(.*?)```", page, re.DOTALL
    )
    assert example is not None
    put_cassette(suite, "test_example/test_reads_an_entry.yaml", ENTRY_CASSETTE)
    suite.makepyfile(test_example=example[1])
    suite.runpytest_subprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)


def test_tests_with_only_info_findings_share_one_count_line_unless_v(suite: pytest.Pytester) -> None:
    """entry.etag-id.absent is an info finding: an entry read without data.meta.etag_id gives only it."""
    text = ENTRY_CASSETTE.read_text()
    without = re.sub(r',\n\s*"etag_id": "[0-9a-f]+"', "", text)
    assert without != text
    for name in ("test_a", "test_b"):
        put_cassette(suite, f"test_notes/{name}.yaml", text=without)
    suite.makepyfile(
        test_notes=f"""
from helpers import get

def test_a(commerce_replay):
    assert get(commerce_replay, "{ENTRY}")[0] == 200

def test_b(commerce_replay):
    assert get(commerce_replay, "{ENTRY}")[0] == 200
"""
    )
    quiet = suite.runpytest_subprocess("-p", "no:cacheprovider")
    quiet.assert_outcomes(passed=2)
    section = quiet.stdout.str().split("commerce-proxy conformance =", 1)[1]
    assert "test_notes.py::" not in section, section
    quiet.stdout.fnmatch_lines(["2 test(s) with only 2 info (-v lists them)"])
    loud = suite.runpytest_subprocess("-p", "no:cacheprovider", "-v")
    loud.stdout.fnmatch_lines(["test_notes.py::test_a: 1 info", "  info entry.etag-id.absent #1 GET *"])
