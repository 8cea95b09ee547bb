"""A cassette diff for people (text, Markdown fit for a pull-request comment) and for tools (JSON).

Every value from a cassette or a file name goes through its format's function of
`proxy.core.reports.escaping`: each text line through `visible`, each Markdown value a `markdown_code`.

Volatile differences are counted always and listed only when asked (`-v`): they change on every call.
The same difference in every record of a list is one line (`json.data[*].attributes.name missing
(12x)`), in text, Markdown and JUnit; JSON keeps one item per difference, for tools
(`differences.py` shows them).

In JSON the side an answer lacks has no key.
"""

from __future__ import annotations

from proxy.core.drift.pairing import CassetteDiff
from proxy.core.reports.differences import (
    difference_line,
    difference_row,
    grouped,
    shown,
    table_head,
    tiers_phrase,
)
from proxy.core.reports.escaping import json_text, markdown_code, visible


def diff_json(diff: CassetteDiff, verbose: bool = False) -> str:
    changes = [
        {
            "index_a": pair.index_a,
            "index_b": pair.index_b,
            "request": pair.request,
            **difference.to_json("a", "b"),
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
        listed = grouped(shown(pair.differences, verbose))
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
        for item in grouped(shown(pair.differences, verbose))
    ]
    if rows:
        lines += [*table_head("before", "after"), *rows, ""]
    lines += [f"- added: #{item.index} {markdown_code(item.request)}" for item in diff.added]
    lines += [f"- removed: #{item.index} {markdown_code(item.request)}" for item in diff.removed]
    return "\n".join(lines).rstrip("\n") + "\n"


def summary(diff: CassetteDiff) -> str:
    return f"{tiers_phrase(diff.counts())}; {len(diff.added)} added, {len(diff.removed)} removed"
