"""`commerce-proxy rules`: every rule in force, as a table for people, and as the docs page of all rules.

The page says, for each rule, what it means in plain words, the documentation section it enforces
(linked to what that section requires, in the project's own words) and what a violation reports.
Written from the rule files alone, so editing a rule file and regenerating is the whole change.
"""

from __future__ import annotations

import textwrap
from collections import defaultdict
from collections.abc import Sequence

from proxy.core.reports.escaping import json_text, markdown_cell
from proxy.core.rules.citation import (
    cited_as,
    cited_parts,
    rule_anchor,
    rule_command,
    section_anchor,
    section_label,
    sections_cited,
)
from proxy.core.rules.ruleset import Rule, RuleSet, Section

RULE_FAMILIES = {
    "auth": "Authentication",
    "contract": "The published OpenAPI specs (with --spec)",
    "coverage": "What the documentation does not cover",
    "entry": "Custom API entries",
    "feature": "Subscription features",
    "pagination": "Paginated lists",
}


def rules_table(rules: RuleSet, severity_of: dict[str, str]) -> str:
    """`commerce-proxy rules`: id, severity in force, and documentation section, one rule a line; then
    what each cited section requires, in the project's own words."""
    width = max((len(rule.id) for rule in rules.rules), default=10)
    lines = [f"{'RULE':<{width}}  {'SEVERITY':<8}  DOCUMENTATION"]
    for rule in sorted(rules.rules, key=lambda rule: rule.id):
        lines.append(f"{rule.id:<{width}}  {severity_of[rule.id]:<8}  {_cited(rule)}")
    cited = dict.fromkeys(section for rule in rules.rules for section in rules.sections_of(rule))
    if cited:
        lines += ["", "WHAT THE DOCUMENTATION REQUIRES"]
        for section in (section for section in rules.sections if section in cited):
            lines += ["", f"§ {section.title}", *_wrapped(section.requires)]
    lines += [
        "",
        "`commerce-proxy rules RULE` shows one rule in full; so does the docs site's All rules page.",
    ]
    return "\n".join(lines) + "\n"


def rule_detail(rules: RuleSet, rule: Rule, severity: str) -> str:
    """`commerce-proxy rules RULE`: the rule in full, with what each section it cites requires."""
    shipped = "" if severity == rule.severity else f"; shipped as {rule.severity}"
    lines = [f"{rule.id}  ({severity}{shipped})", ""]
    if rule.description:
        lines += [*_wrapped(rule.description, "")]
    spec = cited_as(rule.id) == "spec"  # the published specs' rules cite a spec's place, not a section
    lines += ["", f"Spec: {rule.section}" if spec else f"Documentation: {section_label(rule.section)}"]
    for part, section in zip(cited_parts(rule.section), _sections_by_part(rules, rule), strict=True):
        lines += ["", part if spec else f"§ {part}"]
        lines += (
            _wrapped(section.requires) if section else ["  (the project ships no summary of this section)"]
        )
    if rule.example:
        lines += ["", "A violation reports:", *_wrapped(rule.example)]
    lines += ["", "In the docs site: the All rules page, under this rule's id."]
    return "\n".join(lines) + "\n"


def _cited(rule: Rule) -> str:
    """The documentation sections a rule cites, or for a published spec's rule, its spec place."""
    return f"spec: {rule.section}" if cited_as(rule.id) == "spec" else section_label(rule.section)


def _sections_by_part(rules: RuleSet, rule: Rule) -> list[Section | None]:
    return sections_cited(rule.section, rules.sections)


def _wrapped(text: str, indent: str = "  ") -> list[str]:
    return textwrap.wrap(text, width=100, initial_indent=indent, subsequent_indent=indent) or [indent]


def rules_markdown(rules: RuleSet, severity_of: dict[str, str]) -> str:
    """The docs page: an index table per family, each rule's entry, then the documentation sections."""
    lines = [
        "# All rules",
        "",
        "Written by `commerce-proxy rules --format markdown` from the rule files: edit those, not this",
        "page. Severities are the shipped defaults; the project config changes them (see",
        "[Configuration](configuration.md)). Each rule links to",
        "[what the documentation requires](#what-the-documentation-requires), section by section;",
        "[the documentation, row by row](documentation-map.md) goes the other way. The `contract.*`",
        "rules judge traffic against the published OpenAPI specs given with `--spec` (see",
        "[Checking against the published OpenAPI specs](contract.md)).",
    ]
    by_family: dict[str, list[Rule]] = defaultdict(list)
    for rule in sorted(rules.rules, key=lambda rule: rule.id):
        by_family[rule.id.split(".")[0]].append(rule)
    for family, members in by_family.items():
        lines += ["", f"## {RULE_FAMILIES.get(family, family)}", "", "| rule | severity | what it checks |"]
        lines.append("|---|---|---|")
        for rule in members:
            statement = rule.message.split(": {", 1)[0]
            link = f"[`{rule.id}`](#{rule_anchor(rule.id)})"
            lines.append(f"| {link} | {severity_of[rule.id]} | {markdown_cell(statement)} |")
        for rule in members:
            lines += _entry(rules, rule, severity_of[rule.id])
    if rules.sections:
        lines += ["", "## What the documentation requires"]
        cited: dict[str, list[str]] = defaultdict(list)
        for rule in sorted(rules.rules, key=lambda rule: rule.id):
            for section in rules.sections_of(rule):
                cited[section.id].append(f"[`{rule.id}`](#{rule_anchor(rule.id)})")
        for section in rules.sections:
            lines += ["", f'<a id="{section_anchor(section.id)}"></a>', "", f"### {section.title}", ""]
            lines.append(section.requires)
            if cited[section.id]:
                lines += ["", "Checked by " + ", ".join(cited[section.id]) + "."]
    return "\n".join(lines) + "\n"


def _entry(rules: RuleSet, rule: Rule, severity: str) -> list[str]:
    spec = cited_as(rule.id) == "spec"  # a published spec's rule cites a spec's place, not a section
    cited = "; ".join(
        f"[{'' if spec else '§ '}{part}](#{section_anchor(section.id)})"
        if section is not None
        else f"§ {part}"
        for part, section in zip(cited_parts(rule.section), _sections_by_part(rules, rule), strict=True)
    )
    lines = ["", f'<a id="{rule_anchor(rule.id)}"></a>', "", f"### `{rule.id}`", ""]
    lines.append(f"**{severity}**. {'Spec' if spec else 'Documentation'}: {cited}.")
    if rule.description:
        lines += ["", rule.description]
    if rule.example:
        lines += ["", "A violation reports:", "", "```text", rule.example, "```"]
    return lines


def rules_json(rules: RuleSet, shown: Sequence[Rule], severity_of: dict[str, str]) -> str:
    """`rules --format json`: each rule shown with the severity in force, its sections and its words."""
    document = [
        {
            "id": rule.id,
            "severity": severity_of[rule.id],
            "default_severity": rule.severity,
            "section": rule.section,
            "docs": rule_command(rule.id),
            "sections": [
                {"title": section.title, "requires": section.requires} for section in rules.sections_of(rule)
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
    return json_text({"rules": document}, indent=2) + "\n"
