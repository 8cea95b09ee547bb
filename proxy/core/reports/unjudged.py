"""What every report says of the exchanges no rule about the answer judged: the same few lines in
text, Markdown, JUnit and HTML, and the structured field in JSON. Nothing when every exchange was judged.

Group names come from traffic (a path's words): each passes the redaction book here, and the escaping
of its format where the format renders it.
"""

from __future__ import annotations

from typing import Any

from proxy.core.redaction.book import KNOWN
from proxy.core.rules.unjudged import (
    REASON_TEXT,
    STATUS_REASONS,
    Group,
    Reason,
    Unjudged,
    UnjudgedTally,
    reasons_phrase,
)

SHOWN_GROUPS = 10
ELSEWHERE: tuple[Reason, ...] = ("undocumented", "not-documented")  # the reasons of a path shape


def headline(tally: UnjudgedTally, exchanges: int) -> str:
    """`not judged: 9 of 20 exchanges (no rule about the answer could run on them)`."""
    return (
        f"not judged: {tally.exchanges} of {exchanges} exchanges (no rule about the answer could run on them)"
    )


def group_lines(tally: UnjudgedTally, shown: int = SHOWN_GROUPS) -> list[str]:
    """One line a group (`name: what`), then the line counting the rest: see `group_items`."""
    return [f"{name}: {what}" if name is not None else what for name, what in group_items(tally, shown)]


def group_items(tally: UnjudgedTally, shown: int = SHOWN_GROUPS) -> list[tuple[str | None, str]]:
    """(name, what) a group, documented operations first, most exchanges first; past `shown` groups,
    (None, a count of the rest, and of what fell past the tally's bound). Names are scrubbed."""
    ordered = tally.ordered()
    items: list[tuple[str | None, str]] = [
        (KNOWN.scrub(name), _phrase(group)) for name, group in ordered[:shown]
    ]
    hidden = ordered[shown:]
    more_exchanges = sum(group.exchanges for _, group in hidden) + tally.overflow
    if hidden or tally.overflow:
        groups = len(hidden) + tally.overflow_groups
        plus = "" if tally.overflow_exact else "+"
        items.append((None, f"and {groups}{plus} more group(s), {more_exchanges} exchange(s)"))
    return items


def _phrase(group: Group) -> str:
    if group.documented:
        return reasons_phrase(group)
    why = ", ".join(REASON_TEXT[reason][0] for reason in ELSEWHERE if group.reasons[reason])
    return f"{group.exchanges} ({why})" if why else f"{group.exchanges} ({reasons_phrase(group)})"


def verdict_text(verdict: Unjudged) -> str:
    """One exchange's reason: `not judged: error answer (500)`, `not judged: undocumented operation`."""
    text = f"not judged: {REASON_TEXT[verdict.reason][0]}"
    return f"{text} ({verdict.status})" if verdict.reason in STATUS_REASONS else text


def unjudged_json(tally: UnjudgedTally) -> dict[str, Any]:
    """The JSON report's `unjudged` field: the tally with every group name scrubbed."""
    document = tally.to_json()
    for item in document["groups"]:
        item["group"] = KNOWN.scrub(item["group"])
    return document
