"""Integers as a query parameter spells them, read within a limit.

`int()` refuses a text of more than 4,300 digits (leading zeros count), so a page parameter of 5,000
digits was a 500. Every reader of an integer parameter goes through `integer_parameter`: its cost is
bounded by the text's length, and it never raises.
"""

from __future__ import annotations

import re

INTEGER = re.compile(r"[+-]?[0-9]+")
MAX_DIGITS = 18  # significant digits converted; more stand for a value beyond every documented limit


def integer_parameter(raw: str) -> int | None:
    """The integer `raw` spells (blanks around it, a sign and leading zeros allowed), or None when it
    is not one. A value of more than MAX_DIGITS significant digits reads as ±10**MAX_DIGITS."""
    text = raw.strip()
    if not INTEGER.fullmatch(text):
        return None
    negative = text.startswith("-")
    digits = text.lstrip("+-").lstrip("0") or "0"
    value = 10**MAX_DIGITS if len(digits) > MAX_DIGITS else int(digits)
    return -value if negative else value


def significant_digits(raw: str) -> int:
    """How many digits of an integer's text are not leading zeros (0 for zero)."""
    return len(raw.strip().lstrip("+-").lstrip("0"))
