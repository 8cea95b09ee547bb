"""The project's own freshness rule: a recording older than the config's `max_age` is stale.

Not a statement of `commerce-api.md`: the service may change after a recording, and a team that sets
`max_age` wants to hear when its cassettes are older than it trusts. Off unless `max_age` is set.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from proxy.core.rules.checks.context import CheckContext
from proxy.core.rules.checks.registry import check
from proxy.core.rules.findings import Violation
from proxy.core.rules.freshness import age_text


@check("recorded_within_max_age", judges="recording")
def recorded_within_max_age(context: CheckContext, params: Mapping[str, Any]) -> Iterator[Violation]:
    """Project config, max_age: the exchange was recorded within the age the project accepts."""
    freshness = context.session.freshness
    if freshness is None:
        return
    recorded_at, confirmed_at = context.exchange.recorded_at, context.exchange.confirmed_at
    age = freshness.overdue(recorded_at, confirmed_at)
    if age is not None:
        confirmed = f", its cassette's confirmed_at {confirmed_at}" if confirmed_at else ""
        yield Violation(
            "recorded_at",
            f"at most {freshness.max_age.text} old",
            f"{recorded_at}{confirmed} ({age_text(age)} old)",
        )
