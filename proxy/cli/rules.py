"""`rules`: every rule with its id, the severity in force and the documentation section it enforces."""

from __future__ import annotations

import argparse
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
    from proxy.app.rules_listing import RulesRequest, rules_document
    from proxy.cli.inputs import rule_choice

    write_document(rules_document(RulesRequest(arguments.rule, arguments.format, rule_choice(arguments))))
    return 0
