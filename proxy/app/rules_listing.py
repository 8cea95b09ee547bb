"""`rules` as a use case: every rule in force with its id, the severity the project config gives it and
the documentation sections it enforces, as one document (text, JSON, or the Markdown page the docs
show); one rule in full when named. Nothing is written: the adapter prints the document."""

from __future__ import annotations

from dataclasses import dataclass, field

from proxy.app.command_inputs import RuleChoice
from proxy.core.contract.findings import BY_ID as CONTRACT_RULES
from proxy.core.contract.findings import SECTIONS as CONTRACT_SECTIONS
from proxy.core.reports.rules_page import rule_detail, rules_json, rules_markdown, rules_table
from proxy.errors import UsageError


@dataclass(frozen=True, slots=True)
class RulesRequest:
    rule: str | None = None  # one rule in full; None: every rule
    format: str = "text"  # text, json or markdown (the page of all rules)
    rules: RuleChoice = field(default_factory=RuleChoice)


def rules_document(request: RulesRequest) -> str:
    """The document `rules` prints; a rule not in force, or Markdown of one rule, is a usage error."""
    in_force = request.rules.load()
    config = in_force.project.config
    ruleset = in_force.ruleset
    severity_of = {rule.id: str(config.severity(rule.id, rule.severity, "", "")) for rule in ruleset.rules}
    shown = sorted(ruleset.rules, key=lambda rule: rule.id)
    if request.rule is not None and request.rule in CONTRACT_RULES and request.format == "text":
        rule = CONTRACT_RULES[request.rule]  # the published specs' rules: in force with `--spec`
        detail = rule_detail(CONTRACT_SECTIONS, rule, str(config.severity(rule.id, rule.severity, "", "")))
        return detail.replace("the All rules page, under this rule's id", "the page on --spec (contract)")
    if request.rule is not None:
        if request.rule not in ruleset.by_id:
            raise UsageError(f"rules: no rule {request.rule!r}; `commerce-proxy rules` lists them")
        if request.format == "markdown":
            raise UsageError("rules: --format markdown writes the page of all rules; give no RULE")
        shown = [ruleset.by_id[request.rule]]
        if request.format == "text":
            return rule_detail(ruleset, shown[0], severity_of[request.rule])
    if request.format == "json":
        return rules_json(ruleset, shown, severity_of)
    if request.format == "markdown":
        return rules_markdown(ruleset, severity_of)
    return rules_table(ruleset, severity_of)
