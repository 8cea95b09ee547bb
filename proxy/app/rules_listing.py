"""`rules` as a use case: every rule in force with its id, the severity the project config gives it and
the documentation sections it enforces, as one document (text, JSON, or the Markdown page the docs
show); one rule in full when named. The published specs' rules (`contract.*`) are listed beside
them. Nothing is written: the adapter prints the document."""

from __future__ import annotations

from dataclasses import dataclass, field

from proxy.app.command_inputs import RuleChoice
from proxy.core.contract.findings import RULES as CONTRACT_RULES
from proxy.core.contract.findings import SECTIONS as CONTRACT_SECTIONS
from proxy.core.reports.rules_page import rule_detail, rules_json, rules_markdown, rules_table
from proxy.core.rules.ruleset import RuleSet
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
    ruleset = listed(in_force.ruleset)
    severity_of = {rule.id: str(config.severity(rule.id, rule.severity, "", "")) for rule in ruleset.rules}
    shown = sorted(ruleset.rules, key=lambda rule: rule.id)
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


def listed(ruleset: RuleSet) -> RuleSet:
    """The rules `rules` lists: those of the rule folder, then the published specs' (`contract.*`, in
    force with `--spec`), each with the sections it cites."""
    return RuleSet(
        (*ruleset.rules, *CONTRACT_RULES),
        ruleset.groups.values(),
        ruleset.shapes,
        (*ruleset.sections, *CONTRACT_SECTIONS),
    )
