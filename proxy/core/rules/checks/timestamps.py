"""ISO 8601 timestamps compared without a clock or datetime: normalised to sortable keys."""

from __future__ import annotations

import re
from typing import Any

UTC_TIMESTAMP = re.compile(r"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,12}))?Z")


def timestamp_key(value: Any) -> tuple[str, str] | None:
    """A key that orders UTC (`Z`) timestamps of any fractional precision; None for anything else."""
    if not isinstance(value, str):
        return None
    found = UTC_TIMESTAMP.fullmatch(value)
    if found is None:
        return None
    return (found[1], (found[2] or "").ljust(12, "0"))


def comparable(value: Any) -> Any:
    """A value as the sort and filter checks compare it: timestamps by instant, numbers as numbers."""
    key = timestamp_key(value)
    if key is not None:
        return key
    return value
