"""The pytest plugin (entry point `pytest11`): replay and record servers as fixtures, checked live.

`commerce_replay` serves the test's cassette offline; `commerce_record` records it from an upstream
as `--commerce-record-mode` says (`none` under CI=true, so CI never reaches the network). Each yields
the server's base URL. Every exchange a test causes is checked against the documented rules;
`--commerce-conformance=strict` fails a test whose traffic has an error finding, showing the finding.

Names carry a `commerce` prefix so the plugin installs beside pytest-recording (which owns
`--record-mode` and the `vcr` fixtures). Servers run on a thread of their own (proxy/server/background.py),
so sync and async tests use them alike, and on a free port, so pytest-xdist workers never collide.
"""

from __future__ import annotations

import itertools
import logging
import os
import re
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NoReturn, cast, get_args

import pytest

from proxy.app.recording import RECORD_MODES, RecordMode, RecordSettings
from proxy.app.replay_setup import build_book
from proxy.core.model.links import without_credentials
from proxy.core.replay.matching import MatchPolicy
from proxy.core.rules.engine import Checker, LiveChecker
from proxy.core.rules.findings import Finding
from proxy.errors import CommerceProxyError
from proxy.pytest_network import CASSETTE_MARKER, add_network_options, configure_network_guard
from proxy.pytest_network import commerce_network_guard as commerce_network_guard
from proxy.pytest_summary import FINDINGS_PROPERTY, STRICT_FAILURE, FindingsSummary, finding_line
from proxy.store.locks import cassette_lock
from proxy.store.rule_files import Engine, load_project_rules

if TYPE_CHECKING:
    from proxy.server.serving import Servable

log = logging.getLogger(__name__)

Conformance = Literal["off", "warn", "strict"]
CONFORMANCE: tuple[Conformance, ...] = get_args(Conformance)
MARKER = CASSETTE_MARKER
CONFORMANCE_MARKER = "commerce_conformance"
MARKER_OPTIONS = frozenset({"simulate", "match_on", "ignore_query"})
DIST_KEY = "commerce_proxy_dist"
UNSAFE_IN_NAMES = re.compile(r"[^\w.\-\[\]]")


@dataclass(slots=True)
class Served:
    """One server a fixture started: where it listens, what it serves, and what its traffic broke."""

    serial: int
    url: str
    cassette: Path
    action: str  # "replaying" or "recording"
    findings: list[Finding] = field(default_factory=list)
    failed: bool = False  # a test failed while it served: its recording is not kept (unless asked)


@dataclass(slots=True)
class PluginState:
    """The session's settings (from options, ini and CI) and the servers live right now."""

    record_mode: RecordMode
    conformance: Conformance
    upstream: str | None
    ca_bundle: Path | None
    cassette_dir: Path | None
    rootpath: Path
    fresh: bool = False
    failed_recordings: str = "discard"
    live: list[Served] = field(default_factory=list)
    serials: Iterator[int] = field(default_factory=itertools.count)
    _engine: Engine | None = None

    def engine(self) -> Engine:
        """The rules and project config, found from the rootdir as `check` finds them (loaded once)."""
        if self._engine is None:
            self._engine = load_project_rules(None, None, self.rootpath)
        return self._engine


STATE = pytest.StashKey[PluginState]()
OFFSETS = pytest.StashKey[dict[int, int]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("commerce-proxy", "commerce-proxy record and replay")
    group.addoption(
        "--commerce-record-mode",
        choices=RECORD_MODES,
        default=None,
        help="what commerce_record does: none (replay only; the default under CI=true), once (record "
        "missing cassettes; the default otherwise), new_episodes (record requests not in the "
        "cassette), all (re-record)",
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
    add_network_options(group)
    parser.addini("commerce_record_mode", "default --commerce-record-mode (CI=true means none)")
    parser.addini("commerce_conformance", "default --commerce-conformance")
    parser.addini("commerce_upstream", "default --commerce-upstream")
    parser.addini("commerce_ca_bundle", "default --commerce-ca-bundle, relative to the rootdir")
    parser.addini(
        "commerce_cassette_dir",
        "cassette folder, relative to the rootdir (default: cassettes/ beside each test module)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{MARKER}(path, ..., simulate=False, match_on=None, ignore_query=()): the cassette(s) "
        "commerce_replay/commerce_record use, relative to the cassette folder",
    )
    config.addinivalue_line(
        "markers", f"{CONFORMANCE_MARKER}(level): off, warn or strict for this test's traffic"
    )
    ci = os.environ.get("CI", "").lower() in ("1", "true", "yes")
    mode = config.getoption("commerce_record_mode") or ("none" if ci else None)
    mode = mode or _ini_choice(config, "commerce_record_mode", RECORD_MODES) or "once"
    conformance = config.getoption("commerce_conformance") or _ini_choice(
        config, "commerce_conformance", CONFORMANCE
    )
    upstream = config.getoption("commerce_upstream") or str(config.getini("commerce_upstream") or "")
    folder = str(config.getini("commerce_cassette_dir") or "")
    ca_bundle = config.getoption("commerce_ca_bundle") or str(config.getini("commerce_ca_bundle") or "")
    config.stash[STATE] = PluginState(
        record_mode=cast(RecordMode, mode),
        conformance=cast(Conformance, conformance or "warn"),
        upstream=upstream or None,
        ca_bundle=config.rootpath / ca_bundle if ca_bundle else None,
        cassette_dir=config.rootpath / folder if folder else None,
        rootpath=config.rootpath,
        fresh=bool(config.getoption("commerce_fresh")),
        failed_recordings=config.getoption("commerce_failed_recordings"),
    )
    configure_network_guard(config, mode)
    config.pluginmanager.register(FindingsSummary(), "commerce-proxy-findings-summary")


def _ini_choice(config: pytest.Config, name: str, choices: tuple[str, ...]) -> str | None:
    value = str(config.getini(name) or "").strip()
    if value and value not in choices:
        raise pytest.UsageError(
            f"{name} = {value!r} in {config.inipath}: expected one of {', '.join(choices)}"
        )
    return value or None


def pytest_unconfigure(config: pytest.Config) -> None:
    if STATE in config.stash and config.stash[STATE].live:
        log.warning("commerce-proxy: %d server(s) still running at exit", len(config.stash[STATE].live))


def pytest_report_header(config: pytest.Config) -> str:
    state = config.stash[STATE]
    return f"commerce-proxy: record mode {state.record_mode}, conformance {state.conformance}" + (
        f", upstream {state.upstream}" if state.upstream else ""
    )


# --- fixtures ---------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def commerce_upstream(pytestconfig: pytest.Config) -> str | None:
    """The service `commerce_record` records from; override it (session or module scope) to start one."""
    return pytestconfig.stash[STATE].upstream


@pytest.fixture(scope="module")
def commerce_cassette_dir(request: pytest.FixtureRequest) -> Path:
    """Where cassettes live: the ini's commerce_cassette_dir, else cassettes/ beside the test module."""
    state = request.config.stash[STATE]
    return state.cassette_dir or request.path.parent / "cassettes"


@pytest.fixture
def commerce_replay(request: pytest.FixtureRequest, commerce_cassette_dir: Path) -> Iterator[str]:
    """A replay server for this test's cassette (cassettes/MODULE/TEST.yaml, or the marker's); its URL."""
    with _replaying(request, _cassettes(request, commerce_cassette_dir, _test_name(request))) as url:
        yield url


@pytest.fixture
def commerce_record(request: pytest.FixtureRequest, commerce_cassette_dir: Path) -> Iterator[str]:
    """A recording proxy (or a replay server, as the record mode says) for this test; its URL."""
    with _recording(request, _cassettes(request, commerce_cassette_dir, _test_name(request))) as url:
        yield url


@pytest.fixture(scope="module")
def commerce_replay_module(request: pytest.FixtureRequest, commerce_cassette_dir: Path) -> Iterator[str]:
    """One replay server for the whole module (cassettes/MODULE.yaml, or the module's marker)."""
    with _replaying(request, _cassettes(request, commerce_cassette_dir, request.path.stem)) as url:
        yield url


@pytest.fixture(scope="module")
def commerce_record_module(request: pytest.FixtureRequest, commerce_cassette_dir: Path) -> Iterator[str]:
    """One recording proxy (or replay server) for the whole module."""
    with _recording(request, _cassettes(request, commerce_cassette_dir, request.path.stem)) as url:
        yield url


# --- which cassette ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Cassettes:
    """The cassette files a fixture serves, and how the marker asked to serve them."""

    paths: tuple[Path, ...]
    simulate: bool = False
    match: MatchPolicy = field(default_factory=MatchPolicy)


def _test_name(request: pytest.FixtureRequest) -> str:
    """MODULE/Class.test_name[param]: one cassette per test, readable, safe as a file name."""
    below_module = request.node.nodeid.split("::", 1)[-1].replace("::", ".")
    return f"{request.path.stem}/{short_name(UNSAFE_IN_NAMES.sub('_', below_module))}"


LONGEST_FILE_NAME = 150  # bytes: room for .yaml and .journal below the usual 255 of one file name


def short_name(name: str) -> str:
    """The name as is when it fits a file name with room to spare; else its start and a stable hash of
    the whole, so a long parametrize id still gets its own cassette, the same on every run."""
    if len(name.encode("utf-8")) <= LONGEST_FILE_NAME:
        return name
    import hashlib

    digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:16]
    start = name.encode("utf-8")[: LONGEST_FILE_NAME - 17].decode("utf-8", "ignore")
    return f"{start}-{digest}"


def _cassettes(request: pytest.FixtureRequest, folder: Path, default_name: str) -> Cassettes:
    marker = request.node.get_closest_marker(MARKER)
    if marker is None:
        return Cassettes((folder / f"{default_name}.yaml",))
    where = f"@pytest.mark.{MARKER} on {request.node.nodeid}"
    unknown = sorted(set(marker.kwargs) - MARKER_OPTIONS)
    if unknown:
        _fail(f"{where}: unknown option {unknown[0]!r}; expected some of {', '.join(sorted(MARKER_OPTIONS))}")
    if not marker.args or not all(isinstance(arg, str | Path) for arg in marker.args):
        _fail(f"{where}: expected one or more cassette paths, e.g. {MARKER}('features/update.yaml')")
    try:
        match = MatchPolicy.parse(marker.kwargs.get("match_on"), marker.kwargs.get("ignore_query", ()))
    except CommerceProxyError as error:
        _fail(f"{where}: {error}")
    return Cassettes(
        tuple(folder / Path(arg) for arg in marker.args), bool(marker.kwargs.get("simulate")), match
    )


def _fail(message: str) -> NoReturn:
    """Fail the fixture with one line (no traceback into the plugin)."""
    pytest.fail(message, pytrace=False)


# --- serving ----------------------------------------------------------------------------------------


@contextmanager
def _replaying(request: pytest.FixtureRequest, cassettes: Cassettes) -> Iterator[str]:
    from proxy.server.replay import create_replay_app

    state = request.config.stash[STATE]
    missing = [path for path in cassettes.paths if not path.exists()]
    if missing:
        _fail(
            f"{request.node.nodeid}: no cassette {missing[0]}: record it with `pytest "
            f"--commerce-record-mode=once --commerce-upstream URL` and the commerce_record fixture"
        )
    try:
        engine = state.engine()
        book, loaded = build_book(
            list(cassettes.paths), cassettes.match, engine.project.redaction, cassettes.simulate
        )
    except CommerceProxyError as error:
        _fail(f"{request.node.nodeid}: {error}")
    for one in loaded:
        for note in one.notes:
            log.warning("%s", note)
    served = _served(state, cassettes.paths[0], "replaying")
    live = _live_checker(state, served)
    with _serving(state, served, lambda: create_replay_app(book, live=live)) as url:
        yield url


@contextmanager
def _recording(request: pytest.FixtureRequest, cassettes: Cassettes) -> Iterator[str]:
    from proxy.server.record import create_record_app

    state = request.config.stash[STATE]
    if len(cassettes.paths) != 1:
        _fail(f"{request.node.nodeid}: commerce_record records into one cassette, not {len(cassettes.paths)}")
    cassette = cassettes.paths[0]
    if state.record_mode == "none":
        with _replaying(request, cassettes) as url:
            yield url
        return
    with ExitStack() as stack:
        # Another xdist worker may be recording this cassette: wait for it, then decide.
        stack.enter_context(cassette_lock(cassette))
        if state.record_mode == "once" and cassette.exists():
            stack.close()
            with _replaying(request, cassettes) as url:
                yield url
            return
        if request.scope == "module" and _spread_over_workers(request.config):
            _fail(
                f"{request.node.nodeid}: recording a module's cassette needs the whole module on one "
                "pytest-xdist worker: run with --dist loadfile (or loadscope)"
            )
        upstream = request.getfixturevalue("commerce_upstream")
        if not upstream:
            _fail(
                f"{request.node.nodeid}: record mode {state.record_mode} needs an upstream to record "
                f"{cassette} from: --commerce-upstream URL, commerce_upstream in the ini file, or a "
                "commerce_upstream fixture (or --commerce-record-mode=none to replay only)"
            )
        try:
            engine = state.engine()
            shown, authorization = without_credentials(str(upstream))
            settings = RecordSettings(
                upstream=shown.rstrip("/"),
                upstream_authorization=authorization,
                cassette=cassette,
                mode=state.record_mode,
                fresh=state.fresh,
                redaction=engine.project.redaction,
                match=cassettes.match,
                rules=engine.ruleset if state.conformance != "off" else None,
                rule_config=engine.project.config,
                ca_bundle=state.ca_bundle,
            )
            app = create_record_app(settings)
        except CommerceProxyError as error:
            _fail(f"{request.node.nodeid}: {error}")
        served = _served(state, cassette, "recording")
        recording = app.recording
        if recording.live is not None:  # the plugin shows each finding once, in its summary
            recording.live.listeners.append(served.findings.extend)
            recording.live.logged = False
        with _serving(state, served, lambda: app) as url:
            yield url
            if served.failed and state.failed_recordings == "discard":
                recording.discard()  # before the server stops: nothing of it is written
                log.warning(
                    "%s: a test failed while recording; %s left as it was", request.node.nodeid, cassette
                )


def _spread_over_workers(config: pytest.Config) -> bool:
    """Whether pytest-xdist may send this module's tests to several workers."""
    workerinput = getattr(config, "workerinput", None)
    return workerinput is not None and workerinput.get(DIST_KEY) not in ("loadfile", "loadscope")


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """pytest-xdist: tell each worker how tests are spread (a worker's own --dist always reads "no")."""
    node.workerinput[DIST_KEY] = node.config.getoption("dist")


def _served(state: PluginState, cassette: Path, action: str) -> Served:
    return Served(next(state.serials), "", cassette, action)


def _live_checker(state: PluginState, served: Served) -> LiveChecker | None:
    if state.conformance == "off":
        return None
    engine = state.engine()
    live = LiveChecker(Checker(engine.ruleset, engine.project.config))
    live.listeners.append(served.findings.extend)
    live.logged = False  # the plugin shows each finding once, in its summary
    return live


@contextmanager
def _serving(state: PluginState, served: Served, build: Callable[[], Servable]) -> Iterator[str]:
    from proxy.server.background import BackgroundServer

    server = BackgroundServer(build)
    try:
        served.url = server.start()
    except (OSError, CommerceProxyError) as error:
        _fail(f"commerce-proxy: cannot start a server for {served.cassette}: {error}")
    state.live.append(served)
    try:
        yield served.url
    finally:
        state.live.remove(served)
        server.stop()


# --- findings per test ------------------------------------------------------------------------------


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    """Note how far each running server's findings go, so this test gets only what it caused."""
    item.stash[OFFSETS] = {served.serial: len(served.findings) for served in item.config.stash[STATE].live}
    return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    report = _with_findings(item, call, cast(pytest.TestReport, (yield)))
    if report.failed and STATE in item.config.stash:  # the final outcome, a strict failure included
        for served in item.config.stash[STATE].live:
            served.failed = True
    return report  # type: ignore[return-value]


def _with_findings(
    item: pytest.Item, call: pytest.CallInfo[None], report: pytest.TestReport
) -> pytest.TestReport:
    if call.when != "call" or STATE not in item.config.stash:
        return report
    state = item.config.stash[STATE]
    offsets = item.stash.get(OFFSETS, {})
    caused = [
        (served, finding)
        for served in state.live
        for finding in served.findings[offsets.get(served.serial, 0) :]
    ]
    if not caused:
        return report
    report.user_properties.append((FINDINGS_PROPERTY, [finding.to_json() for _, finding in caused]))
    errors = [(served, finding) for served, finding in caused if finding.severity == "error"]
    if errors and _conformance_of(item, state) == "strict":
        text = _failure_text(errors)
        if report.passed:
            report.outcome = "failed"
            report.longrepr = text
        else:
            report.sections.append(("commerce-proxy conformance", text))
    return report


def _conformance_of(item: pytest.Item, state: PluginState) -> Conformance:
    marker = item.get_closest_marker(CONFORMANCE_MARKER)
    if marker is None:
        return state.conformance
    level = marker.args[0] if marker.args else None
    if level not in CONFORMANCE:
        raise pytest.UsageError(
            f"@pytest.mark.{CONFORMANCE_MARKER}({level!r}) on {item.nodeid}: expected one of "
            f"{', '.join(CONFORMANCE)}"
        )
    return cast(Conformance, level)


def _failure_text(errors: list[tuple[Served, Finding]]) -> str:
    lines = [f"{STRICT_FAILURE}: the traffic of this test broke {len(errors)} documented rule(s):"]
    for served, finding in errors:
        lines.append(f"  {finding_line(finding.to_json())}")
        lines.append(f"      where {finding.where}: expected {finding.expected}; found {finding.found}")
        lines.append(f"      ({served.action} {served.cassette} at {served.url})")
    return "\n".join(lines)
