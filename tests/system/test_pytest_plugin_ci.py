"""The pytest plugin keeps CI honest: other hosts blocked at once, a failing test's recording not
kept, a cassette name for any test id. Real pytest sessions (pytester), as in test_pytest_plugin.py."""

from __future__ import annotations

import pytest

from tests.system.plugin_suite import ENTRY, put_cassette

NETWORK_SUITE = """
import socket, time, urllib.request
import pytest
from helpers import get

def test_other_hosts_fail_at_once(commerce_replay):
    started = time.monotonic()
    with pytest.raises(Exception) as raised:
        socket.create_connection(("203.0.113.7", 80), timeout=20)  # would hang: nothing answers there
    assert "blocked a connection to 203.0.113.7" in str(raised.value)
    assert "test_other_hosts_fail_at_once" in str(raised.value)
    with pytest.raises(Exception, match="blocked a connection to shop.example"):
        urllib.request.urlopen("http://shop.example/", timeout=20)
    assert time.monotonic() - started < 5
    assert get(commerce_replay, "/v2/extensions/wishlists/5b0f6a52-3a8e-4f65-9d4c-0e6f1a2b3c4d")[0] == 200

def test_a_test_without_the_plugin_is_left_alone():
    assert socket.getaddrinfo("203.0.113.7", 80)

@pytest.mark.commerce_cassette("test_net/test_other_hosts_fail_at_once.yaml")
def test_an_allowed_host_goes_through(commerce_replay):
    try:  # not blocked: a real attempt, whatever comes of it (the guard's error is no OSError)
        socket.create_connection(("203.0.113.7", 80), timeout=0.5).close()
    except OSError:
        pass
"""


def test_ci_blocks_other_hosts_in_plugin_tests_at_once(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    put_cassette(suite, "test_net/test_other_hosts_fail_at_once.yaml")
    put_cassette(suite, "test_net/test_an_allowed_host_goes_through.yaml")
    suite.makepyfile(test_net=NETWORK_SUITE)
    monkeypatch.setenv("CI", "true")
    blocked = suite.runpytest_subprocess("-p", "no:cacheprovider", "-k", "not allowed")
    blocked.assert_outcomes(passed=2)
    allowed = suite.runpytest_subprocess(
        "-p", "no:cacheprovider", "-k", "allowed", "--commerce-allow-host", "203.0.113.7"
    )
    allowed.assert_outcomes(passed=1)
    off = suite.runpytest_subprocess(
        "-p", "no:cacheprovider", "-k", "allowed", "--commerce-block-network=off"
    )
    off.assert_outcomes(passed=1)
    guarded = suite.runpytest_subprocess("-p", "no:cacheprovider", "-k", "allowed")
    guarded.assert_outcomes(failed=1)
    guarded.stdout.fnmatch_lines(
        ["*blocked a connection to 203.0.113.7 in test_net.py::test_an_allowed_host_goes_through*"]
    )


def test_a_long_parametrize_id_gets_a_short_stable_cassette_name(
    suite: pytest.Pytester, sandbox: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite.makepyfile(
        test_long="""
import pytest
from helpers import get

@pytest.mark.parametrize("name", ["x", "y"], ids=["x" * 300, "y" * 300])
def test_reads(commerce_record, name):
    assert get(commerce_record, "/v2/brands?page[limit]=1", "t")[0] in (200, 401)
"""
    )
    recorded = suite.runpytest_subprocess(
        "-p", "no:cacheprovider", "--commerce-record-mode=once", f"--commerce-upstream={sandbox}"
    )
    recorded.assert_outcomes(passed=2)
    names = sorted(path.name for path in (suite.path / "cassettes" / "test_long").glob("*.yaml"))
    assert len(names) == 2 and all(len(name.encode()) <= 160 for name in names)
    assert names[0].startswith("test_reads[xxx") and names[1].startswith("test_reads[yyy")
    monkeypatch.setenv("CI", "true")
    replayed = suite.runpytest_subprocess("-p", "no:cacheprovider")
    replayed.assert_outcomes(passed=2)


def test_a_test_that_fails_while_recording_leaves_no_recording_behind(
    suite: pytest.Pytester, sandbox: str
) -> None:
    suite.makepyfile(
        test_fails="""
from helpers import get

def test_reads_then_fails(commerce_record):
    assert get(commerce_record, "/v2/brands?page[limit]=1", "t")[0] in (200, 401)
    assert False, "the client is broken"
"""
    )
    cassette = suite.path / "cassettes" / "test_fails" / "test_reads_then_fails.yaml"
    arguments = ("-p", "no:cacheprovider", f"--commerce-upstream={sandbox}")
    suite.runpytest_subprocess(*arguments, "--commerce-record-mode=once").assert_outcomes(failed=1)
    assert not cassette.exists() and not list(cassette.parent.glob("*.journal"))
    kept = suite.runpytest_subprocess(
        *arguments, "--commerce-record-mode=once", "--commerce-failed-recordings=keep"
    )
    kept.assert_outcomes(failed=1)
    # An answer the live service no longer gives: re-recorded, the cassette would change there.
    from proxy.cli.main import main

    assert main(["cassette", "set", str(cassette), "0", "resp.json.edited", '"yes"', "--no-check"]) == 0
    text = cassette.read_text()
    again = suite.runpytest_subprocess(*arguments, "--commerce-record-mode=all")
    again.assert_outcomes(failed=1)
    assert cassette.read_text() == text  # an existing cassette is left as it was
    passing = suite.runpytest_subprocess(
        *arguments, "--commerce-record-mode=all", "--commerce-failed-recordings=keep"
    )
    passing.assert_outcomes(failed=1)
    assert cassette.read_text() != text  # kept: the re-recording replaced the edited answer


CI_VALUES = ("true", "1", "yes", "TRUE", "on", "github")


def test_ci_replays_whatever_asks_for_a_record_mode(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every source of a record mode (command line, ini addopts, PYTEST_ADDOPTS, the ini's own key)
    with every mode that records: under CI=true the test replays and the cassette is left as it was."""
    cassette = put_cassette(suite, "test_ci/test_reads.yaml")
    committed = cassette.read_bytes()
    suite.makepyfile(
        test_ci=f"""
from helpers import get

def test_reads(commerce_record):
    assert get(commerce_record, "{ENTRY}")[0] == 200
"""
    )
    dead = "--commerce-upstream=http://127.0.0.1:9"  # recording from here would fail the test
    runs = 0
    for mode in ("once", "new_episodes", "all"):
        asked = f"--commerce-record-mode={mode}"
        sources: dict[str, tuple[str, dict[str, str], tuple[str, ...]]] = {
            "command line": ("", {}, (asked,)),
            "ini addopts": (f"addopts = {asked}\n", {}, ()),
            "PYTEST_ADDOPTS": ("", {"PYTEST_ADDOPTS": asked}, ()),
            "ini key": (f"commerce_record_mode = {mode}\n", {}, ()),
        }
        for source, (ini, environment, arguments) in sources.items():
            ci = CI_VALUES[runs % len(CI_VALUES)]
            monkeypatch.setenv("CI", ci)
            monkeypatch.delenv("PYTEST_ADDOPTS", raising=False)
            for name, value in environment.items():
                monkeypatch.setenv(name, value)
            suite.makeini(
                f"[pytest]\nasyncio_mode = auto\nasyncio_default_fixture_loop_scope = function\n{ini}"
            )
            result = suite.runpytest_inprocess("-p", "no:cacheprovider", "--commerce-fresh", dead, *arguments)
            result.assert_outcomes(passed=1)
            result.stdout.fnmatch_lines([f"commerce-proxy: record mode none (CI={ci}: record mode {mode}*"])
            assert cassette.read_bytes() == committed, (mode, source)
            runs += 1
    assert runs == 12
