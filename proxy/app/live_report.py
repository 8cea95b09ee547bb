"""The verdict of a live session (`record`, `spy`): every finding of the run as one `Report` at stop,
the one `check` writes, and whether it fails the run (`--fail-on`).

The live log behind `/_proxy/findings` keeps only the latest findings; a report holds all of them. So
this listens to the session's checker (in this process or the check worker's child) and files each
finding in a spool (on disk past a limit), leaving out what the project's baseline accepts, as `check`
does; the checker counts the exchanges no rule about the answer judged. The report is read after the
session's finish, which waits until the checker has answered for every exchange handed over: no
finding of the run is left out.
"""

from __future__ import annotations

from contextlib import closing
from types import TracebackType
from typing import Literal

from proxy.app.recording import RecordingSession
from proxy.core.contract.findings import RULES as CONTRACT_RULES
from proxy.core.model.exchange import Exchange
from proxy.core.reports.formats import CassetteResult, Report
from proxy.core.rules.config import Baseline, RuleConfig
from proxy.core.rules.engine import Checked
from proxy.core.rules.ruleset import RuleSet
from proxy.core.rules.unjudged import UnjudgedTally
from proxy.store.finding_spool import FindingSpool

FailOn = Literal["error", "warning"]


class LiveReport:
    """The findings of one live session, collected as they come. A context manager: the spool lives
    until the report built from it has been written."""

    def __init__(
        self,
        ruleset: RuleSet,
        config: RuleConfig,
        baseline: Baseline,
        name: str,
        keep_exchanges: bool = False,
        contract: bool = False,
    ) -> None:
        """`name`: what the report calls the session (the cassette, or the upstream for `spy`);
        `keep_exchanges`: hold every exchange for the HTML page, which shows them all; `contract`:
        published specs are judged against too (their rules are in force)."""
        self.ruleset, self.config, self.baseline, self.name = ruleset, config, baseline, name
        self.keep_exchanges = keep_exchanges
        self.contract = contract
        self.spool = FindingSpool()
        self.accepted = 0
        self.session: RecordingSession | None = None

    def __enter__(self) -> LiveReport:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        with closing(self.spool):
            pass

    def attach(self, session: RecordingSession) -> None:
        """Listen to `session`'s checker from its first exchange on."""
        self.session = session
        if session.live is not None:
            session.live.follow(self._take)
        if self.keep_exchanges:
            session.kept = []
            if session.live is not None:  # the page marks each exchange no rule judged
                session.live.unjudged.mark_exchanges()

    def _take(self, checked: Checked) -> None:
        for finding in checked.findings:
            if self.baseline.accepts(finding):
                self.accepted += 1
            else:
                self.spool.add(finding)

    def report(self) -> Report:
        """Everything found so far; complete once the session has finished."""
        checked = self.session.checked if self.session is not None else 0
        live = self.session.live if self.session is not None else None
        unjudged = live.unjudged if live is not None else UnjudgedTally()
        result = CassetteResult(self.name, checked, self.spool, self.accepted, unjudged)
        rules = self.ruleset.rules + (CONTRACT_RULES if self.contract else ())
        config = self.config
        off = frozenset(rule.id for rule in rules if not config.may_apply(rule.id, rule.severity))
        return Report([result], rules, off)

    @property
    def exchanges(self) -> list[tuple[Exchange, ...]]:
        """The session's exchanges, numbered as its findings number them (after the cassette's own)."""
        session = self.session
        if session is None:
            return [()]
        before = session.base.exchanges if session.settings.cassette is not None else ()
        return [tuple(before) + tuple(session.kept or ())]


def fails(report: Report, fail_on: FailOn | None) -> bool:
    """Whether the run fails: an error found (`error`), or an error or a warning (`warning`); never
    without `fail_on`."""
    if fail_on is None:
        return False
    counts = report.counts()
    return counts["error"] > 0 or (fail_on == "warning" and counts["warning"] > 0)
