"""What every report says of the specs' coverage (`check --coverage`): the same lines in text, HTML and
Markdown (a table), and a structured key in JSON. Pure rendering.

Shapes of the operations no spec knows come from traffic (a path's words): each passes the redaction book
here, and the escaping of its format where the format renders it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from proxy.core.contract.coverage import Coverage, OperationCount
from proxy.core.redaction.book import KNOWN
from proxy.core.reports.escaping import markdown_cell, markdown_code, visible

SHOWN_UNKNOWN = 20  # operations no spec knows, listed by most exchanges


def headline(coverage: Coverage) -> str:
    """`contract coverage: 3 of 5 operations exercised (60.0%)`."""
    return (
        f"contract coverage: {coverage.exercised} of {len(coverage.operations)} operations exercised "
        f"({coverage.percent:.1f}%)"
    )


def operation_line(one: OperationCount) -> str:
    """`specs/a.yaml GET /v2/carts/{id}: 4 exchange(s); seen 200, 4XX; never 401; undocumented 500`."""
    parts = [f"{one.exchanges} exchange(s)"]
    for word, keys in (("seen", one.seen_keys()), ("never", one.never_keys())):
        if keys:
            parts.append(f"{word} {', '.join(keys)}")
    if one.undocumented():
        parts.append("undocumented " + ", ".join(str(status) for status in one.undocumented()))
    return f"{one.spec} {one.method} {one.template}: {'; '.join(parts)}"


def unknown_lines(coverage: Coverage, shown: int = SHOWN_UNKNOWN) -> list[str]:
    """The operations no spec knows, most exchanges first (scrubbed), then a count of the rest."""
    ordered = sorted(coverage.unknown.items(), key=lambda item: (-item[1], item[0]))
    lines = [
        f"not in any spec: {KNOWN.scrub(shape)}: {count} exchange(s)" for shape, count in ordered[:shown]
    ]
    rest = sum(count for _, count in ordered[shown:]) + coverage.overflow
    if rest:
        lines.append(f"not in any spec: {rest} more exchange(s) of other operations")
    return lines


def coverage_lines(coverage: Coverage) -> list[str]:
    """The text section: its headline, one line per operation of the specs, then the unknown ones."""
    return [
        headline(coverage) + ":",
        *(f"  {operation_line(one)}" for one in coverage.ordered()),
        *(f"  {line}" for line in unknown_lines(coverage)),
    ]


def coverage_json(coverage: Coverage) -> dict[str, Any]:
    """The JSON report's `coverage` key."""
    ordered = sorted(coverage.unknown.items(), key=lambda item: (-item[1], item[0]))
    return {
        "operations": len(coverage.operations),
        "exercised": coverage.exercised,
        "percent": round(coverage.percent, 1),
        "by_operation": [one.to_json() for one in coverage.ordered()],
        "unknown": [{"operation": KNOWN.scrub(shape), "exchanges": count} for shape, count in ordered],
        "unknown_overflow": coverage.overflow,
    }


def coverage_markdown(coverage: Coverage) -> Iterator[str]:
    """The Markdown section: a table of the specs' operations, then the operations no spec knows."""
    yield f"\n### Contract coverage\n\n{markdown_cell(visible(headline(coverage)))}\n\n"
    yield "| spec | operation | exchanges | seen | never seen | undocumented |\n|---|---|---:|---|---|---|\n"
    for one in coverage.ordered():
        undocumented = ", ".join(str(status) for status in one.undocumented())
        seen, never = ", ".join(one.seen_keys()), ", ".join(one.never_keys())
        operation = markdown_code(f"{one.method} {one.template}")
        yield (
            f"| {markdown_code(one.spec)} | {operation} | {one.exchanges} "
            f"| {_cell(seen)} | {_cell(never)} | {undocumented} |\n"
        )
    unknown = unknown_lines(coverage)
    if unknown:
        yield "\n"
        for line in unknown:
            yield f"- {markdown_code(line)}\n"


def _cell(text: str) -> str:
    return markdown_code(text) if text else ""


def coverage_page(coverage: Coverage | None) -> dict[str, Any]:
    """What the HTML page shows (its script sets each line as text): nothing when not asked for."""
    if coverage is None:
        return {"headline": "", "lines": []}
    lines = [operation_line(one) for one in coverage.ordered()] + unknown_lines(coverage)
    return {"headline": headline(coverage), "lines": lines}
