"""`check --format html`: one self-contained page (no network, no CDN) to look at a checked session.

A timeline of exchanges marked pass/warn/fail, or not judged (no rule about the answer could run on
it: grey, never green, with the reason on its row), summaries per rule and per endpoint, and every exchange
expandable to its request, response and findings with their documentation sections. The data travels
as one JSON document inside the page; a small script builds the rows, and an exchange's details only
when it is opened, so a 50,000-exchange cassette still opens quickly. Pure: returns the text.
"""

from __future__ import annotations

import json
import operator
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any

from proxy.core.model.exchange import Body, Exchange
from proxy.core.reports.coverage import coverage_page
from proxy.core.reports.escaping import html_text, script_json
from proxy.core.reports.formats import Report
from proxy.core.reports.unjudged import group_lines, headline, verdict_text
from proxy.core.rules.citation import citation, cited_as
from proxy.core.rules.findings import SEVERITIES, SEVERITY_ORDER, Finding, severity_counts
from proxy.core.rules.path_shapes import folded_counts, folded_names

MARKS = ("fail", "warn", "unjudged", "pass")  # each exchange has one, worst first
BODY_SHOWN = 64 * 1024  # characters of one body kept in the page; the rest is cut with a note


@dataclass(frozen=True, slots=True)
class PageTemplate:
    """The page's HTML with {{TITLE}}, {{STYLE}}, {{SCRIPT}} and {{DATA}} slots, its CSS and its script:
    package data (proxy/core/reports/templates/), read by the store and handed in."""

    page: str
    style: str
    script: str


def html_report(
    report: Report,
    exchanges: Sequence[Sequence[Exchange]],
    endpoint_of: Callable[[str, str], str],
    template: PageTemplate,
    title: str = "commerce-proxy check",
) -> str:
    """The page; `exchanges` are each cassette's, in the order of `report.cassettes`."""
    data = report_data(report, exchanges, endpoint_of, title)
    embedded = script_json(data, separators=(",", ":"))
    return (
        template.page.replace("{{TITLE}}", html_text(title))
        .replace("{{STYLE}}", template.style)
        .replace("{{SCRIPT}}", template.script)
        .replace("{{DATA}}", embedded)
    )


def report_data(
    report: Report,
    exchanges: Sequence[Sequence[Exchange]],
    endpoint_of: Callable[[str, str], str],
    title: str,
) -> dict[str, Any]:
    """Everything the page shows, as JSON: counts, per-rule and per-endpoint tables, the exchanges."""
    rows: list[dict[str, Any]] = []
    endpoints: dict[str, Counter[str]] = {}
    for number, (result, recorded) in enumerate(zip(report.cassettes, exchanges, strict=True)):
        verdicts = result.unjudged.marks or {}
        found: dict[int, list[Finding]] = {}
        for finding in result.findings:
            found.setdefault(finding.exchange, []).append(finding)
        for index, exchange in enumerate(recorded):
            own = sorted(found.get(index, []), key=lambda item: SEVERITY_ORDER[item.severity])
            counts = severity_counts(own)
            verdict = verdicts.get(index)
            mark = mark_of(counts["error"], counts["warning"], verdict is not None)
            request = exchange.request
            label = endpoint_of(request.method, request.path)
            tally = endpoints.setdefault(label, Counter())
            tally["exchanges"] += 1
            tally[mark] += 1
            tally.update({severity: counts[severity] for severity in SEVERITIES})
            rows.append(
                {
                    "cassette": number,
                    "index": index,
                    "mark": mark,
                    "method": request.method,
                    "target": request.target,
                    "status": exchange.response.status,
                    "reason": exchange.response.reason or _phrase(exchange.response.status),
                    "endpoint": label,
                    "recorded_at": exchange.recorded_at,
                    "duration_ms": exchange.duration_ms,
                    "request": {"headers": [list(pair) for pair in request.headers], **_body(request.body)},
                    "response": {
                        "headers": [list(pair) for pair in exchange.response.headers],
                        **_body(exchange.response.body),
                    },
                    "findings": [
                        {**finding.to_json(), "cited_as": cited_as(finding.rule)} for finding in own
                    ],
                    "unjudged": verdict_text(verdict) if verdict is not None else None,
                }
            )
    folded = folded_names(endpoints)
    for row in rows:
        row["endpoint"] = folded(row["endpoint"])
    endpoints = folded_counts(endpoints, operator.add)
    totals = report.rule_totals()
    per_rule = {rule: count for rule, _, count in totals}
    # The severity in force (the project config may change a rule's), as the findings carry it.
    severity_in_force: dict[str, str] = {rule: severity for rule, severity, _ in totals}
    rules: list[dict[str, Any]] = [
        {
            "id": rule.id,
            "severity": severity_in_force.get(rule.id, rule.severity),
            "section": rule.section,
            "citation": citation(rule.id, rule.section),
            "count": per_rule.get(rule.id, 0),
        }
        for rule in report.rules
        if rule.id not in report.off
    ]
    # Rules that found something first (most findings first), then the ones that found nothing.
    # Rules that found something first, errors before warnings before info (an error must not sit
    # under info rows), most findings first within a severity; then the ones that found nothing.
    rules.sort(
        key=lambda rule: (rule["count"] == 0, SEVERITY_ORDER[rule["severity"]], -rule["count"], rule["id"])
    )
    return {
        "title": title,
        "exchanges": report.exchanges,
        "counts": report.counts(),
        "failed": report.failed,
        "cassettes": [
            {"path": result.name, "exchanges": result.exchanges, "accepted_by_baseline": result.accepted}
            for result in report.cassettes
        ],
        "rules": rules,
        "unjudged": _unjudged(report),
        "coverage": coverage_page(report.coverage),
        "endpoints": [
            {
                "endpoint": label,
                **{key: tally[key] for key in ("exchanges", *MARKS, *SEVERITIES)},
            }
            for label, tally in sorted(endpoints.items())
        ],
        "rows": rows,
    }


def mark_of(errors: int, warnings: int, unjudged: bool) -> str:
    """An exchange's mark: `fail` (an error), `warn` (a warning), `unjudged` (no rule about the answer
    could run on it: not a pass), else `pass`."""
    return "fail" if errors else "warn" if warnings else "unjudged" if unjudged else "pass"


def _unjudged(report: Report) -> dict[str, Any]:
    """What the page says of the exchanges no rule about the answer judged (nothing when none)."""
    tally = report.unjudged
    if not tally:
        return {"exchanges": 0, "headline": "", "lines": []}
    return {
        "exchanges": tally.exchanges,
        "headline": headline(tally, report.exchanges),
        "lines": group_lines(tally),
    }


def _body(body: Body) -> dict[str, Any]:
    """A body as text for people: JSON indented, text as is, binary as its base64; cut when huge."""
    if body.kind == "empty":
        return {"body": "", "body_kind": "empty"}
    text = json.dumps(body.value, indent=2, ensure_ascii=False) if body.kind == "json" else str(body.value)
    shown: dict[str, Any] = {"body": text[:BODY_SHOWN], "body_kind": body.kind}
    if len(text) > BODY_SHOWN:
        shown["cut"] = len(text)
    return shown


def _phrase(status: int) -> str | None:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return None
