"""Where a rule is written down, in the words every report shows a user: the documentation section(s) it
enforces, by name, and where the user reads what they require: `commerce-proxy rules RULE`, which every
install has (a pip-installed user has no checkout, so no report names a path of the repository). The
docs site's rules page carries the same entries under `rule_anchor`, linked from the site itself. One
place builds the words; every report calls it. No I/O.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import Protocol, TypeVar

RULES_PAGE = (
    "docs/rules.md"  # the docs site's "All rules" page, written by `commerce-proxy rules --format markdown`
)


class _Titled(Protocol):
    @property
    def title(self) -> str: ...


Titled = TypeVar("Titled", bound=_Titled)


def rule_anchor(rule_id: str) -> str:
    """The anchor of a rule's entry on the rules page: `rule-pagination-links-prev`."""
    return "rule-" + rule_id.replace(".", "-")


def section_anchor(section_id: str) -> str:
    """The anchor of a section's summary on the rules page: `section-paginated-list-envelope`."""
    return "section-" + section_id


def docs_link(rule_id: str) -> str:
    """`docs/rules.md#rule-pagination-links-prev`: the rule's entry in the docs site's source, for the
    site's own pages; never shown by a report (see `rule_command`)."""
    return f"{RULES_PAGE}#{rule_anchor(rule_id)}"


def rule_command(rule_id: str) -> str:
    """`commerce-proxy rules pagination.links.prev`: where every install reads a rule in full."""
    return f"commerce-proxy rules {rule_id}"


def cited_parts(section: str) -> list[str]:
    """A rule's `section` cites one or more sections, separated by `;` (not one inside parentheses)."""
    parts, depth, start = [], 0, 0
    for position, character in enumerate(section):
        depth += {"(": 1, ")": -1}.get(character, 0)
        if character == ";" and depth <= 0:
            parts.append(section[start:position])
            start = position + 1
    parts.append(section[start:])
    return [part.strip() for part in parts if part.strip()]


def section_label(section: str) -> str:
    """`§ Limits (maximum page length 100); § List endpoints that support pagination, rule 7`."""
    return "; ".join(f"§ {part}" for part in cited_parts(section))


SPEC_RULES = "contract."  # the published specs' rules: their `section` is a spec file and JSON pointer


def cited_as(rule_id: str) -> str:
    """What a finding's citation is, as every report labels it: `spec` (a file and JSON pointer of the
    published specs) for the contract's rules, `documentation` (its sections) for the others."""
    return "spec" if rule_id.startswith(SPEC_RULES) else "documentation"


@lru_cache(maxsize=1024)  # a finding's property, asked once a finding: 50 us of parsing each time
def citation(rule_id: str, section: str) -> str:
    """What every report shows as a finding's source: the documentation's sections (or the spec's file
    and pointer, not a section), then where to read the rule."""
    cited = section if rule_id.startswith(SPEC_RULES) else section_label(section)
    return f"{cited} (more: {rule_command(rule_id)})"


def labelled(rule_id: str, section: str) -> str:
    """`documentation: § Limits (more: ...)` or `spec: specs/carts.yaml#/paths/... (more: ...)`."""
    return f"{cited_as(rule_id)}: {citation(rule_id, section)}"


def sections_cited(section: str, known: Iterable[Titled]) -> list[Titled | None]:
    """For each part of a rule's `section`, the known section whose title starts it (the longest such
    title), or None when no known section does."""
    candidates = list(known)
    found: list[Titled | None] = []
    for part in cited_parts(section):
        starting = [item for item in candidates if part.startswith(item.title)]
        found.append(max(starting, key=lambda item: len(item.title), default=None))
    return found
