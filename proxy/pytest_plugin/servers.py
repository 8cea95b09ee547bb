"""The servers behind the fixtures: a replay server for a cassette, or a recording proxy in front of
the upstream (as the record mode says), each on a thread of its own and a free port, its traffic
checked live against the rules in force."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from proxy.app.committed import leftover_journal
from proxy.app.record_setup import LeftOver, ReplayOnly, plan, record_settings
from proxy.app.recording import held_for_recording
from proxy.core.replay.book import ReplayBook
from proxy.core.rules.engine import Checker, LiveChecker
from proxy.errors import CommerceProxyError
from proxy.pytest_plugin.cassettes import OPTION_SPELLINGS, Cassettes
from proxy.pytest_plugin.endings import (
    as_committed,
    end_after_teardown,
    leftover_choice,
    may_keep,
)
from proxy.pytest_plugin.exchanges import CommerceServer, Exchanges
from proxy.pytest_plugin.ledger import usage_note
from proxy.pytest_plugin.misses import absent_cassette, remedy, watcher
from proxy.pytest_plugin.spying import spying
from proxy.pytest_plugin.state import STATE, PluginState, Served, fail
from proxy.pytest_plugin.ui import Opened
from proxy.pytest_plugin.workers import spread_over_workers
from proxy.store.cassette_folders import cassette_paths

if TYPE_CHECKING:
    from proxy.server.serving import Servable

log = logging.getLogger("proxy.pytest_plugin")


@contextmanager
def replaying(
    request: pytest.FixtureRequest,
    cassettes: Cassettes,
    absent: str | None = None,
    how: str | None = None,
) -> Iterator[CommerceServer]:
    """A replay server for the cassettes. A missing cassette (or `absent`, why none can be recorded)
    is no error until a request is sent: the empty server misses it, and the test fails saying why.
    `how`: what a miss says would record it (by default, by fixture and record mode)."""
    from proxy.server.replay import Replayer

    state = request.config.stash[STATE]
    missing = [path for path in cassettes.paths if not path.exists()]
    if missing and absent is None:
        journal = leftover_journal(missing[0])
        absent = absent_cassette(request.fixturename or "", str(missing[0]), state) + (
            f" ({leftover_choice(journal, missing[0])})" if journal is not None else ""
        )
    try:
        in_force = state.in_force()
        state.baseline()  # a missing or broken baseline file is this fixture's one-line error
        if state.conformance != "off":
            state.contract()  # and so is a broken spec or overlay
        paths = [] if absent is not None else cassette_paths(list(cassettes.paths))
        loaded = [as_committed(path) for path in paths]
        book = ReplayBook.build(
            [(str(one.path), one.cassette) for one in loaded],
            cassettes.match.joined(in_force.project.match),
            in_force.project.redaction,
            simulate=cassettes.simulate,
        )
    except CommerceProxyError as error:
        fail(f"{request.node.nodeid}: {error}")
    for one in loaded:
        for note in one.notes:
            log.warning("%s", note)
    served = state.served(cassettes.paths[0], "replaying")
    live = _live_checker(state, served)
    exchanges = Exchanges(state.current_test)
    shown = [_shown_path(state, str(path)) for path in paths]
    how = how or remedy(request.fixturename or "", state)
    watch = watcher(request.config, exchanges, shown, how, absent)
    replayer = Replayer(book, live=live, watch=watch)
    ui = state.ui.attach(_whose(request), "replay", replayer, in_force, shown) if state.ui else None
    with _serving(state, served, lambda: replayer.server, ui) as url:
        yield CommerceServer(url, exchanges)
    _note_usage(state, served, book)


def _note_usage(state: PluginState, served: Served, book: ReplayBook) -> None:
    """What the test (or module) used of each cassette, for the run's end to judge with the other
    tests sharing it (ledger.py). A test that failed stopped before using them: noted, not judged."""
    if state.unused == "ignore":
        return
    recorded: dict[str, list[tuple[int, str, str]]] = {}
    used: dict[str, list[int]] = {}
    for recording, uses in zip(book.recordings, book.uses, strict=True):
        request = recording.exchange.request
        recorded.setdefault(recording.cassette, []).append((recording.index, request.method, request.target))
        if uses:
            used.setdefault(recording.cassette, []).append(recording.index)
    for cassette, listed in recorded.items():
        state.usage.append(
            usage_note(
                _shown_path(state, cassette),
                listed,
                used.get(cassette, []),
                tests=served.tests,
                judged=not served.failed,
            )
        )


@contextmanager
def recording(request: pytest.FixtureRequest, cassettes: Cassettes) -> Iterator[CommerceServer]:
    from proxy.server.record import RecordProxy

    state = request.config.stash[STATE]
    if state.record_mode == "spy":
        with spying(request, _serving) as url:
            yield url
        return
    if len(cassettes.paths) != 1:
        fail(f"{request.node.nodeid}: commerce_record records into one cassette, not {len(cassettes.paths)}")
    cassette = cassettes.paths[0]
    if isinstance(plan(state.record_mode, cassette), ReplayOnly):  # none, or once over a cassette
        with replaying(request, cassettes) as url:
            yield url
        return
    with ExitStack() as stack:
        # Another xdist worker may be recording this cassette: wait for it, then decide again.
        stack.enter_context(held_for_recording(cassette))
        planned = plan(state.record_mode, cassette)
        if isinstance(planned, ReplayOnly):
            stack.close()
            with replaying(request, cassettes) as url:
                yield url
            return
        if isinstance(planned, LeftOver):
            fail(f"{request.node.nodeid}: {leftover_choice(planned.journal, cassette)}")
        if request.scope == "module" and spread_over_workers(request.config):
            fail(
                f"{request.node.nodeid}: recording a module's cassette needs the whole module on one "
                "pytest-xdist worker: run with --dist loadfile (or loadscope)"
            )
        upstream = request.getfixturevalue("commerce_upstream")
        if not upstream:  # what is recorded replays; a new request fails saying an upstream is needed
            stack.close()
            needed = _no_upstream(state, cassette)
            absent = None if cassette.exists() else needed
            with replaying(request, cassettes, absent, needed) as url:
                yield url
            return
        try:
            in_force = state.in_force()
            state.baseline()
            settings = record_settings(
                str(upstream),
                cassette,
                in_force,
                mode=state.record_mode,
                fresh=state.fresh,
                checking=state.conformance != "off",
                match=cassettes.match,
                ca_bundle=state.ca_bundle,
                spellings=OPTION_SPELLINGS,
                contract=state.contract() if state.conformance != "off" else None,
            )
            exchanges = Exchanges(state.current_test)
            watch = watcher(request.config, exchanges, [_shown_path(state, str(cassette))], "", None)
            proxy = RecordProxy(settings, watch)
        except CommerceProxyError as error:
            fail(f"{request.node.nodeid}: {error}")
        served = state.served(cassette, "recording")
        recording = proxy.recording
        if recording.live is not None:  # the plugin shows each finding once, in its summary
            recording.live.follow(lambda checked: served.findings.extend(checked.findings), quiet=True)
        recording.hold()  # written only when `end` decides to keep it: any stop before leaves nothing
        signals = state.stop_signals.take()  # SIGTERM and SIGHUP now end the run as Ctrl-C does
        shown = _shown_path(state, str(cassette))
        ui = state.ui.attach(_whose(request), "record", proxy, in_force, [shown], shown) if state.ui else None
        address = stack.enter_context(_serving(state, served, lambda: proxy.server, ui))
        serving = stack.pop_all()  # ended by `end` alone: after the teardown, or when the run is abandoned

        def end(abandoned: bool = False) -> None:
            if end not in state.unended:
                return  # ended already
            state.unended.remove(end)
            try:
                with serving:  # the server stops (writing what was kept), then the lock is let go
                    kept = state.failed_recordings == "keep" or (not served.failed and may_keep(state))
                    if kept and not abandoned:
                        recording.approve()  # the last step before the server stops and writes
                    else:
                        _note_discarded(state, served, cassette)
            finally:
                if signals:
                    state.stop_signals.give_back()

        state.unended.append(end)
        try:
            yield CommerceServer(address, exchanges)
        finally:
            end_after_teardown(state, end)


def _note_discarded(state: PluginState, served: Served, cassette: Path) -> None:
    """A recording discarded, named in the run's summary (ledger.py) and the log."""
    existed = cassette.exists()
    shown = _shown_path(state, str(cassette))
    why = served.why or "the run did not end well (interrupted)"
    state.discarded.append({"cassette": shown, "existed": existed, "why": why})
    log.warning("%s %s: %s", shown, "left as it was" if existed else "not created", why)


def _no_upstream(state: PluginState, cassette: Path) -> str:
    return (
        f"record mode {state.record_mode} needs an upstream to record {_shown_path(state, str(cassette))} "
        "from: --commerce-upstream URL, commerce_upstream in the ini file, --commerce-sandbox, or a "
        "commerce_upstream fixture (or --commerce-record-mode=none to replay only)"
    )


def _shown_path(state: PluginState, path: str) -> str:
    """A cassette's path as the user would type it: relative to the rootdir when it is below it."""
    try:
        return str(Path(path).relative_to(state.rootpath))
    except ValueError:
        return path


def _live_checker(state: PluginState, served: Served) -> LiveChecker | None:
    if state.conformance == "off":
        return None
    in_force = state.in_force()
    live = LiveChecker(Checker(in_force.ruleset, in_force.project.config, contract=state.contract()))
    # the plugin shows each finding once, in its summary
    live.follow(lambda checked: served.findings.extend(checked.findings), quiet=True)
    return live


def _whose(request: pytest.FixtureRequest) -> str:
    """The test (or module) a fixture's server is for, as pytest names it."""
    return str(request.node.nodeid)


@contextmanager
def _serving(
    state: PluginState, served: Served, build: Callable[[], Servable], ui: Opened | None = None
) -> Iterator[str]:
    """Serve what `build` makes until the scope ends; with `ui` (--commerce-ui), its address is shown
    once the server listens, and the UI is closed after the server stops, whatever stopping raised."""
    from proxy.server.background import BackgroundServer

    server = BackgroundServer(build)
    try:
        served.url = server.start()
    except (OSError, CommerceProxyError) as error:
        if ui is not None:
            ui.live.close()
        fail(f"commerce-proxy: cannot start a server for {served.cassette}: {error}")
    state.live.append(served)
    try:
        if ui is not None and state.ui is not None:
            state.ui.show(ui, served.url)
        yield served.url
    finally:
        state.live.remove(served)
        try:
            server.stop()
        finally:
            if ui is not None:
                ui.live.close()
