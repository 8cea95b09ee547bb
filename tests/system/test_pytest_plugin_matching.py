"""Matching on headers in the pytest plugin: `--commerce-match-on` (ini `commerce_match_on`) and the
marker's `match_on` take `header:NAME`, so a test's plain read and conditional read of one entry get
their own recordings whatever their order. Real pytest sessions (pytester)."""

from __future__ import annotations

import pytest

from tests.integration.cli.test_match_on_headers import ENTRY, ETAG, conditional_and_plain

SUITE = f"""
import urllib.request, urllib.error
import pytest

def status(base, headers=()):
    request = urllib.request.Request(base + "{ENTRY}", headers=dict(headers))
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status
    except urllib.error.HTTPError as error:
        return error.code

MARKED = pytest.mark.commerce_cassette("entry.yaml", match_on=MATCH_ON)

@MARKED
def test_plain_then_conditional(commerce_replay):
    assert status(commerce_replay) == 200
    assert status(commerce_replay, [("If-None-Match", {ETAG!r})]) == 304
"""


@pytest.mark.parametrize(
    ("match_on", "options", "passes"),
    [
        ("None", (), False),  # order decides: the plain read gets the recorded 304
        ('"method,path,query,body,header:If-None-Match"', (), True),
        ('["method", "path", "query", "body", "HEADER:if-none-match"]', (), True),
        ("None", ("--commerce-match-on", "method,path,query,body,header:If-None-Match"), True),
        ('"method,path,query,body"', ("--commerce-match-on", "method,path,header:If-None-Match"), False),
    ],
)
def test_a_named_header_tells_a_conditional_read_from_a_plain_one(
    suite: pytest.Pytester, match_on: str, options: tuple[str, ...], passes: bool
) -> None:
    (suite.path / "cassettes").mkdir()
    conditional_and_plain(suite.path / "cassettes")
    suite.makepyfile(test_entry=SUITE.replace("MATCH_ON", match_on, 1))
    result = suite.runpytest_subprocess("-p", "no:cacheprovider", *options)
    result.assert_outcomes(**({"passed": 1} if passes else {"failed": 1}))


def test_a_nameless_header_is_one_line_on_the_command_line_and_in_the_marker(suite: pytest.Pytester) -> None:
    (suite.path / "cassettes").mkdir()
    conditional_and_plain(suite.path / "cassettes")
    suite.makepyfile(test_entry=SUITE.replace("MATCH_ON", '"method,header:"', 1))
    flagged = suite.runpytest_subprocess("-p", "no:cacheprovider", "--commerce-match-on", "path,header:")
    assert flagged.ret == pytest.ExitCode.USAGE_ERROR
    assert [line for line in flagged.stderr.lines if line.strip()] == [
        "ERROR: --commerce-match-on: 'header:' names no header; write header:NAME, e.g. header:If-None-Match"
    ]
    marked = suite.runpytest_subprocess("-p", "no:cacheprovider")
    marked.assert_outcomes(errors=1)
    marked.stdout.fnmatch_lines(["*match_on: 'header:' names no header; write header:NAME*"])


ANOTHER_PATH = (
    SUITE
    + """
@MARKED
def test_another_path(commerce_replay):
    try:  # the client swallows the 404: the miss fails the test all the same
        urllib.request.urlopen(commerce_replay + "/v2/brands", timeout=10)
    except urllib.error.HTTPError:
        pass
"""
)
HEADER_ONLY = "header:If-None-Match"


@pytest.mark.parametrize(
    ("match_on", "options", "ini"),
    [
        (repr(HEADER_ONLY), (), ""),
        (repr([HEADER_ONLY]), (), ""),
        (repr(f"{HEADER_ONLY},header:If-Match"), (), ""),
        ("None", ("--commerce-match-on", HEADER_ONLY), ""),
        ("None", (), f"commerce_match_on = {HEADER_ONLY}\n"),
    ],
    ids=["marker", "marker-list", "marker-two-headers", "option", "ini"],
)
def test_header_entries_alone_add_to_the_default_fields(
    suite: pytest.Pytester, match_on: str, options: tuple[str, ...], ini: str
) -> None:
    """`header:NAME` alone, from the marker, the option or the ini file: the plain and conditional reads
    get their own recordings, and another path is a miss naming the path, never the entry's answer."""
    (suite.path / "cassettes").mkdir()
    conditional_and_plain(suite.path / "cassettes")
    if ini:
        suite.makeini(f"[pytest]\nasyncio_mode = auto\nasyncio_default_fixture_loop_scope = function\n{ini}")
    suite.makepyfile(test_entry=ANOTHER_PATH.replace("MATCH_ON", match_on, 1))
    result = suite.runpytest_subprocess("-p", "no:cacheprovider", *options)
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*test_another_path*",
            "E   GET /v2/brands matched no recording",
            f"E     closest: #* GET {ENTRY}, *",
        ]
    )
    result.stdout.fnmatch_lines([f"E       path: recorded {ENTRY}; sent /v2/brands"])
