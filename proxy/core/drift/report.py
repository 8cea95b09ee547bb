"""A cassette diff for people (text, Markdown fit for a pull-request comment) and for tools (JSON).

Every value from a cassette or a file name goes through its format's function of
`proxy.core.reports.escaping`: each text line through `visible`, each Markdown value a `markdown_code`.

Volatile differences are counted always and listed only when asked (`-v`): they change on every call.
"""

from __future__ import annotations

import json
from typing import Any

from proxy.core.drift.compare import Difference, shown, tiers_phrase
from proxy.core.drift.pairing import CassetteDiff
from proxy.core.reports.escaping import json_text, markdown_code, visible


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
        for difference in shown(pair.differences, verbose)
    ]
    document = {
        "changes": changes,
        "added": [{"index_b": item.index, "request": item.request} for item in diff.added],
        "removed": [{"index_a": item.index, "request": item.request} for item in diff.removed],
        "counts": diff.counts(),
    }
    return json_text(document, indent=2) + "\n"


def diff_text(diff: CassetteDiff, a: str, b: str, verbose: bool = False) -> str:
    lines = [f"{a} -> {b}: {summary(diff)}"]
    for pair in diff.pairs:
        listed = shown(pair.differences, verbose)
        if listed:
            lines.append(f"#{pair.index_a} -> #{pair.index_b} {pair.request}")
            lines += [difference_line(item) for item in listed]
    lines += [f"+ #{item.index} {item.request} (only in {b})" for item in diff.added]
    lines += [f"- #{item.index} {item.request} (only in {a})" for item in diff.removed]
    return "".join(visible(line) + "\n" for line in lines)


def diff_markdown(diff: CassetteDiff, a: str, b: str, verbose: bool = False) -> str:
    mark = "❌" if diff.counts()["breaking"] else "⚠️" if diff.drifted else "✅"
    lines = [f"## {mark} cassette diff {markdown_code(a)} → {markdown_code(b)}", "", summary(diff), ""]
    rows = [
        difference_row(f"#{pair.index_a} → #{pair.index_b}", pair.request, item)
        for pair in diff.pairs
        for item in shown(pair.differences, verbose)
    ]
    if rows:
        lines += [*table_head("before", "after"), *rows, ""]
    lines += [f"- added: #{item.index} {markdown_code(item.request)}" for item in diff.added]
    lines += [f"- removed: #{item.index} {markdown_code(item.request)}" for item in diff.removed]
    return "\n".join(lines).rstrip("\n") + "\n"


def summary(diff: CassetteDiff) -> str:
    return f"{tiers_phrase(diff.counts())}; {len(diff.added)} added, {len(diff.removed)} removed"


def value_text(value: Any) -> str:
    if value is None:
        return "missing"
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 120 else text[:117] + "..."


def difference_row(exchange: str, request: str, item: Difference) -> str:
    """One Markdown table row of a difference (see `table_head`); `exchange` is Markdown already."""
    cells = (
        exchange,
        markdown_code(request),
        item.tier,
        markdown_code(item.where),
        markdown_code(value_text(item.recorded)),
        markdown_code(value_text(item.live)),
    )
    return "| " + " | ".join(cells) + " |"


def table_head(before: str, after: str) -> list[str]:
    return [f"| exchange | request | tier | where | {before} | {after} |", "|---|---|---|---|---|---|"]


def difference_line(item: Difference) -> str:
    """`  data      json.data[0].name: 'a' -> 'b'`: one difference in the text reports."""
    return f"  {item.tier:<9} {item.where}: {change(item)}"


def change(item: Difference) -> str:
    return f"{value_text(item.recorded)} -> {value_text(item.live)}"
