"""What `verify` found: each exchange's live answer and its differences, and whether the service
refused the credentials rather than changed. Its reports are `proxy.core.reports.verification`."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from proxy.core.drift.compare import Difference, Tier, is_drift, tier_counts
from proxy.core.model.exchange import Exchange
from proxy.core.rules.findings import Finding

REFUSALS = frozenset({401, 403})  # the service refuses the credentials: Unauthorized, Forbidden
# RFC 6749 section 5.2: a token endpoint's 400 with these errors refuses the client or its grant.
OAUTH_REFUSALS = frozenset({"invalid_client", "invalid_grant", "unauthorized_client"})


def token_refusal(status: int, error: str | None) -> bool:
    """Whether a token endpoint's answer refuses the credentials: 401, 403, or an OAuth refusal."""
    return status in REFUSALS or (status == 400 and error in OAUTH_REFUSALS)


def answer_error(body: bytes) -> str | None:
    """What an error answer calls its error: OAuth's `error` (RFC 6749 section 5.2), else the first
    `errors[].title` of a JSON:API answer; None when it names none."""
    try:
        document = json.loads(body)
    except ValueError:
        return None
    if not isinstance(document, dict):
        return None
    error = document.get("error")
    if isinstance(error, str) and error:
        return error[:80]
    errors = document.get("errors")
    if isinstance(errors, list) and errors and isinstance(errors[0], dict):
        title = errors[0].get("title")
        return title[:80] if isinstance(title, str) and title else None
    return None


@dataclass(slots=True)
class Verified:
    """One recorded exchange: what the live service answers now and how it differs, or why it was
    not sent."""

    cassette: str
    index: int
    request: str
    differences: list[Difference] = field(default_factory=list)
    live: Exchange | None = None  # as the service sent it: what is compared, checked and shown
    kept: Exchange | None = None  # the same at the cassette's origin: what `--update` writes
    skipped: str | None = None
    recorded_status: int | None = None

    @property
    def drifted(self) -> bool:
        return is_drift(self.differences)

    @property
    def to_write(self) -> Exchange | None:
        """What `--update` writes: the live answer at the cassette's origin (as sent when none moved)."""
        return self.kept if self.kept is not None else self.live


@dataclass(slots=True)
class Verification:
    results: list[Verified]
    findings: list[Finding]

    def counts(self) -> dict[Tier, int]:
        return tier_counts(difference for result in self.results for difference in result.differences)

    @property
    def sent(self) -> int:
        return sum(1 for result in self.results if result.skipped is None)

    def refused(self) -> str | None:
        """Why the live service refused our credentials rather than changed, or None.

        The rule: every request re-sent whose recording was a success (2xx or 3xx) now answers 401 or
        403. One endpoint that starts to ask for other credentials while the rest still answer is a
        change of the service, reported as drift; the same answer on every request is the token."""
        succeeded = [
            result
            for result in self.results
            if result.live is not None and result.recorded_status is not None and result.recorded_status < 400
        ]
        answered = {result.live.response.status for result in succeeded if result.live is not None}
        if not succeeded or not answered <= REFUSALS:
            return None
        statuses = "/".join(str(status) for status in sorted(answered))
        return (
            f"{statuses} on all {len(succeeded)} re-sent requests that recorded a success, "
            f"such as {succeeded[0].request}"
        )

    def failed(self, strict: bool = False) -> bool:
        """Breaking drift (or, strict, data drift too)."""
        counts = self.counts()
        return bool(counts["breaking"] or (strict and counts["data"]))
