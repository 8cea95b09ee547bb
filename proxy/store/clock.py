"""The time it is now, for everything that judges a recording's age or date: `max_age`, the
`confirmed_at` a confirmation writes, `recorded_at`, and the readers that refuse a recording from the
future. One seam for tests: COMMERCE_PROXY_NOW (an RFC 3339 time such as 2027-03-01T09:00:00Z) makes
the tool act as if it were then; unset, it is this machine's clock."""

from __future__ import annotations

import os
import time
from datetime import UTC, datetime

from proxy.core.model.domain import timestamp_seconds
from proxy.errors import UsageError

NOW_VARIABLE = "COMMERCE_PROXY_NOW"


def now() -> float:
    """Seconds since the epoch: COMMERCE_PROXY_NOW when set, else the machine's clock."""
    given = os.environ.get(NOW_VARIABLE, "").strip()
    if not given:
        return time.time()
    seconds = timestamp_seconds(given) if given.isascii() else None
    if seconds is None:
        raise UsageError(
            f"{NOW_VARIABLE}: expected a time like 2027-03-01T09:00:00Z (date, time and zone), "
            f"found {given[:60]!r}"
        )
    return seconds


def now_stamp() -> str:
    """The time now as the service writes it (ISO 8601, microseconds, Z): an exchange's recorded_at."""
    return datetime.fromtimestamp(now(), UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")
