"""The conformance in_force: every applicable rule run over each exchange, in order, one session each.

Used alike by `check` on saved cassettes and by the live proxy; both give exchanges in the order they
happened so the stateful rules (update semantics, ETag history, sort+filter walks) see history.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol, TypeAlias

from proxy.core.model.exchange import Exchange
from proxy.core.rules.checks import CHECKS, OBSERVERS
from proxy.core.rules.checks.context import CheckContext
from proxy.core.rules.checks.registry import CheckFunction
from proxy.core.rules.checks.session import Session
from proxy.core.rules.checks.shaped import shape_document
from proxy.core.rules.config import RuleConfig
from proxy.core.rules.endpoints import EndpointHit
from proxy.core.rules.findings import OFF, Finding, FindingsLog, Violation
from proxy.core.rules.path_shapes import path_shape
from proxy.core.rules.ruleset import Rule, RuleSet
from proxy.core.rules.unjudged import Reason, Unjudged, UnjudgedTally

log = logging.getLogger(__name__)
# Info findings (an undocumented endpoint...) are routine: `--quiet` hides them, not warnings or errors.
PROGRESS_EVERY = 256
LOG_LEVELS = {"error": logging.ERROR, "warning": logging.WARNING, "info": logging.INFO}
Step: TypeAlias = tuple[Rule, CheckFunction, Mapping[str, Any]]


class Plan(NamedTuple):
    """The steps for one kind of exchange; `quiet` leaves out the shape rules, which find nothing when
    every document in `shapes` conforms (the usual case: ten of a list page's thirty rules). A kind is
    its endpoint groups, its status class, and which of the query parameters checks need it sends: a
    check needing none of those is left out (the sort, filter and total method checks, on most pages)."""

    steps: tuple[Step, ...]
    quiet: tuple[Step, ...]
    shapes: tuple[tuple[str, str], ...]
    judging: tuple[Rule, ...]  # the rules among the steps that judge the answer (see `answer_rule`)
    answering: frozenset[str]  # their ids
    requesting: frozenset[str]  # the ids of the steps' rules that judge the request (`request_rule`)


class ContractVerdict(Protocol):
    """What the contract made of one exchange (`proxy.core.contract.findings.Verdict`)."""

    @property
    def known(self) -> bool: ...

    @property
    def findings(self) -> list[Finding]: ...


class ContractJudging(Protocol):
    """The published specs a checker judges each exchange against too (`proxy.core.contract.findings
    .ContractJudge`): told whether the documented rules know the operation (they win over the spec)."""

    def verdict(
        self,
        exchange: Exchange,
        index: int,
        documented: bool,
        severity: Callable[[str, Any, str, str], Any],
        cassette: str | None,
    ) -> ContractVerdict: ...


CONTRACT_PREFIX = "contract."  # the published specs' rules (proxy.core.contract.findings)
UNDOCUMENTED_NOTE = "undocumented_endpoint"  # the check of the note a spec's operation no longer gets


class Checker:
    """Checks one stream of exchanges (a cassette, or a live session) against a rule set, and against
    the published specs when a `contract` is given."""

    def __init__(
        self,
        ruleset: RuleSet,
        config: RuleConfig | None = None,
        cassette: str | None = None,
        session: Session | None = None,
        contract: ContractJudging | None = None,
    ) -> None:
        self.ruleset = ruleset
        self.contract = contract
        self.config = config or RuleConfig()
        self.cassette = cassette
        self.session = session or Session(
            page_lengths=self.config.default_page_lengths, freshness=self.config.freshness()
        )
        self._plans: dict[tuple[frozenset[str], bool, int, frozenset[str]], Plan] = {}
        self._needed = frozenset().union(*(spec.needs for spec in CHECKS.values()))
        self.checked = 0  # exchanges `check_all` went through (a stream's length is known at its end)
        self._active = {rule.id for rule in ruleset.rules if self.config.may_apply(rule.id, rule.severity)}
        self.unjudged = UnjudgedTally()  # every checked exchange no rule about the answer judged
        self.verdict: Unjudged | None = None  # the last checked exchange's
        self._offs_by_endpoint = any(
            override.endpoint is not None and override.severity == OFF for override in self.config.overrides
        )

    def check(self, exchange: Exchange, index: int) -> list[Finding]:
        """The findings of one exchange; remembers what later exchanges are compared with."""
        context = self._context(exchange, index)
        findings: list[Finding] = []
        plan = self._plan(context.hit, exchange.response.status, self._needed.intersection(context.query))
        steps = plan.quiet
        for shape, document in plan.shapes:
            if context.shape_violations(shape, document):
                steps = plan.steps
                break
        for rule, function, params in steps:
            violations = function(context, params)
            first = next(violations, None)  # most find nothing: no list is made for them
            if first is not None:
                findings.extend(self._findings(rule, [first, *violations], exchange, index))
        self._remember(context)
        known = False
        if self.contract is not None:
            findings, known = self._with_contract(findings, exchange, index, context.hit.documented)
        reported = {finding.rule for finding in findings}
        self.verdict = None if known else self._unjudged(exchange, context.hit, plan, reported)
        if self.verdict is not None:
            self.unjudged.add(self.verdict, exchange=index)
        return findings

    def _with_contract(
        self, findings: list[Finding], exchange: Exchange, index: int, documented: bool
    ) -> tuple[list[Finding], bool]:
        """The contract's findings added; an operation a spec knows is judged by it, so the note that
        it is not checked goes (one note of an operation nobody knows stays the rules')."""
        assert self.contract is not None
        verdict = self.contract.verdict(exchange, index, documented, self.config.severity, self.cassette)
        if not verdict.known:
            return findings, False
        kept = [
            finding
            for finding in findings
            if (rule := self.ruleset.by_id.get(finding.rule)) is None or rule.check != UNDOCUMENTED_NOTE
        ]
        return [*kept, *verdict.findings], True

    def _unjudged(
        self, exchange: Exchange, hit: EndpointHit, plan: Plan, reported: set[str]
    ) -> Unjudged | None:
        """Why no rule about the answer judged this exchange, or None when one did. Judged, whatever
        else holds: an exchange a rule about the answer reported on, and a refusal (4xx) of a request
        a rule about the request found breaking a documented rule (the refusal is what the
        documentation expects). Else, in order: an operation the documentation does not describe (and
        no rule of the project names), an answer no active answer rule looks at (an error, a redirect:
        most rules judge success answers only; or every rule is turned off, everywhere or for this
        endpoint), a success answer whose body is not JSON (the documented operations answer JSON).
        docs/checking.md says the same."""
        request, status = exchange.request, exchange.response.status
        if reported and (
            not plan.answering.isdisjoint(reported)
            or (400 <= status < 500 and not plan.requesting.isdisjoint(reported))
        ):
            return None
        if not hit.documented:
            if plan.judging:
                return None
            known = not hit.groups.isdisjoint(self.ruleset.groups)
            reason: Reason = "not-documented" if known else "undocumented"
            return Unjudged(
                reason, path_shape(request.method, request.path, self.ruleset.index), status, False
            )
        success = 200 <= status < 300
        if not plan.judging:
            reason = "rules-off" if success else "error" if status >= 400 else "status"
        elif self._offs_by_endpoint and all(
            self.config.severity(rule.id, rule.severity, request.method, request.path) == OFF
            for rule in plan.judging
        ):
            reason = "rules-off"
        elif success and exchange.response.body.kind != "json":
            reason = "not-json"
        else:
            return None
        return Unjudged(reason, self.operation(request.method, request.path, hit), status, True)

    def operation(self, method: str, path: str, hit: EndpointHit) -> str:
        """How reports name the documented operation a request hit: its group's title and pattern
        ("update a feature (PUT /v2/subscriptions/features/{feature_uuid})"), or the pattern alone."""
        for name, group in self.ruleset.groups.items():
            if name not in hit.groups or not group.documented:
                continue
            for pattern in group.patterns:
                if pattern.match(method, path) is not None:
                    return f"{group.title} ({pattern})" if group.title else str(pattern)
        return path_shape(method, path, self.ruleset.index)

    def observe(self, exchange: Exchange, index: int) -> None:
        """Remember what `check` would remember of this exchange, without checking it: a checker that
        takes a stream over from its middle catches up on the history before it this way."""
        self._remember(self._context(exchange, index))

    def remembers(self, method: str, path: str, query: str) -> bool:
        """Whether `observe` would do anything with an exchange of this request: one catching up can
        pass over the others without reading them."""
        hit = self.ruleset.index.lookup(method, path)
        return any(watched.watches(method, path, hit, query) for watched in OBSERVERS)

    def _remember(self, context: CheckContext) -> None:
        request = context.exchange.request
        for watched in OBSERVERS:
            if watched.watches(request.method, request.path, context.hit, request.query):
                watched.remember(context)

    def _context(self, exchange: Exchange, index: int) -> CheckContext:
        request = exchange.request
        hit = self.ruleset.index.lookup(request.method, request.path)
        return CheckContext(exchange, index, hit, self.session, self.ruleset.shapes)

    def _plan(self, hit: EndpointHit, status: int, sent: frozenset[str]) -> Plan:
        """The active rules for these endpoint groups, this status class and these query parameters
        sent (of those checks need), with their check functions and parameters, worked out once: the
        loop over them runs some thirty times per exchange."""
        key = (hit.groups, hit.documented, status // 100, sent)
        found = self._plans.get(key)
        if found is None:
            specs = [(rule, CHECKS[rule.check]) for rule in self.ruleset.rules_for(hit)]
            steps = tuple(
                (rule, spec.function, rule.params)
                for rule, spec in specs
                if rule.id in self._active and rule.answers(status) and (not spec.needs or spec.needs & sent)
            )
            shapes = [shape_document(rule.check, params) for rule, _, params in steps]
            quiet = tuple(step for step, shape in zip(steps, shapes, strict=True) if shape is None)
            documents = tuple(dict.fromkeys(shape for shape in shapes if shape is not None))
            judging = tuple(rule for rule, _, _ in steps if answer_rule(rule))
            answering = frozenset(rule.id for rule in judging)
            requesting = frozenset(rule.id for rule, _, _ in steps if request_rule(rule))
            found = self._plans[key] = Plan(steps, quiet, documents, judging, answering, requesting)
        return found

    def _findings(
        self, rule: Rule, violations: Iterable[Violation], exchange: Exchange, index: int
    ) -> list[Finding]:
        request = exchange.request
        severity = self.config.severity(rule.id, rule.severity, request.method, request.path)
        if severity == "off":
            return []
        return [
            Finding(
                exchange=index,
                method=request.method,
                path=request.path,
                target=request.target,
                rule=rule.id,
                severity=severity,
                section=rule.section,
                message=rule.describe(violation),
                where=violation.where,
                expected=violation.expected,
                found=violation.found,
                cassette=self.cassette,
            )
            for violation in violations
        ]

    def check_all(
        self, exchanges: Iterable[Exchange], progress: Callable[[int], None] | None = None, first: int = 0
    ) -> list[Finding]:
        """The findings of a whole cassette, its exchanges numbered from `first` (0: the whole stream);
        `progress` hears how many are done every PROGRESS_EVERY exchanges."""
        findings: list[Finding] = []
        self.check_into(exchanges, findings.extend, progress, first)
        return findings

    def check_into(
        self,
        exchanges: Iterable[Exchange],
        take: Callable[[list[Finding]], None],
        progress: Callable[[int], None] | None = None,
        first: int = 0,
    ) -> None:
        """`check_all`, each exchange's findings handed to `take` as they are found, none kept here."""
        for index, exchange in enumerate(exchanges, start=first):
            found = self.check(exchange, index)
            if found:
                take(found)
            self.checked = index + 1
            if progress is not None and index % PROGRESS_EVERY == 0:
                progress(index + 1)


def answer_rule(rule: Rule) -> bool:
    """Whether a rule judges the service's answer: its check does (not only the request, the
    recording, or a note of what cannot be checked), and a shape rule judges the response document."""
    shape = shape_document(rule.check, rule.params)
    if shape is not None:
        return shape[1] == "response"
    return CHECKS[rule.check].judges == "answer"


def request_rule(rule: Rule) -> bool:
    """Whether a rule judges the client's request against the documentation (the bearer token, the
    page parameters, the update payload): a 4xx answer to a request it reported on is a refusal the
    documentation expects, so that exchange was judged."""
    shape = shape_document(rule.check, rule.params)
    if shape is not None:
        return shape[1] == "request"
    return CHECKS[rule.check].judges == "request"


@dataclass(frozen=True, slots=True)
class Checked:
    """One exchange as a follower of a live checker sees it (`follow_findings`): its number in the
    session, the exchange as recorded (redacted), and its findings (often none)."""

    sequence: int
    exchange: Exchange
    findings: list[Finding]
    line: bytes | None = None  # its journal line, when it has one: what a follower holding it keeps
    # What the checker's process made of it for a follower beside the findings (the UI's index row and
    # detail, `app/checker_entries.py`), when asked to: opaque here.
    made: object = None


Listener = Callable[[Checked], None]  # told of each exchange checked (`follow_findings`)


class LiveChecker:
    """Checking traffic as it flows (record, spy, replay --check, the pytest plugin, the addon).

    Each exchange's findings are logged as one line, kept in a bounded log for GET /_proxy/findings,
    and handed to listeners (the pytest plugin files them under the test that caused them).
    """

    def __init__(self, checker: Checker, kept: int = 1000) -> None:
        self.checker = checker
        self.log = FindingsLog(kept)
        self.listeners: list[Listener] = []  # added by `follow`
        self.logged = True  # one log line a finding, unless a follower shows them itself

    @property
    def unjudged(self) -> UnjudgedTally:
        """The exchanges checked so far that no rule about the answer judged."""
        return self.checker.unjudged

    def check(self, exchange: Exchange, sequence: int, encoded: bytes | None = None) -> list[Finding]:
        """Check one exchange (already redacted), report its findings and return them (`encoded`, its
        journal line, is for checkers in another process)."""
        findings = self.checker.check(exchange, sequence)
        self.report(Checked(sequence, exchange, findings))
        return findings

    def report(self, checked: Checked) -> None:
        report_findings(self, checked)

    def follow(self, listener: Listener, *, quiet: bool = False) -> None:
        """`follow_findings` on this checker."""
        follow_findings(self, listener, quiet=quiet)


class LiveChecking(Protocol):
    """What a live proxy checks with: in its own process (LiveChecker) or another one."""

    log: FindingsLog
    listeners: list[Listener]
    logged: bool

    @property
    def unjudged(self) -> UnjudgedTally: ...

    def check(self, exchange: Exchange, sequence: int, encoded: bytes | None = None) -> list[Finding]: ...

    def follow(self, listener: Listener, *, quiet: bool = False) -> None: ...


def follow_findings(live: LiveChecking, listener: Listener, *, quiet: bool = False) -> None:
    """The one way to follow a live checker (the pytest plugin, a live report, a live UI): `listener`
    is told of each exchange checked, with its findings, as they come, in the order the exchanges were
    checked. `quiet`: the follower shows the findings itself, so they are no longer logged one line
    each."""
    live.listeners.append(listener)
    if quiet:
        live.logged = False


def report_findings(live: LiveChecking, checked: Checked, *, logged: bool | None = None) -> None:
    """Log each finding of one exchange as one line as it happens (unless `live.logged` is off, or
    `logged` says the caller writes them itself: `finding_lines`), keep it, and tell the listeners."""
    findings = checked.findings
    live.log.add(findings)
    if findings and (live.logged if logged is None else logged):
        log_findings(findings)
    for listener in live.listeners:
        listener(checked)


def log_findings(findings: Sequence[Finding]) -> None:
    """One log line a finding, at its severity's level: the live checker's words."""
    for finding in findings:
        log.log(LOG_LEVELS[finding.severity], "%s", finding_line(finding))


def finding_lines(findings: Sequence[Finding]) -> list[str]:
    """The lines `log_findings` would log at the findings' logger's level now, for a caller that writes
    them itself (a batch at once)."""
    return [finding_line(one) for one in findings if log.isEnabledFor(LOG_LEVELS[one.severity])]


def finding_line(finding: Finding) -> str:
    """A finding as its log line says it (`log_findings`; the checker process writes the same)."""
    # a spec's finding says where the spec says so, as `check` does (`spec:`)
    spec = f" (spec: {finding.section})" if finding.rule.startswith(CONTRACT_PREFIX) else ""
    return (
        f"{finding.severity} {finding.rule} {finding.number} {finding.method} {finding.target}: "
        f"{finding.message}{spec}"
    )
