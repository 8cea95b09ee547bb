"""What a test suite used of its cassettes: recordings never used, requests that missed, simulated ones.

Stale recordings can then be pruned (`GET /_proxy/usage`, `replay --usage-report FILE`, the log line at
shutdown). A recording counts as used when it answered a request or fed a simulated answer.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from proxy.core.reports.escaping import visible

if TYPE_CHECKING:
    from proxy.core.replay.book import ReplayBook


def usage_report(books: Iterable[ReplayBook]) -> dict[str, Any]:
    """One JSON document over every book (a cassette served by several books counts once)."""
    exchanges: dict[str, dict[int, tuple[str, str, int]]] = {}
    used: dict[str, set[int]] = {}
    misses: dict[tuple[str, str, str | None], dict[str, Any]] = {}
    simulated: dict[tuple[str, str], int] = {}
    answered = unlisted = 0
    for book in books:
        answered += book.served
        unlisted += book.unlisted_misses
        for recording, uses in zip(book.recordings, book.uses, strict=True):
            request = recording.exchange.request
            shown = (request.method, request.target, recording.exchange.response.status)
            exchanges.setdefault(recording.cassette, {})[recording.index] = shown
            if uses:
                used.setdefault(recording.cassette, set()).add(recording.index)
        for (method, target), miss in book.misses.items():
            key = (method, target, book.label)
            entry = misses.setdefault(
                key, {"method": method, "target": target, "cassette": book.label, "count": 0, "reason": None}
            )
            entry["count"] += miss.count
            entry["reason"] = miss.reason
        for route, count in book.simulated.items():
            simulated[route] = simulated.get(route, 0) + count
    cassettes = []
    for name, recorded in exchanges.items():
        unused = [
            {"index": index, "method": method, "target": target, "status": status}
            for index, (method, target, status) in sorted(recorded.items())
            if index not in used.get(name, set())
        ]
        cassettes.append(
            {
                "cassette": name,
                "exchanges": len(recorded),
                "used": len(recorded) - len(unused),
                "unused": unused,
            }
        )
    return {
        "requests": {
            "recorded": answered,
            "simulated": sum(simulated.values()),
            "missed": sum(entry["count"] for entry in misses.values()) + unlisted,
        },
        "unlisted_misses": unlisted,
        "cassettes": cassettes,
        "misses": sorted(
            misses.values(), key=lambda entry: (-entry["count"], entry["method"], entry["target"])
        ),
        "simulated": [
            {"method": method, "path": path, "count": count}
            for (method, path), count in sorted(simulated.items())
        ],
    }


def usage_summary(report: dict[str, Any]) -> list[str]:
    """The report in a few log lines: totals, then what to prune and what to record; each `visible`."""
    cassettes = report["cassettes"]
    total = sum(cassette["exchanges"] for cassette in cassettes)
    used = sum(cassette["used"] for cassette in cassettes)
    requests = report["requests"]
    lines = [
        f"usage: {used} of {total} recorded exchanges used; {requests['recorded']} requests answered from "
        f"recordings, {requests['simulated']} simulated, {requests['missed']} missed"
    ]
    for cassette in cassettes:
        if cassette["unused"]:
            lines.append(f"never used in {cassette['cassette']}: {listed_unused(cassette['unused'])}")
    for miss in report["misses"][:10]:
        lines.append(f"missed {miss['count']}x: {miss['method']} {miss['target']}")
    return [visible(line) for line in lines]


def listed_unused(unused: list[dict[str, Any]], shown: int = 5) -> str:
    """`#0 POST /oauth/access_token, #3 GET /v2/brands and 2 more`: a cassette's recordings never used,
    as the report lists them, the first few named (`visible`: one line whatever the requests held)."""
    named = ", ".join(f"#{item['index']} {item['method']} {item['target']}" for item in unused[:shown])
    more = len(unused) - shown
    return visible(named + (f" and {more} more" if more > 0 else ""))
