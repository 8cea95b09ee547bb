"""What a run used of its cassettes, judged once at its end over every test and xdist worker sharing a
cassette, and only in a run of every test; what a module's fixture tells each of its tests; and a
marker that sets options without naming a cassette."""

from __future__ import annotations

import pytest

from tests.system.plugin_suite import put_cassette


def files_cassette(count: int = 5) -> str:
    """A cassette of `count` recordings, GET /v2/files/N answering `file N`."""
    lines = ["cassette_format: 2", "upstream: http://127.0.0.1:9", "exchanges:"]
    for index in range(count):
        lines += [
            "- request:",
            "    method: GET",
            f"    path: /v2/files/{index}",
            "    headers: {}",
            "  response:",
            "    status: 200",
            "    headers:",
            "      Content-Type: text/plain",
            f"    text: file {index}",
        ]
    return "\n".join(lines) + "\n"


FETCH = """
import urllib.request

def fetch(base, *numbers, query=""):
    for number in numbers:
        with urllib.request.urlopen(f"{base}/v2/files/{number}{query}", timeout=10) as answer:
            assert answer.read() == f"file {number}".encode()
"""

SHARED = """
import pytest
from fetch import fetch

pytestmark = pytest.mark.commerce_cassette("shared/catalog.yaml")

def test_brands(commerce_replay):
    fetch(commerce_replay, 0, 1, 2, 3)

def test_wishlist(commerce_replay):
    fetch(commerce_replay, 0, 4)
"""

MODULE = """
from fetch import fetch

def test_one(commerce_record_module):
    fetch(commerce_record_module, 0, 1)

def test_two(commerce_record_module):
    fetch(commerce_record_module, 2, 3)

def test_three(commerce_record_module):
    fetch(commerce_record_module, 4)
"""

STALE = """
import os
import pytest
from fetch import fetch

pytestmark = pytest.mark.commerce_cassette("stale/catalog.yaml")

def test_a(commerce_replay):
    fetch(commerce_replay, 0, 1)

def test_b(commerce_replay):
    fetch(commerce_replay, 2)

@pytest.mark.skipif(os.environ.get("SKIP_C") == "1", reason="not on this platform")
def test_c(commerce_replay):
    fetch(commerce_replay, 0)

@pytest.mark.xfail(os.environ.get("XFAIL_D") == "1", reason="known", strict=False)
def test_d(commerce_replay):
    fetch(commerce_replay, 1)
    assert os.environ.get("XFAIL_D") != "1"
"""

STALE_LINE = (
    "cassettes/stale/catalog.yaml: 2 of 5 recordings never used by any of its 4 tests: "
    "#3 GET /v2/files/3, #4 GET /v2/files/4"
)
# (arguments, environment, whether the run is whole): a whole run lists the stale cassette once and
# nothing else; any other run lists nothing (its tests not run, or not run to a pass, may use them),
# says why, and never fails for it; None: the stale cassette alone is not judged (a test of it failed).
RUNS: dict[str, tuple[tuple[str, ...], dict[str, str], bool | None]] = {
    "whole": ((), {}, True),
    "rootdir": ((".",), {}, True),
    "xdist": (("-n", "2"), {}, True),
    "xdist-loadfile": (("-n", "2", "--dist", "loadfile"), {}, True),
    "files": (("test_shared.py", "test_module.py", "test_stale.py"), {}, False),
    "one-file": (("test_stale.py",), {}, False),
    "ignore": (("--ignore", "test_shared.py"), {}, False),
    "ignore-glob": (("--ignore-glob", "*shared*"), {}, False),
    "skipped": ((), {"SKIP_C": "1"}, False),
    "xdist-skipped": (("-n", "2"), {"SKIP_C": "1"}, False),
    "xfailed": ((), {"XFAIL_D": "1"}, None),  # its cassette is not judged: one of its tests failed
    "node-ids": (
        ("test_shared.py::test_wishlist", "test_module.py::test_two", "test_stale.py::test_a"),
        {},
        False,
    ),
    "keyword": (("-k", "not test_b and not test_brands"), {}, False),
    "marker": (("-m", "not slow"), {}, False),
    "deselect": (("--deselect", "test_module.py::test_three"), {}, False),
    "xdist-keyword": (("-n", "2", "-k", "not test_three"), {}, False),
    "last-failed": (("--lf",), {}, False),
}


@pytest.fixture
def shared_suite(suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.setenv("CI", "true")  # commerce_record_module replays
    for name in ("shared/catalog.yaml", "test_module.yaml", "stale/catalog.yaml"):
        put_cassette(suite, name, text=files_cassette())
    suite.makepyfile(fetch=FETCH, test_shared=SHARED, test_module=MODULE, test_stale=STALE)
    return suite


@pytest.mark.parametrize("run", sorted(RUNS))
def test_unused_recordings_are_judged_per_cassette_over_the_whole_run(
    shared_suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, run: str
) -> None:
    arguments, environment, whole = RUNS[run]
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    result = shared_suite.runpytest_subprocess(
        "--commerce-unused=fail", "--commerce-conformance=off", *arguments
    )
    output = result.stdout.str()
    lines = [line for line in output.splitlines() if "never used by" in line]
    if whole:
        assert lines == [STALE_LINE], output
        assert result.ret == pytest.ExitCode.TESTS_FAILED, output
        assert "(--commerce-unused=fail: the run fails)" in output
    else:
        assert lines == [], output
        assert result.ret == pytest.ExitCode.OK, output
        assert ("not listed, as this run did not run every test" in output) is (whole is False), output
    outcomes = result.parseoutcomes()
    assert outcomes.get("passed", 0) > 0 and "failed" not in outcomes and "errors" not in outcomes, output


def test_unused_recordings_are_listed_without_failing_the_run_by_default(
    shared_suite: pytest.Pytester,
) -> None:
    result = shared_suite.runpytest_subprocess("--commerce-conformance=off")
    result.assert_outcomes(passed=9)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        ["*= commerce-proxy: recordings never used =*", STALE_LINE, "delete recordings no test needs with*"]
    )
    assert result.stdout.str().count("never used by") == 1


MODULE_VIEW = """
import pytest
from fetch import fetch

@pytest.fixture(scope="module")
def signed_in(commerce_replay_module):
    fetch(commerce_replay_module, 4)  # the module's set-up: no test's
    return commerce_replay_module

def test_one(signed_in, commerce_replay_module):
    fetch(commerce_replay_module, 0, 1)
    assert [sent.path for sent in commerce_replay_module.requests] == ["/v2/files/0", "/v2/files/1"]
    assert commerce_replay_module.answered_by == [0, 1]

def test_two(signed_in, commerce_replay_module):
    fetch(commerce_replay_module, 2)
    assert commerce_replay_module.answered_by == [2] and commerce_replay_module.play_count == 1
    commerce_replay_module.assert_header_sent("User-Agent", path="/v2/files/2")
    with pytest.raises(AssertionError):
        commerce_replay_module.assert_header_sent("User-Agent", path="/v2/files/0")  # test_one's
    assert [sent.answered_by for sent in commerce_replay_module.all_requests] == [4, 0, 1, 2]
    assert [sent.test for sent in commerce_replay_module.all_requests] == [
        None, "test_view.py::test_one", "test_view.py::test_one", "test_view.py::test_two"]
"""


@pytest.mark.parametrize("arguments", [(), ("-n", "2", "--dist", "loadfile")], ids=["serial", "xdist"])
def test_a_module_fixture_tells_each_test_what_it_sent(
    suite: pytest.Pytester, arguments: tuple[str, ...]
) -> None:
    put_cassette(suite, "test_view.yaml", text=files_cassette())
    suite.makepyfile(fetch=FETCH, test_view=MODULE_VIEW)
    result = suite.runpytest_subprocess("-p", "no:cacheprovider", "--commerce-conformance=off", *arguments)
    result.assert_outcomes(passed=2)


# A marker that names no cassette: its options apply to the test's default cassette (or the module's).
MARKER_OPTIONS = {
    "match_on": ('match_on=["method", "path"]', "?page=2"),
    "match_on_text": ('match_on="method,path"', "?page=2"),
    "ignore_query": ('ignore_query="page"', "?page=2"),
    "no_options": ("", ""),
    "simulate": ("simulate=False", ""),
}


@pytest.mark.parametrize("fixture", ["commerce_replay", "commerce_record", "commerce_replay_module"])
@pytest.mark.parametrize("option", sorted(MARKER_OPTIONS))
def test_a_marker_without_a_path_sets_the_options_of_the_default_cassette(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, fixture: str, option: str
) -> None:
    monkeypatch.setenv("CI", "true")
    arguments, query = MARKER_OPTIONS[option]
    module = fixture.endswith("_module")
    put_cassette(
        suite, "test_marked.yaml" if module else "test_marked/test_reads.yaml", text=files_cassette()
    )
    marker = f"pytest.mark.commerce_cassette({arguments})"
    suite.makepyfile(
        fetch=FETCH,
        test_marked=f"""
import pytest
from fetch import fetch
{"pytestmark = " + marker if module else ""}

{"" if module else "@" + marker}
def test_reads({fixture}):
    fetch({fixture}, 1, query="{query}")
    assert {fixture}.answered_by == [1]
""",
    )
    result = suite.runpytest_subprocess("-p", "no:cacheprovider", "--commerce-conformance=off")
    result.assert_outcomes(passed=1)


def test_a_test_marker_s_options_join_the_module_marker_s_cassette(suite: pytest.Pytester) -> None:
    put_cassette(suite, "shared/catalog.yaml", text=files_cassette())
    suite.makepyfile(
        fetch=FETCH,
        test_joined="""
import pytest
from fetch import fetch

pytestmark = pytest.mark.commerce_cassette("shared/catalog.yaml")

@pytest.mark.commerce_cassette(ignore_query=["page"])
def test_reads(commerce_replay):
    fetch(commerce_replay, 3, query="?page=2")
    assert commerce_replay.requests[0].cassette.endswith("shared/catalog.yaml")
""",
    )
    result = suite.runpytest_subprocess("-p", "no:cacheprovider", "--commerce-conformance=off")
    result.assert_outcomes(passed=1)
