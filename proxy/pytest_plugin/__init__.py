"""The pytest plugin (entry point `pytest11`): replay and record servers as fixtures, checked live.

`commerce_replay` serves the test's cassette offline; `commerce_record` records it from an upstream
as `--commerce-record-mode` says (`none` under CI, so CI never reaches the network; `spy` checks
live traffic and writes nothing). Each yields the server's base URL, a `str` that also lists what the
test sent (exchanges.CommerceServer); a request nothing answered fails the test, explained (misses.py).
`commerce_sandbox` starts the project's sandbox (sandbox.py). Every exchange a test causes is checked
against the documented rules; `--commerce-conformance=strict` fails a test whose traffic has an error
finding, showing the finding.

Names carry a `commerce` prefix so the plugin installs beside pytest-recording (which owns
`--record-mode` and the `vcr` fixtures). Servers run on a thread of their own (proxy/server/background.py),
so sync and async tests use them alike, and on a free port, so pytest-xdist workers never collide.
This module holds the options and fixtures; the parts it gathers live beside it.
"""

from __future__ import annotations

# First of our modules, so that pytest rewrites the asserts of none of the others (unrewritten.py).
from proxy.pytest_plugin import unrewritten  # noqa: F401

# isort: split
import logging
import os
from collections.abc import Iterator
from pathlib import Path
from typing import cast

import pytest

from proxy.core.replay.matching import MatchPolicy
from proxy.errors import CommerceProxyError, SettingError
from proxy.pytest_plugin.cassettes import MARKER, OPTION_SPELLINGS, cassette_name_of, cassettes_for
from proxy.pytest_plugin.contract import add_contract_options, contract_paths
from proxy.pytest_plugin.endings import RunEndings
from proxy.pytest_plugin.exchanges import CommerceServer as CommerceServer
from proxy.pytest_plugin.exchanges import SentRequest as SentRequest
from proxy.pytest_plugin.findings import CONFORMANCE_MARKER
from proxy.pytest_plugin.findings import pytest_runtest_makereport as pytest_runtest_makereport
from proxy.pytest_plugin.findings import pytest_runtest_setup as pytest_runtest_setup
from proxy.pytest_plugin.ledger import Ledger
from proxy.pytest_plugin.misses import MissReporter
from proxy.pytest_plugin.modes import CI_MODE_VARIABLE, PLUGIN_MODES, ci_setting, effective_mode, under_ci
from proxy.pytest_plugin.network import add_network_options, configure_network_guard
from proxy.pytest_plugin.network import commerce_network_guard as commerce_network_guard
from proxy.pytest_plugin.sandbox import SANDBOX_OPTION, add_sandbox_options, sandbox_upstream
from proxy.pytest_plugin.sandbox import commerce_sandbox as commerce_sandbox
from proxy.pytest_plugin.sandbox import commerce_sandbox_settings as commerce_sandbox_settings
from proxy.pytest_plugin.state import CONFORMANCE, STATE, Conformance, PluginState
from proxy.pytest_plugin.summary import FindingsSummary
from proxy.pytest_plugin.ui import add_ui_options, run_ui
from proxy.pytest_plugin.workers import pytest_configure_node as pytest_configure_node

log = logging.getLogger(__name__)
UNUSED_CHOICES = ("ignore", "warn", "fail")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("commerce-proxy", "commerce-proxy record and replay")
    group.addoption(
        "--commerce-record-mode",
        choices=PLUGIN_MODES,
        default=None,
        help="what commerce_record does: none (replay only; always under CI, that is CI set to anything "
        f"but 0/false/no/off, unless {CI_MODE_VARIABLE}=spy), once (record missing cassettes; the default "
        "otherwise), new_episodes "
        "(record requests not in the cassette), all (re-record), spy (forward to the upstream and "
        "check every exchange, writing nothing)",
    )
    group.addoption(
        "--commerce-conformance",
        choices=CONFORMANCE,
        default=None,
        help="check each test's traffic against the documented rules: off, warn (default: findings "
        "in the summary) or strict (an error finding fails the test)",
    )
    group.addoption("--commerce-upstream", metavar="URL", default=None, help="the service to record from")
    group.addoption(
        "--commerce-fresh",
        action="store_true",
        help="with --commerce-record-mode=all, write every exchange anew (by default an answer that "
        "changed only in volatile values keeps its recorded entry)",
    )
    group.addoption(
        "--commerce-ca-bundle",
        metavar="FILE",
        default=None,
        help="PEM certificates of a private CA the https upstream's certificate is verified against "
        "(default: the system's CAs; verification is never off)",
    )
    group.addoption(
        "--commerce-failed-recordings",
        choices=("discard", "keep"),
        default="discard",
        help="what becomes of a recording during which a test failed: discard (default: a new cassette "
        "is not written, an existing one is left as it was) or keep",
    )
    group.addoption(
        "--commerce-unused",
        choices=UNUSED_CHOICES,
        default=None,
        help="recordings no replaying test used, counted per cassette over the whole run: ignore, warn "
        "(default: listed in the summary) or fail (listed, and the run fails); judged only in a run of "
        "every test, and not for a cassette a failed test used",
    )
    group.addoption(
        "--commerce-match-on",
        metavar="FIELDS",
        default=None,
        help="what decides a match for every test: some of method,path,query,body and header:NAME "
        "(default: the four fields; header:NAME adds to them; a marker's match_on wins)",
    )
    add_network_options(group)
    add_sandbox_options(group, parser)
    add_ui_options(group, parser)
    add_contract_options(group, parser)
    parser.addini("commerce_match_on", "default --commerce-match-on")
    parser.addini("commerce_record_mode", "default --commerce-record-mode (under CI it is none)")
    parser.addini("commerce_conformance", "default --commerce-conformance")
    parser.addini("commerce_upstream", "default --commerce-upstream")
    parser.addini("commerce_unused", "default --commerce-unused")
    parser.addini("commerce_ca_bundle", "default --commerce-ca-bundle, relative to the rootdir")
    parser.addini(
        "commerce_cassette_dir",
        "cassette folder, relative to the rootdir (default: cassettes/ beside each test module)",
    )


def pytest_plugin_registered(plugin: object, manager: pytest.PytestPluginManager) -> None:
    """With pytester, whose in-process runs drop what is first imported inside them, what the fixtures
    import later is imported now (eager.py)."""
    if manager.get_name(plugin) == "pytester":
        from proxy.pytest_plugin.eager import import_later_modules

        import_later_modules()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{MARKER}(path, ..., simulate=False, match_on=None, ignore_query=(), match_ignore_json=()): "
        "the cassette(s) commerce_replay/commerce_record use, relative to the cassette folder (no path: "
        "the test's own), and how they match",
    )
    config.addinivalue_line(
        "markers", f"{CONFORMANCE_MARKER}(level): off, warn or strict for this test's traffic"
    )
    asked = config.getoption("commerce_record_mode") or _ini_choice(
        config, "commerce_record_mode", PLUGIN_MODES
    )
    try:  # CI replays, whatever addopts or the command line ask, unless CI's own variable opts in
        chosen = effective_mode(asked, os.environ)
    except ValueError as error:
        raise pytest.UsageError(str(error)) from None
    mode = chosen.mode
    match_on = config.getoption("commerce_match_on") or str(config.getini("commerce_match_on") or "") or None
    try:
        MatchPolicy.parse(match_on)
    except CommerceProxyError as error:
        said = error.named(OPTION_SPELLINGS) if isinstance(error, SettingError) else error
        raise pytest.UsageError(str(said)) from None
    conformance = config.getoption("commerce_conformance") or _ini_choice(
        config, "commerce_conformance", CONFORMANCE
    )
    upstream = config.getoption("commerce_upstream") or str(config.getini("commerce_upstream") or "")
    folder = str(config.getini("commerce_cassette_dir") or "")
    ca_bundle = config.getoption("commerce_ca_bundle") or str(config.getini("commerce_ca_bundle") or "")
    specs, overlays = contract_paths(config)
    config.stash[STATE] = PluginState(
        record_mode=mode,
        conformance=cast(Conformance, conformance or "warn"),
        upstream=upstream or None,
        upstream_option=_upstream_option(config, upstream),
        sandbox=sandbox_upstream(config),
        match_on=match_on,
        ca_bundle=config.rootpath / ca_bundle if ca_bundle else None,
        cassette_dir=config.rootpath / folder if folder else None,
        rootpath=config.rootpath,
        fresh=bool(config.getoption("commerce_fresh")),
        failed_recordings=config.getoption("commerce_failed_recordings"),
        unused=config.getoption("commerce_unused")
        or _ini_choice(config, "commerce_unused", UNUSED_CHOICES)
        or "warn",
        overruled=chosen.overruled,
        ci=ci_setting(os.environ) if under_ci(os.environ) else None,
        ui=run_ui(config),
        specs=specs,
        overlays=overlays,
    )
    configure_network_guard(config, mode)
    config.pluginmanager.register(FindingsSummary(), "commerce-proxy-findings-summary")
    config.pluginmanager.register(RunEndings(config.stash[STATE]), "commerce-proxy-run-endings")
    config.pluginmanager.register(MissReporter(config), "commerce-proxy-misses")
    config.pluginmanager.register(Ledger(config, config.stash[STATE]), "commerce-proxy-ledger")


def _upstream_option(config: pytest.Config, upstream: str) -> str:
    """The upstream option a remedy names: the one this run used (none when the ini file gives it)."""
    if sandbox_upstream(config):
        return SANDBOX_OPTION
    return "" if upstream and not config.getoption("commerce_upstream") else "--commerce-upstream URL"


def _ini_choice(config: pytest.Config, name: str, choices: tuple[str, ...]) -> str | None:
    value = str(config.getini(name) or "").strip()
    if value and value not in choices:
        raise pytest.UsageError(
            f"{name} = {value!r} in {config.inipath}: expected one of {', '.join(choices)}"
        )
    return value or None


def pytest_unconfigure(config: pytest.Config) -> None:
    if STATE in config.stash:
        config.stash[STATE].stop_signals.restore()
    if STATE in config.stash and config.stash[STATE].live:
        log.warning("commerce-proxy: %d server(s) still running at exit", len(config.stash[STATE].live))


def pytest_report_header(config: pytest.Config) -> str:
    state = config.stash[STATE]
    spy = " (checking live traffic, writing nothing)" if state.record_mode == "spy" else ""
    overruled = f": record mode {state.overruled} not used" if state.overruled else ""
    ci = f" ({state.ci}{overruled})" if state.ci else ""
    # Only a mode that reaches the upstream names it: under CI the sandbox or service is not started.
    upstream = "the sandbox (--commerce-sandbox)" if state.sandbox else state.upstream
    upstream = upstream if state.record_mode != "none" else None
    ui = ", a UI on each server (its address printed as it starts)" if state.ui else ""
    return (
        f"commerce-proxy: record mode {state.record_mode}{spy}{ci}, conformance {state.conformance}"
        + (f", upstream {upstream}" if upstream else "")
        + ui
    )


# --- fixtures ---------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def commerce_upstream(request: pytest.FixtureRequest) -> str | None:
    """The service `commerce_record` records from (the sandbox with --commerce-sandbox); override it
    (session or module scope) to start one."""
    state = request.config.stash[STATE]
    return str(request.getfixturevalue("commerce_sandbox")) if state.sandbox else state.upstream


@pytest.fixture(scope="module")
def commerce_cassette_dir(request: pytest.FixtureRequest) -> Path:
    """Where cassettes live: the ini's commerce_cassette_dir, else cassettes/ beside the test module."""
    state = request.config.stash[STATE]
    return state.cassette_dir or request.path.parent / "cassettes"


@pytest.fixture
def commerce_replay(request: pytest.FixtureRequest, commerce_cassette_dir: Path) -> Iterator[str]:
    """A replay server for this test's cassette (cassettes/MODULE/TEST.yaml, or the marker's); its URL."""
    from proxy.pytest_plugin.servers import replaying

    with replaying(request, cassettes_for(request, commerce_cassette_dir, cassette_name_of(request))) as url:
        yield url


@pytest.fixture
def commerce_record(request: pytest.FixtureRequest, commerce_cassette_dir: Path) -> Iterator[str]:
    """A recording proxy (or a replay server, as the record mode says) for this test; its URL."""
    from proxy.pytest_plugin.servers import recording

    with recording(request, cassettes_for(request, commerce_cassette_dir, cassette_name_of(request))) as url:
        yield url


@pytest.fixture(scope="module")
def commerce_replay_module(request: pytest.FixtureRequest, commerce_cassette_dir: Path) -> Iterator[str]:
    """One replay server for the whole module (cassettes/MODULE.yaml, or the module's marker)."""
    from proxy.pytest_plugin.servers import replaying

    with replaying(request, cassettes_for(request, commerce_cassette_dir, request.path.stem)) as url:
        yield url


@pytest.fixture(scope="module")
def commerce_record_module(request: pytest.FixtureRequest, commerce_cassette_dir: Path) -> Iterator[str]:
    """One recording proxy (or replay server) for the whole module."""
    from proxy.pytest_plugin.servers import recording

    with recording(request, cassettes_for(request, commerce_cassette_dir, request.path.stem)) as url:
        yield url
