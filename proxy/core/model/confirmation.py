"""When a cassette's recordings were last confirmed: its `confirmed_at` date.

Re-recording (`record --mode all`) keeps an unchanged answer's old entry, and `verify --update` leaves
one untouched, so that an unchanged service gives no diff. Both still confirm the recordings: the
cassette notes the day in one top-level line, `confirmed_at: 'YYYY-MM-DD'`, and `max_age` judges each
exchange by the later of its `recorded_at` and that day. A date, not a time: re-confirming the same
day changes nothing, and a later day changes that one line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from proxy.core.model.domain import SKEW_SECONDS, timestamp_seconds
from proxy.core.model.exchange import Exchange

CONFIRMED_KEY = "confirmed_at"
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
DAY_SECONDS = 86_400


def confirmed_seconds(date: object) -> float | None:
    """A `YYYY-MM-DD` date as seconds since the epoch at its start (UTC); None when it is no such day."""
    if not isinstance(date, str) or not _DATE.fullmatch(date):
        return None
    return timestamp_seconds(f"{date}T00:00:00Z")


def confirmed_at_problem(date: object, now: float | None) -> str | None:
    """The cassette's `confirmed_at`: a date that exists and is not after today (`now`, give or take a
    day for the zones; None: not judged)."""
    seconds = confirmed_seconds(date)
    if seconds is None:
        return (
            f"expected a date like '2026-11-22' (the day its recordings were last confirmed), found {date!r}"
        )
    if now is not None and seconds > now + DAY_SECONDS + SKEW_SECONDS:
        return f"expected a day before now (this machine's clock), found {date!r} in the future"
    return None


def day_of(seconds: float) -> str:
    """Seconds since the epoch as the UTC day `YYYY-MM-DD`."""
    days = int(seconds // DAY_SECONDS)
    # H. Hinnant's civil_from_days: the inverse of the day count `timestamp_seconds` uses
    z = days + 719_468
    era = z // 146_097
    of_era = z - era * 146_097
    year_of_era = (of_era - of_era // 1460 + of_era // 36_524 - of_era // 146_096) // 365
    day_of_year = of_era - (365 * year_of_era + year_of_era // 4 - year_of_era // 100)
    month_index = (5 * day_of_year + 2) // 153
    day = day_of_year - (153 * month_index + 2) // 5 + 1
    month = month_index + 3 if month_index < 10 else month_index - 9
    year = year_of_era + era * 400 + (month <= 2)
    return f"{year:04d}-{month:02d}-{day:02d}"


def confirmation(exchanges: Iterable[Exchange], now: float) -> str | None:
    """The `confirmed_at` a cassette gets when all of `exchanges` were confirmed `now`: today, when some
    exchange was recorded on an earlier day; None when every one was recorded today (or is undated),
    so that a first recording, and re-recording it the same day, write no such line."""
    today = day_of(now)
    for exchange in exchanges:
        recorded = timestamp_seconds(exchange.recorded_at) if exchange.recorded_at else None
        if recorded is not None and day_of(recorded) < today:
            return today
    return None
