"""The conformance engine: every applicable rule run over each exchange, in order, one session each.

Used alike by `check` on saved cassettes and by the live proxy; both give exchanges in the order they
happened so the stateful rules (update semantics, ETag history, sort+filter walks) see history.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from proxy.core.checks import CHECKS, OBSERVERS
from proxy.core.checks.context import CheckContext
from proxy.core.checks.session import Session
from proxy.core.endpoints import EndpointHit
from proxy.core.exchange import Exchange
from proxy.core.findings import Finding, Violation
from proxy.core.rule_config import RuleConfig
from proxy.core.ruleset import Rule, RuleSet

log = logging.getLogger(__name__)


class Checker:
    """Checks one stream of exchanges (a cassette, or a live session) against a rule set."""

    def __init__(
        self,
        ruleset: RuleSet,
        config: RuleConfig | None = None,
        cassette: str | None = None,
        session: Session | None = None,
    ) -> None:
        self.ruleset = ruleset
        self.config = config or RuleConfig()
        self.cassette = cassette
        self.session = session or Session()
        self._rule_memo: dict[tuple[frozenset[str], bool, int], tuple[Rule, ...]] = {}
        self._active = {rule.id for rule in ruleset.rules if self.config.may_apply(rule.id, rule.severity)}

    def check(self, exchange: Exchange, index: int) -> list[Finding]:
        """The findings of one exchange; remembers what later exchanges are compared with."""
        request = exchange.request
        hit = self.ruleset.index.lookup(request.method, request.path)
        context = CheckContext(exchange, index, hit, self.session, self.ruleset.shapes)
        findings: list[Finding] = []
        for rule in self._rules_for(hit, exchange.response.status):
            violations = list(CHECKS[rule.check].function(context, rule.params))
            if violations:
                findings.extend(self._findings(rule, violations, exchange, index))
        for remember in OBSERVERS:
            remember(context)
        return findings

    def _rules_for(self, hit: EndpointHit, status: int) -> tuple[Rule, ...]:
        """The active rules for these endpoint groups and this status class, worked out once."""
        key = (hit.groups, hit.documented, status // 100)
        found = self._rule_memo.get(key)
        if found is None:
            found = tuple(
                rule
                for rule in self.ruleset.rules_for(hit)
                if rule.id in self._active and rule.answers(status)
            )
            self._rule_memo[key] = found
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

    def check_all(self, exchanges: Iterable[Exchange]) -> list[Finding]:
        """The findings of a whole cassette, its exchanges numbered from 0."""
        findings: list[Finding] = []
        for index, exchange in enumerate(exchanges):
            findings.extend(self.check(exchange, index))
        return findings
