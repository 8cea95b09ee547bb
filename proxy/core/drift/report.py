"""A cassette diff for people (text, Markdown fit for a pull-request comment) and for tools (JSON).

Volatile differences are counted always and listed only when asked (`-v`): they change on every call.
"""

from __future__ import annotations

import json
from typing import Any

from proxy.core.drift.compare import TIERS, Difference
from proxy.core.drift.pairing import CassetteDiff
from proxy.core.reports.formats import markdown_cell


def diff_json(diff: CassetteDiff, verbose: bool = False) -> str:
    changes = [
        {
            "index_a": pair.index_a,
            "index_b": pair.index_b,
            "request": pair.request,
            "tier": difference.tier,
            "where": difference.where,
            "a": difference.recorded,
            "b": difference.live,
        }
        for pair in diff.pairs
        for difference in _shown(pair.differences, verbose)
    ]
    document = {
        "changes": changes,
        "added": [{"index_b": item.index, "request": item.request} for item in diff.added],
        "removed": [{"index_a": item.index, "request": item.request} for item in diff.removed],
        "counts": diff.counts(),
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def diff_text(diff: CassetteDiff, a: str, b: str, verbose: bool = False) -> str:
    lines = [f"{a} -> {b}: {summary(diff)}"]
    for pair in diff.pairs:
        shown = _shown(pair.differences, verbose)
        if shown:
            lines.append(f"#{pair.index_a} -> #{pair.index_b} {pair.request}")
            lines += [
                f"  {item.tier:<9} {item.where}: {value_text(item.recorded)} -> {value_text(item.live)}"
                for item in shown
            ]
    lines += [f"+ #{item.index} {item.request} (only in {b})" for item in diff.added]
    lines += [f"- #{item.index} {item.request} (only in {a})" for item in diff.removed]
    return "\n".join(lines) + "\n"


def diff_markdown(diff: CassetteDiff, a: str, b: str, verbose: bool = False) -> str:
    mark = "❌" if diff.counts()["breaking"] else "⚠️" if diff.drifted else "✅"
    lines = [f"## {mark} cassette diff `{a}` → `{b}`", "", summary(diff), ""]
    rows = [
        _row(pair.index_a, pair.index_b, pair.request, item)
        for pair in diff.pairs
        for item in _shown(pair.differences, verbose)
    ]
    if rows:
        lines += [
            "| exchange | request | tier | where | before | after |",
            "|---|---|---|---|---|---|",
            *rows,
            "",
        ]
    lines += [f"- added: #{item.index} `{markdown_cell(item.request)}`" for item in diff.added]
    lines += [f"- removed: #{item.index} `{markdown_cell(item.request)}`" for item in diff.removed]
    return "\n".join(lines).rstrip("\n") + "\n"


def summary(diff: CassetteDiff) -> str:
    counts = diff.counts()
    tiers = ", ".join(f"{counts[tier]} {tier}" for tier in TIERS)
    return f"{tiers}; {len(diff.added)} added, {len(diff.removed)} removed"


def _shown(differences: list[Difference], verbose: bool) -> list[Difference]:
    return [item for item in differences if verbose or item.tier != "volatile"]


def value_text(value: Any) -> str:
    if value is None:
        return "missing"
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 120 else text[:117] + "..."


def _row(index_a: int, index_b: int, request: str, item: Difference) -> str:
    cells = (
        f"#{index_a} → #{index_b}",
        f"`{markdown_cell(request)}`",
        item.tier,
        f"`{markdown_cell(item.where)}`",
        markdown_cell(value_text(item.recorded)),
        markdown_cell(value_text(item.live)),
    )
    return "| " + " | ".join(cells) + " |"


def change(item: Difference) -> str:
    return f"{value_text(item.recorded)} -> {value_text(item.live)}"
