"""The plugin's session state: its settings (from options, the ini file and CI) and the servers the
fixtures have running right now, each with the findings its traffic caused."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NoReturn, get_args

import pytest

from proxy.core.rules.findings import Finding
from proxy.pytest_plugin.modes import PluginMode
from proxy.pytest_plugin.signals import StopSignals
from proxy.pytest_plugin.ui import RunUi

if TYPE_CHECKING:  # the rules and the contract are loaded when a fixture first serves, not at load
    from proxy.app.project_rules import RulesInForce
    from proxy.core.contract.findings import ContractJudge
    from proxy.core.rules.config import Baseline

Conformance = Literal["off", "warn", "strict"]
CONFORMANCE: tuple[Conformance, ...] = get_args(Conformance)
COMMERCE_FIXTURES = frozenset(  # the fixtures that serve cassettes
    {"commerce_replay", "commerce_record", "commerce_replay_module", "commerce_record_module"}
)


@dataclass(slots=True)
class Served:
    """One server a fixture started: where it listens, what it serves, and what its traffic broke."""

    serial: int
    url: str
    cassette: Path
    action: str  # "replaying" or "recording"
    findings: list[Finding] = field(default_factory=list)
    failed: bool = False  # a test or the run did not end well while it served: not kept (unless asked)
    why: str = ""  # what did not end well, for the line saying the recording was discarded
    tests: set[str] = field(default_factory=set)  # the node ids of the tests that ran while it served


@dataclass(slots=True)
class PluginState:
    """The session's settings (from options, ini and CI) and the servers live right now."""

    record_mode: PluginMode
    conformance: Conformance
    upstream: str | None
    ca_bundle: Path | None
    cassette_dir: Path | None
    rootpath: Path
    fresh: bool = False
    upstream_option: str = "--commerce-upstream URL"  # how this run names its upstream, for remedies
    sandbox: bool = False  # --commerce-sandbox: the commerce_sandbox fixture is the upstream
    match_on: str | None = None  # --commerce-match-on: every test's, unless its marker says
    failed_recordings: str = "discard"
    overruled: str | None = None  # the record mode asked for, when CI made it none
    ci: str | None = None  # how the environment said CI (`CI=on`) when this run is CI's (modes.under_ci)
    unused: str = "warn"  # recordings a test never used: ignore, warn or fail
    ui: RunUi | None = None  # --commerce-ui: every server serves the UI
    usage: list[dict[str, Any]] = field(default_factory=list)  # each replay's use of its cassettes
    discarded: list[dict[str, Any]] = field(default_factory=list)  # each recording not written
    deselected: bool = False  # some collected tests were deselected: not a full run
    not_passed: int = 0  # tests using a commerce fixture that were skipped, failed or errored
    running: str | None = None  # the node id of the test running now (None between tests)
    live: list[Served] = field(default_factory=list)
    tearing_down: bool = False  # inside a test's teardown: the recordings it ends wait for all of it
    endings: list[Callable[[], None]] = field(default_factory=list)  # the recordings waiting for it
    unended: list[Callable[..., None]] = field(default_factory=list)  # each live recording's ending
    teardown_ran: bool = False  # the teardown now ending recordings ran through (endings.may_keep)
    loop_ran: bool = False  # the run's test loop ran to its end, no stop or interrupt (endings.may_keep)
    stop_signals: StopSignals = field(default_factory=StopSignals)  # SIGTERM/SIGHUP while recording
    serials: Iterator[int] = field(default_factory=itertools.count)
    specs: tuple[Path, ...] = ()  # --commerce-spec and commerce_specs: after the config's specs:
    overlays: tuple[Path, ...] = ()  # --commerce-overlay and commerce_overlays: after its overlays:
    _engine: RulesInForce | None = None
    _contract: tuple[ContractJudge | None] | None = None
    _baseline: Baseline | None = None

    def in_force(self) -> RulesInForce:
        """The rules and project config, found from the rootdir as `check` finds them (loaded once)."""
        if self._engine is None:
            from proxy.app.project_rules import project_rules

            self._engine = project_rules(self.rootpath)
        return self._engine

    def contract(self) -> ContractJudge | None:
        """The published specs every fixture's traffic is judged against too (read once), or None."""
        if self._contract is None:
            from proxy.app.contract_inputs import project_contract

            self._contract = (project_contract(self.in_force().project, self.specs, self.overlays),)
        return self._contract[0]

    def baseline(self) -> Baseline:
        """The findings the config's `baseline` file accepts (loaded once): as in `check`, they are
        counted, not reported, and fail no test."""
        if self._baseline is None:
            from proxy.app.project_rules import accepted_baseline

            self._baseline = accepted_baseline(self.in_force())
        return self._baseline

    def current_test(self) -> str | None:
        """The test running now, for the exchanges its fixtures' servers see."""
        return self.running

    def served(self, cassette: Path, action: str) -> Served:
        return Served(next(self.serials), "", cassette, action)


STATE = pytest.StashKey[PluginState]()


def fail(message: str) -> NoReturn:
    """Fail the fixture with one line (no traceback into the plugin), shown once: an error it
    explains is not printed again as its context ("During handling of the above exception")."""
    raise pytest.fail.Exception(message, pytrace=False) from None
