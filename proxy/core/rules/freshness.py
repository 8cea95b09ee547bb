"""How old a recording may be: the project's `max_age` ("90d"), and the age of an exchange from its
`recorded_at`. Pure: the time it is now is handed in by whoever loads the config (the core has no
clock), and ISO 8601 is read with a pattern and `calendar.timegm`, not `datetime`."""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from typing import Any

from proxy.core.model.confirmation import confirmed_seconds
from proxy.errors import RuleFileError

AGE = re.compile(r"([0-9]+(?:\.[0-9]+)?)\s*([smhdw])")
UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800}
ISO_TIME = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})[T ]([0-9]{2}):([0-9]{2})(?::([0-9]{2})(\.[0-9]+)?)?"
    r"\s*(Z|z|[+-][0-9]{2}(?::?[0-9]{2})?)?"
)


@dataclass(frozen=True, slots=True)
class MaxAge:
    """The oldest recording the project accepts, as written (`90d`) and in seconds."""

    text: str
    seconds: float

    @classmethod
    def parse(cls, value: Any, where: str) -> MaxAge:
        """`90d`, `12h`, `2w`, `30m` or `45s`; anything else is refused, naming the setting."""
        found = AGE.fullmatch(value.strip()) if isinstance(value, str) else None
        if found is None or float(found[1]) <= 0:
            raise RuleFileError(
                f"{where}: expected a positive number and a unit (s, m, h, d or w), "
                f'e.g. "90d", found {value!r}'
            )
        return cls(value.strip(), float(found[1]) * UNIT_SECONDS[found[2]])


def epoch_seconds(stamp: Any) -> float | None:
    """An ISO 8601 time (`Z`, an offset, or none meaning UTC) as seconds since the epoch; None when
    it is no such time."""
    found = ISO_TIME.fullmatch(stamp.strip()) if isinstance(stamp, str) else None
    if found is None:
        return None
    year, month, day, hour, minute = (int(found[part]) for part in range(1, 6))
    if not (1 <= month <= 12 and 1 <= day <= 31 and hour <= 23 and minute <= 59):
        return None
    second = int(found[6] or 0) + float(found[7] or 0)
    offset = 0
    zone = found[8]
    if zone and zone not in ("Z", "z"):
        digits = zone[1:].replace(":", "")
        offset = int(digits[:2]) * 3600 + int(digits[2:] or 0) * 60
        offset = -offset if zone[0] == "-" else offset
    return calendar.timegm((year, month, day, hour, minute, 0, 0, 0, 0)) + second - offset


@dataclass(frozen=True, slots=True)
class Freshness:
    """The project's max_age and the time it is now: which recordings are stale."""

    max_age: MaxAge
    now: float

    def overdue(self, recorded_at: str | None, confirmed_at: str | None = None) -> float | None:
        """How long ago the recording was last known true, when that is more than max_age (seconds):
        since the later of `recorded_at` and its cassette's `confirmed_at` (re-recording, or a clean
        `verify --update`, confirms what did not change); else None, also when `recorded_at` is
        missing or not a time (its age is unknown, so it is not judged)."""
        recorded = epoch_seconds(recorded_at)
        if recorded is None:
            return None
        confirmed = confirmed_seconds(confirmed_at)
        age = self.now - (recorded if confirmed is None else max(recorded, confirmed))
        return age if age > self.max_age.seconds else None


def age_text(seconds: float) -> str:
    """`327 days`, `5 hours`, `12 minutes`: an age the way a person says it."""
    for unit, size in (("day", 86_400), ("hour", 3600), ("minute", 60)):
        if seconds >= size:
            count = int(seconds // size)
            return f"{count} {unit}{'s' if count != 1 else ''}"
    return f"{int(seconds)} seconds"
