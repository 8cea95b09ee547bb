"""A check run: every exchange of some cassettes against the rules, into one `Report`.

Findings go to a spool as they are found (on disk past a limit) and the report is read from it piece
by piece, so memory does not grow with the number of findings; only a run that keeps whole cassettes
(for the HTML page, which shows every exchange) holds them. A large cached cassette is checked on two
cores. Used by `check`; anything that checks saved cassettes from code goes through here too.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Sequence
from contextlib import ExitStack, closing
from pathlib import Path
from types import TracebackType
from typing import Protocol

from proxy.app.two_core_check import check_stream
from proxy.core.cassette.document import Cassette
from proxy.core.contract.findings import RULES as CONTRACT_RULES
from proxy.core.contract.findings import ContractJudge
from proxy.core.model.exchange import Exchange
from proxy.core.redaction.redact import learn_secrets
from proxy.core.reports.finding_groups import FindingGroups
from proxy.core.reports.formats import CassetteResult, Report
from proxy.core.rules.config import Baseline
from proxy.core.rules.engine import Checker
from proxy.core.rules.findings import Finding
from proxy.store.cassette_reader.loading import Loaded, load_cassette
from proxy.store.cassette_reader.streaming import Streamed, stream_cassette
from proxy.store.finding_spool import FindingSpool
from proxy.store.rule_files import RulesInForce

BaselineKey = tuple[str, str, str, str]


class Progress(Protocol):
    """What a run tells whoever shows its progress."""

    def reading(self, number: int, path: Path) -> None: ...
    def checking(self, exchanges: int) -> None: ...
    def advance(self, done: int) -> None: ...


class Silent:
    """Progress nobody watches."""

    def reading(self, number: int, path: Path) -> None:
        pass

    def checking(self, exchanges: int) -> None:
        pass

    def advance(self, done: int) -> None:
        pass


class CheckRun:
    """One run over some cassette files. A context manager: the findings spool lives until the report
    built from it has been written."""

    def __init__(
        self,
        in_force: RulesInForce,
        baseline: Baseline | None = None,
        *,
        keep_exchanges: bool = False,
        accepting: bool = False,
        on_note: Callable[[str], None] = lambda note: None,
        contract: ContractJudge | None = None,
    ) -> None:
        """`keep_exchanges`: hold every cassette whole (`loaded`); `accepting`: only collect the
        baseline keys of what is found (`accepted_keys`), as `--write-baseline` does; `on_note`: told
        what reading a cassette noticed (a journal folded in, a cache rebuilt) before it is checked;
        `contract`: the published specs each exchange is judged against too (`--spec`)."""
        self.in_force = in_force
        self.contract = contract
        self.baseline = baseline or Baseline()
        self.keep_exchanges = keep_exchanges
        self.accepting = accepting
        self.loaded: list[Loaded] = []
        self.on_note = on_note
        self.accepted_keys: set[BaselineKey] = set()  # distinct, so bounded
        self._cleanup = ExitStack()

    def __enter__(self) -> CheckRun:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self._cleanup.close()

    def check(self, files: Sequence[Path], progress: Progress | None = None) -> Report:
        """Check `files` in order; the report reads its findings from this run's spools."""
        progress = progress or Silent()
        config = self.in_force.project.config
        results: list[CassetteResult] = []
        for number, file in enumerate(files):
            progress.reading(number, file)
            if self.keep_exchanges:
                one = load_cassette(file)
                self.loaded.append(one)
                streamed = Streamed(one.path, iter(one.cassette.exchanges), one.notes)
                progress.checking(len(one.cassette.exchanges))
                # Loaded cassettes live until exit: keep the cyclic collector from rescanning them
                # while the rules allocate.
                gc.freeze()
            else:  # one exchange at a time: memory does not grow with the cassette
                streamed = stream_cassette(file)
                progress.checking(0)  # how many is known only at the end
            for note in streamed.notes:
                self.on_note(note)
            # A credential the cassette holds (written by hand, or by another tool) is kept out of the
            # report as `record` and `spy` keep theirs: the report is scrubbed by the book at writing.
            exchanges = learn_secrets(streamed.exchanges, self.in_force.project.redaction)
            spool = (
                FindingGroups()
                if self.keep_exchanges
                else self._cleanup.enter_context(closing(FindingSpool()))
            )
            checker = Checker(
                self.in_force.ruleset, config, cassette=str(streamed.path), contract=self.contract
            )
            if self.keep_exchanges:  # the page marks each exchange no rule judged
                checker.unjudged.mark_exchanges()
            taken = _Taken(spool, self.baseline, self.accepted_keys if self.accepting else None)
            if self.keep_exchanges:
                checker.check_into(exchanges, taken, progress.advance)
            else:  # a large cached cassette is checked on two cores (the child learns its own part)
                policy = self.in_force.project.redaction
                check_stream(checker, streamed.path, exchanges, progress.advance, taken, policy)
            results.append(
                CassetteResult(str(streamed.path), checker.checked, spool, taken.accepted, checker.unjudged)
            )
        off = frozenset(
            rule.id for rule in self.in_force.ruleset.rules if not config.may_apply(rule.id, rule.severity)
        )
        rules = self.in_force.ruleset.rules + (CONTRACT_RULES if self.contract is not None else ())
        return Report(results, rules, off)

    @property
    def exchanges(self) -> list[tuple[Exchange, ...]]:
        """Each kept cassette's exchanges, in the order of the report's cassettes."""
        return [one.cassette.exchanges for one in self.loaded]


class _Taken:
    """Where each exchange's findings go: the spool, or the baseline's count of accepted ones; when
    accepting, only their keys."""

    def __init__(self, spool: FindingGroups, baseline: Baseline, keys: set[BaselineKey] | None) -> None:
        self.spool, self.baseline, self.keys = spool, baseline, keys
        self.accepted = 0

    def __call__(self, findings: list[Finding]) -> None:
        if self.keys is not None:
            self.keys.update(finding.baseline_key for finding in findings)
            return
        for finding in findings:
            if self.baseline.accepts(finding):
                self.accepted += 1
            else:
                self.spool.add(finding)


def check_cassette(in_force: RulesInForce, cassette: Cassette, name: str) -> list[Finding]:
    """Every finding of one cassette held in memory (an edit's result, an import)."""
    return Checker(in_force.ruleset, in_force.project.config, cassette=name).check_all(cassette.exchanges)
