"""The pytest plugin, run the way users run it: real pytest sessions (pytester, in a subprocess each)
with the plugin loaded from its pytest11 entry point, against real servers on 127.0.0.1."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from proxy.sandbox.app import SandboxSettings, create_sandbox_app
from proxy.server.background import BackgroundServer
from proxy.store.cassette_reader.loading import load_cassette
from tests.system.plugin_suite import ENTRY, broken_etag_cassette, put_cassette, refuses_connections, served


def test_replay_serves_sync_and_async_tests_each_its_own_server(suite: pytest.Pytester) -> None:
    put_cassette(suite, "test_client/test_sync_read.yaml")
    put_cassette(suite, "shared/entry.yaml")
    suite.makepyfile(
        test_client=f'''
import aiohttp, pytest
from helpers import get, note

def test_sync_read(commerce_replay):
    note("sync", commerce_replay)
    status, document = get(commerce_replay, "{ENTRY}")
    assert status == 200 and document["data"]["name"] == "My Wishlist"

@pytest.mark.commerce_cassette("shared/entry.yaml")
async def test_async_read(commerce_replay):
    note("async", commerce_replay)
    async with aiohttp.ClientSession() as session:
        async with session.get(commerce_replay + "{ENTRY}") as answer:
            assert answer.status == 200
            assert answer.headers["ETag"].startswith('W/"')

def test_servers_are_gone_after_their_test():
    import socket, json
    from pathlib import Path
    from urllib.parse import urlsplit
    for line in (Path(__file__).parent / "served.jsonl").read_text().splitlines():
        parts = urlsplit(json.loads(line)["url"])
        with socket.socket() as probe:
            assert probe.connect_ex((parts.hostname, parts.port)) != 0
'''
    )
    result = suite.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=3)
    urls = [row["url"] for row in served(suite)]
    assert len(urls) == 2 and urls[0] != urls[1]
    assert all(re.fullmatch(r"http://127\.0\.0\.1:\d+", url) for url in urls)


def test_a_module_server_is_shared_and_a_test_server_is_not(suite: pytest.Pytester) -> None:
    put_cassette(suite, "test_module_scope.yaml")
    put_cassette(suite, "test_module_scope/test_one.yaml")
    put_cassette(suite, "test_module_scope/test_two.yaml")
    suite.makepyfile(
        test_module_scope=f'''
from helpers import get, note

def test_one(commerce_replay_module, commerce_replay):
    note("module", commerce_replay_module); note("function", commerce_replay)
    assert get(commerce_replay_module, "{ENTRY}")[0] == 200

def test_two(commerce_replay_module, commerce_replay):
    note("module", commerce_replay_module); note("function", commerce_replay)
    assert get(commerce_replay, "{ENTRY}")[0] == 200
'''
    )
    suite.runpytest_subprocess("-p", "no:cacheprovider").assert_outcomes(passed=2)
    rows = served(suite)
    module_urls = {row["url"] for row in rows if row["test"] == "module"}
    function_urls = [row["url"] for row in rows if row["test"] == "function"]
    assert len(module_urls) == 1
    assert len(set(function_urls)) == 2 and not module_urls & set(function_urls)
    assert refuses_connections(module_urls.pop())


def test_record_once_writes_a_redacted_cassette_that_then_replays_offline(
    suite: pytest.Pytester, sandbox: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite.makepyfile(
        test_live="""
import urllib.parse, urllib.request, json
from helpers import get

def test_signs_in_and_reads(commerce_record):
    form = urllib.parse.urlencode({"grant_type": "client_credentials", "client_id": "sandbox-client",
                                   "client_secret": "sandbox-secret"}).encode()
    with urllib.request.urlopen(commerce_record + "/oauth/access_token", data=form, timeout=10) as answer:
        token = json.loads(answer.read())["access_token"]
    status, document = get(commerce_record, "/v2/brands?page[limit]=5", token)
    assert status == 200 and len(document["data"]) == 5
"""
    )
    recorded = suite.runpytest_subprocess(
        "-p", "no:cacheprovider", "--commerce-record-mode=once", f"--commerce-upstream={sandbox}"
    )
    recorded.assert_outcomes(passed=1)
    cassette = suite.path / "cassettes" / "test_live" / "test_signs_in_and_reads.yaml"
    text = cassette.read_text()
    assert "sandbox-secret" not in text and "<redacted>" in text
    assert [exchange.request.path for exchange in load_cassette(cassette).cassette.exchanges] == [
        "/oauth/access_token",
        "/v2/brands",
    ]
    # Offline, as CI: no upstream given at all, and the cassette answers.
    monkeypatch.setenv("CI", "true")
    replayed = suite.runpytest_subprocess("-p", "no:cacheprovider")
    replayed.assert_outcomes(passed=1)
    replayed.stdout.fnmatch_lines(["commerce-proxy: record mode none (CI=true), conformance warn"])
    assert cassette.read_text() == text
    # --commerce-record-mode=all records anew: the same service answers the same, so no byte changes;
    # with --commerce-fresh every exchange is written anew.
    monkeypatch.delenv("CI")
    again = suite.runpytest_subprocess(
        "-p", "no:cacheprovider", "--commerce-record-mode=all", f"--commerce-upstream={sandbox}"
    )
    again.assert_outcomes(passed=1)
    assert cassette.read_text() == text
    fresh = suite.runpytest_subprocess(
        "-p",
        "no:cacheprovider",
        "--commerce-record-mode=all",
        "--commerce-fresh",
        f"--commerce-upstream={sandbox}",
    )
    fresh.assert_outcomes(passed=1)
    rerecorded = load_cassette(cassette).cassette.exchanges
    assert [exchange.request.path for exchange in rerecorded] == ["/oauth/access_token", "/v2/brands"]
    assert cassette.read_text() != text  # new recorded_at times


def test_an_exchange_has_one_number_recording_and_replaying(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The summary names an exchange by its index in the cassette, recorded or replayed alike."""
    server = BackgroundServer(lambda: create_sandbox_app(SandboxSettings(broken="pagination.page.current")))
    broken = server.start()
    try:
        suite.makepyfile(
            test_walk="""
import urllib.parse, urllib.request, json
from helpers import get

def test_walks(commerce_record):
    form = urllib.parse.urlencode({"grant_type": "client_credentials", "client_id": "sandbox-client",
                                   "client_secret": "sandbox-secret"}).encode()
    with urllib.request.urlopen(commerce_record + "/oauth/access_token", data=form, timeout=10) as answer:
        token = json.loads(answer.read())["access_token"]
    assert get(commerce_record, "/v2/brands?page[limit]=5&page[offset]=5", token)[0] == 200
"""
        )
        recorded = suite.runpytest_subprocess(
            "-p", "no:cacheprovider", "--commerce-record-mode=once", f"--commerce-upstream={broken}"
        )
    finally:
        server.stop()
    recorded.assert_outcomes(passed=1)
    monkeypatch.setenv("CI", "true")
    replayed = suite.runpytest_subprocess("-p", "no:cacheprovider")
    replayed.assert_outcomes(passed=1)
    cassette = suite.path / "cassettes" / "test_walk" / "test_walks.yaml"
    index = [exchange.request.path for exchange in load_cassette(cassette).cassette.exchanges].index(
        "/v2/brands"
    )
    for run in (recorded, replayed):
        run.stdout.fnmatch_lines([f"  error pagination.page.current #{index} GET /v2/brands?*"])


def test_an_https_upstream_of_a_private_ca_records_with_commerce_ca_bundle(
    suite: pytest.Pytester, tls_sandbox_in_a_thread: tuple[str, Path]
) -> None:
    """Without the CA the recording proxy refuses the upstream's certificate (502); with
    --commerce-ca-bundle (or the ini setting) it records."""
    url, cert = tls_sandbox_in_a_thread
    suite.makepyfile(
        test_tls="""
import urllib.error, urllib.parse, urllib.request

def test_signs_in(commerce_record):
    form = urllib.parse.urlencode({"grant_type": "client_credentials", "client_id": "sandbox-client",
                                   "client_secret": "sandbox-secret"}).encode()
    try:
        with urllib.request.urlopen(commerce_record + "/oauth/access_token", data=form, timeout=10) as answer:
            assert answer.status == 200
    except urllib.error.HTTPError as error:
        raise AssertionError(f"{error.code} {error.read().decode()}") from None
"""
    )
    options = ["-p", "no:cacheprovider", "--commerce-record-mode=all", f"--commerce-upstream={url}"]
    refused = suite.runpytest_subprocess(*options)
    refused.assert_outcomes(failed=1)
    refused.stdout.fnmatch_lines(["*502*CERTIFICATE_VERIFY_FAILED*"])
    suite.runpytest_subprocess(*options, f"--commerce-ca-bundle={cert}").assert_outcomes(passed=1)
    cassette = suite.path / "cassettes" / "test_tls" / "test_signs_in.yaml"
    assert [exchange.request.path for exchange in load_cassette(cassette).cassette.exchanges] == [
        "/oauth/access_token"
    ]
    suite.makeini(f"[pytest]\ncommerce_ca_bundle = {cert}\n")
    suite.runpytest_subprocess(*options).assert_outcomes(passed=1)


def test_under_ci_a_missing_cassette_is_one_clear_error_and_no_network(
    suite: pytest.Pytester, sandbox: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CI", "true")
    suite.makepyfile(
        test_missing=f"from helpers import get\n\ndef test_needs_a_cassette(commerce_record):\n"
        f"    get(commerce_record, '{ENTRY}')\n"
    )
    result = suite.runpytest_subprocess("-p", "no:cacheprovider", f"--commerce-upstream={sandbox}")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*no cassette *cassettes/test_missing/test_needs_a_cassette.yaml: record it with "
            "`pytest --commerce-record-mode=once --commerce-upstream URL`*"
        ]
    )
    assert "Traceback" not in result.stdout.str()
    assert not (suite.path / "cassettes").exists()


def test_recording_without_an_upstream_says_how_to_give_one(suite: pytest.Pytester) -> None:
    suite.makepyfile(
        test_nowhere=f"from helpers import get\n\ndef test_records(commerce_record):\n    get(commerce_record, '{ENTRY}')\n"
    )
    result = suite.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*record mode once needs an upstream to record*--commerce-upstream URL*"])


def test_bad_markers_and_options_are_one_line_errors(suite: pytest.Pytester) -> None:
    suite.makepyfile(
        test_marked="""
import pytest

@pytest.mark.commerce_cassette("a.yaml", simulte=True)
def test_typo(commerce_replay):
    pass
"""
    )
    result = suite.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        ["*commerce_cassette on test_marked.py::test_typo: unknown option 'simulte'*"]
    )
    wrong = suite.runpytest_subprocess("-p", "no:cacheprovider", "--commerce-record-mode=sometimes")
    assert wrong.ret == pytest.ExitCode.USAGE_ERROR
    wrong.stderr.fnmatch_lines(["*--commerce-record-mode: invalid choice: 'sometimes'*"])


def test_strict_fails_a_test_whose_traffic_breaks_a_rule_and_shows_the_finding(
    suite: pytest.Pytester,
) -> None:
    broken_etag_cassette(suite)
    result = suite.runpytest_subprocess("-p", "no:cacheprovider", "--commerce-conformance=strict")
    result.assert_outcomes(failed=1, passed=1)
    result.stdout.fnmatch_lines(
        [
            "*commerce-proxy conformance (strict): the traffic of this test broke 1 documented rule(s):",
            f"*error entry.etag.matches-etag-id #1 GET {ENTRY}: * (see *)",
            "*replaying *test_reads_entry.yaml at http://127.0.0.1:*",
            "FAILED test_etag.py::test_reads_entry*",
        ]
    )
    # Shown once: not again as captured log lines, and the summary only counts it.
    output = result.stdout.str()
    assert output.count("error entry.etag.matches-etag-id #1") == 1, output
    assert output.count("headers.ETag: expected") == 1, output  # where/expected/found said once
    result.stdout.fnmatch_lines(
        ["test_etag.py::test_reads_entry: 1 error (the errors are in its failure above)"]
    )


def test_warn_passes_and_lists_the_finding_in_the_summary_and_off_checks_nothing(
    suite: pytest.Pytester,
) -> None:
    broken_etag_cassette(suite)
    warned = suite.runpytest_subprocess("-p", "no:cacheprovider", "--commerce-conformance=warn")
    warned.assert_outcomes(passed=2)
    warned.stdout.fnmatch_lines(
        [
            "*= commerce-proxy conformance =*",
            "test_etag.py::test_reads_entry: 1 error",
            f"  error entry.etag.matches-etag-id #1 GET {ENTRY}: *",
        ]
    )
    assert "info " not in warned.stdout.str().split("commerce-proxy conformance =", 1)[1]
    off = suite.runpytest_subprocess("-p", "no:cacheprovider", "--commerce-conformance=off")
    off.assert_outcomes(passed=2)
    assert "commerce-proxy conformance" not in off.stdout.str()


def marked_etag_cassette(suite: pytest.Pytester, level: str) -> None:
    """broken_etag_cassette's suite, its entry read marked with a conformance level of its own."""
    broken_etag_cassette(suite)
    source = (suite.path / "test_etag.py").read_text()
    marked = source.replace(
        "def test_reads_entry", f'@pytest.mark.commerce_conformance("{level}")\ndef test_reads_entry'
    )
    (suite.path / "test_etag.py").write_text("import pytest\n" + marked)


def test_a_marker_sets_the_conformance_of_one_test(suite: pytest.Pytester) -> None:
    marked_etag_cassette(suite, "strict")
    suite.runpytest_subprocess("-p", "no:cacheprovider").assert_outcomes(failed=1, passed=1)


def test_a_marker_off_leaves_one_test_unjudged_as_the_run_wide_off_does(suite: pytest.Pytester) -> None:
    marked_etag_cassette(suite, "off")
    strict = suite.runpytest_subprocess("-p", "no:cacheprovider", "--commerce-conformance=strict")
    strict.assert_outcomes(passed=2)
    assert "entry.etag.matches-etag-id" not in strict.stdout.str()
    assert "test_reads_entry: 1 error" not in strict.stdout.str()


def test_xdist_workers_get_their_own_servers_and_never_clobber_a_cassette(
    suite: pytest.Pytester, sandbox: str
) -> None:
    reads = "\n".join(
        f'''
def test_list_{name}(commerce_record):
    note("{name}", commerce_record)
    status, document = get(commerce_record, "/v2/{name}?page[limit]=3", "{{token}}")
    assert status == 200, document
'''
        for name in ("brands", "accounts", "customers", "products")
    )
    # Two tests record into one cassette at once (both sleep while recording): the lock keeps both.
    shared = "\n".join(
        f"""
@pytest.mark.commerce_cassette("shared.yaml")
def test_shared_{name}(commerce_record):
    note("shared-{name}", commerce_record)
    status, _ = get(commerce_record, "/v2/{name}?page[limit]=2", "{{token}}")
    assert status == 200
    time.sleep(0.5)
"""
        for name in ("orders", "files")
    )
    suite.makeconftest(
        f'''
import json, urllib.parse, urllib.request
import pytest

@pytest.fixture(scope="session")
def token():
    form = urllib.parse.urlencode({{"grant_type": "client_credentials", "client_id": "sandbox-client",
                                   "client_secret": "sandbox-secret"}}).encode()
    with urllib.request.urlopen("{sandbox}/oauth/access_token", data=form, timeout=10) as answer:
        return json.loads(answer.read())["access_token"]
'''
    )
    body = "import time\nimport pytest\nfrom helpers import get, note\n" + reads + shared
    suite.makepyfile(
        test_parallel=body.replace('"{token}"', "token").replace(
            "(commerce_record)", "(commerce_record, token)"
        )
    )
    result = suite.runpytest_subprocess(
        "-p",
        "no:cacheprovider",
        "-n",
        "2",
        "--commerce-record-mode=new_episodes",
        f"--commerce-upstream={sandbox}",
    )
    result.assert_outcomes(passed=6)
    rows = served(suite)
    assert {row["worker"] for row in rows} == {"gw0", "gw1"}
    assert len({row["url"] for row in rows}) == 6
    folder = suite.path / "cassettes"
    for name in ("brands", "accounts", "customers", "products"):
        exchanges = load_cassette(folder / "test_parallel" / f"test_list_{name}.yaml").cassette.exchanges
        assert [exchange.request.path for exchange in exchanges] == [f"/v2/{name}"]
    shared_paths = sorted(
        exchange.request.path for exchange in load_cassette(folder / "shared.yaml").cassette.exchanges
    )
    assert shared_paths == ["/v2/files", "/v2/orders"]
    assert not list(folder.rglob("*.journal"))


def test_module_recording_under_xdist_asks_for_loadfile(suite: pytest.Pytester, sandbox: str) -> None:
    suite.makepyfile(test_mod="def test_a(commerce_record_module):\n    pass\n\ndef test_b():\n    pass\n")
    options = (
        "-p",
        "no:cacheprovider",
        "-n",
        "2",
        "--commerce-record-mode=once",
        f"--commerce-upstream={sandbox}",
    )
    spread = suite.runpytest_subprocess(*options)
    spread.assert_outcomes(errors=1, passed=1)
    spread.stdout.fnmatch_lines(
        ["*needs the whole module on one pytest-xdist worker: run with --dist loadfile*"]
    )
    suite.runpytest_subprocess(*options, "--dist", "loadfile").assert_outcomes(passed=2)


class Terminal:
    """What FindingsSummary writes to, with -v or not."""

    def __init__(self, verbose: int) -> None:
        self.lines: list[str] = []
        self.config = type("Config", (), {"getoption": lambda _, name: verbose})()

    def section(self, title: str) -> None:
        self.lines.append(f"== {title}")

    def write_line(self, line: str) -> None:
        self.lines.append(line)


@pytest.mark.parametrize("verbose", [0, 1])
def test_the_summary_lists_info_findings_only_with_v(verbose: int) -> None:
    from proxy.pytest_plugin.summary import FINDINGS_PROPERTY, FindingsSummary

    finding = {"severity": "info", "rule": "entry.etag-id.absent", "exchange": 0, "method": "GET"}
    finding |= {"target": "/v2/x", "message": "no etag_id", "section": "Get a custom API entry"}
    report = type("Report", (), {"nodeid": "t.py::t", "failed": False, "longrepr": None})()
    report.user_properties = [(FINDINGS_PROPERTY, [finding])]
    summary = FindingsSummary()
    summary.pytest_runtest_logreport(report)
    terminal = Terminal(verbose)
    summary.pytest_terminal_summary(terminal)
    listed = [line for line in terminal.lines if line.startswith("  info entry.etag-id.absent #0")]
    head = "t.py::t: 1 info" if verbose else "1 test(s) with only 1 info (-v lists them)"
    assert terminal.lines[:2] == ["== commerce-proxy conformance", head]
    assert len(listed) == verbose
