"""`replay --usage-report FILE`: which recorded exchanges a replay served and which requests it missed
(`proxy.core.replay.usage.usage_report` gathers them) as a JSON document. Pure: returns the text, the
replay use case scrubs and writes it."""

from __future__ import annotations

from typing import Any

from proxy.core.reports.escaping import json_text


def usage_report_text(report: dict[str, Any]) -> str:
    """The usage report as the file holds it (before the book of secrets scrubs it)."""
    return json_text(report, indent=2) + "\n"
