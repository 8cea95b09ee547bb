"""`rules`: every rule with its id, the severity in force and the documentation section it enforces."""

from __future__ import annotations

import argparse
import json
from typing import Any

from proxy.cli import options
from proxy.cli.output import write_document


def add_to(commands: Any, common: argparse.ArgumentParser) -> None:
    rules = commands.add_parser(
        "rules", parents=[common], help="list every rule: id, severity, documentation"
    )
    rules.add_argument(
        "rule",
        nargs="?",
        metavar="RULE",
        help="show this rule in full: what it checks and what its documentation sections require",
    )
    rules.add_argument(
        "--format",
        choices=("text", "json", "markdown"),
        default="text",
        help="markdown: the page of all rules the docs show (docs/rules.md)",
    )
    options.add_rule_options(rules)
    rules.set_defaults(run=run)


def run(arguments: argparse.Namespace) -> int:
    """`rules`: every rule with its id, the severity in force and its documentation section."""
    from proxy.cli.inputs import load_rules_in_force
    from proxy.core.reports.rules_page import rule_detail, rules_markdown, rules_table
    from proxy.core.rules.citation import rule_command
    from proxy.errors import UsageError

    engine = load_rules_in_force(arguments)
    config = engine.project.config
    ruleset = engine.ruleset
    severity_of = {rule.id: str(config.severity(rule.id, rule.severity, "", "")) for rule in ruleset.rules}
    shown = sorted(ruleset.rules, key=lambda rule: rule.id)
    if arguments.rule is not None:
        if arguments.rule not in ruleset.by_id:
            raise UsageError(f"rules: no rule {arguments.rule!r}; `commerce-proxy rules` lists them")
        if arguments.format == "markdown":
            raise UsageError("rules: --format markdown writes the page of all rules; give no RULE")
        shown = [ruleset.by_id[arguments.rule]]
        if arguments.format == "text":
            write_document(rule_detail(ruleset, shown[0], severity_of[arguments.rule]))
            return 0
    if arguments.format == "json":
        document = [
            {
                "id": rule.id,
                "severity": severity_of[rule.id],
                "default_severity": rule.severity,
                "section": rule.section,
                "docs": rule_command(rule.id),
                "sections": [
                    {"title": section.title, "requires": section.requires}
                    for section in ruleset.sections_of(rule)
                ],
                "description": rule.description,
                "example": rule.example,
                "check": rule.check,
                "applies_to": list(rule.applies_to),
                "responses": rule.responses,
                "source": rule.source,
            }
            for rule in shown
        ]
        write_document(json.dumps({"rules": document}, indent=2) + "\n")
        return 0
    if arguments.format == "markdown":
        write_document(rules_markdown(ruleset, severity_of))
        return 0
    write_document(rules_table(ruleset, severity_of))
    return 0
