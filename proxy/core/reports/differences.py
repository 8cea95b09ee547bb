"""How the reports of `verify` and `cassette diff` show differences: a value as a report line shows it,
the same difference in every record of a list as one line (`json.data[*].attributes.name missing
(12x)`), a Markdown table row, and which differences a report lists (volatile ones only when asked:
they change on every call). A table row's cells are Markdown code spans (`escaping.markdown_code`);
a text line is escaped by the report that writes it (`escaping.visible`).

A value is shown as JSON writes it (`null` for null, `""`, `0`, `false`, `[]`, `{}`); `missing` means
the answer lacks the field or header. A difference whose tier a published spec decided ends with its
source, `(spec: FILE#POINTER)`, in every format (JSON: its `source`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from proxy.core.drift.compare import ABSENT, TIERS, Difference, Tier
from proxy.core.reports.escaping import markdown_code


def tiers_phrase(counts: dict[Tier, int]) -> str:
    """`1 breaking, 0 additive, 2 data, 14 volatile`."""
    return ", ".join(f"{counts[tier]} {tier}" for tier in TIERS)


def shown(differences: Iterable[Difference], verbose: bool) -> list[Difference]:
    """What a report lists: volatile differences only when asked (they change on every call)."""
    return [item for item in differences if verbose or item.tier != "volatile"]


def value_text(value: Any) -> str:
    """A value as a report line shows it: `missing` for a side that lacks it, else JSON's spelling
    (`null`, `false`, `[]`), a string quoted."""
    if value is ABSENT:
        return "missing"
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 120 else text[:117] + "..."


INDEX = re.compile(r"\[[0-9]+\]")


@dataclass(frozen=True, slots=True)
class Grouped:
    """Differences of one tier at one place of every record of a list (`json.data[*].name`), `count`
    of them; `first` stands for them all, and `alike` says whether all changed the same way."""

    tier: Tier
    where: str
    count: int
    first: Difference
    alike: bool

    @property
    def recorded(self) -> Any:
        return self.first.recorded

    @property
    def live(self) -> Any:
        return self.first.live

    @property
    def source(self) -> str | None:
        return self.first.source


def grouped(differences: Iterable[Difference]) -> list[Grouped]:
    """The differences of one answer with those at the same place of each record (list indexes read
    as `[*]`) and of the same tier made one, in order of first appearance."""
    groups: dict[tuple[str, str, str | None], list[Difference]] = {}
    for item in differences:
        groups.setdefault((item.tier, INDEX.sub("[*]", item.where), item.source), []).append(item)
    result = []
    for (_, where, _), items in groups.items():
        first = items[0]
        alike = all(_change_kind(item) == _change_kind(first) for item in items)
        result.append(Grouped(first.tier, where if len(items) > 1 else first.where, len(items), first, alike))
    return result


def _change_kind(item: Difference) -> str:
    """What a difference says without the values a record has of its own: a field missing or added is
    that whatever its value; any other change is its values."""
    if item.live is ABSENT and item.tier in ("breaking", "data"):
        return "missing"
    if item.recorded is ABSENT and item.tier == "additive":
        return "added"
    return change(item)


def grouped_change(item: Grouped) -> str:
    """`missing (12x)`, `added (12x)`, `'a' -> 'b' (12x)`, or `'a' -> 'b', ... (12x)` when the records
    changed in different ways; a single difference as it is."""
    if item.count == 1:
        return change(item.first)
    kind = _change_kind(item.first)
    if kind in ("missing", "added"):
        return f"{kind} ({item.count}x)"
    return f"{kind}{'' if item.alike else ', ...'} ({item.count}x)"


def difference_row(exchange: str, request: str, item: Difference | Grouped) -> str:
    """One Markdown table row of a difference or a group (see `table_head`); `exchange` is Markdown
    already. A group's count goes with its values: `missing (12x)`."""
    recorded, live = value_text(item.recorded), value_text(item.live)
    if isinstance(item, Grouped) and item.count > 1:
        kind = _change_kind(item.first)
        count = (
            f" ({item.count}x)" if item.alike or kind in ("missing", "added") else f", ... ({item.count}x)"
        )
        if kind == "missing":
            recorded = "present"
        elif kind == "added":
            live = "present"
        live += count
    cells = (
        exchange,
        markdown_code(request),
        item.tier + (f" (spec: {markdown_code(item.source)})" if item.source else ""),
        markdown_code(item.where),
        markdown_code(recorded),
        markdown_code(live),
    )
    return "| " + " | ".join(cells) + " |"


def table_head(before: str, after: str) -> list[str]:
    return [f"| exchange | request | tier | where | {before} | {after} |", "|---|---|---|---|---|---|"]


def difference_line(item: Difference | Grouped) -> str:
    """`  data      json.data[0].name: 'a' -> 'b'`: one difference in the text reports, or a group:
    `  breaking  json.data[*].attributes.name missing (12x)`."""
    if isinstance(item, Grouped):
        text = grouped_change(item)
        joint = " " if item.count > 1 and text.startswith(("missing", "added")) else ": "
        return f"  {item.tier:<9} {item.where}{joint}{text}{source_note(item)}"
    return f"  {item.tier:<9} {item.where}: {change(item)}{source_note(item)}"


def source_note(item: Difference | Grouped) -> str:
    """` (spec: FILE#POINTER)` after a difference a spec tiered, else nothing."""
    return f" (spec: {item.source})" if item.source else ""


def change(item: Difference) -> str:
    return f"{value_text(item.recorded)} -> {value_text(item.live)}"
