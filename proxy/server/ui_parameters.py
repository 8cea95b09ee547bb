"""The one reader of the UI API's parameters other than filters (`core/ui/query.py` reads those): ids,
offsets, limits and cursors as whole numbers no larger than an index can hold, flags, a parameter
given once, and the parameters each route takes. Every refusal is a `BadParameter`: a 400 with one
line naming the parameter. Pure: no I/O."""

from __future__ import annotations

from collections.abc import Iterable

from proxy.errors import UsageError

ID_MOST = 2**63 - 1  # SQLite's largest INTEGER: no id, offset or cursor is past it
Pairs = list[tuple[str, str]]


class BadParameter(UsageError):
    """A parameter the API cannot take: a 400 with this one line."""


def whole_number(text: str, name: str) -> int:
    """`text` as a whole number, 0 or more and at most ID_MOST (leading zeros allowed)."""
    if not (text.isascii() and text.isdigit()):
        raise BadParameter(f"{name}={text[:40]!r}: expected a whole number, 0 or more")
    digits = text.lstrip("0") or "0"
    if len(digits) > len(str(ID_MOST)) or int(digits) > ID_MOST:
        raise BadParameter(f"{name}={text[:40]!r}: at most {ID_MOST}")
    return int(digits)


def exchange_id(text: str, name: str = "exchange id") -> int:
    """An exchange's id: a whole number (1 the first: 0 names none, a 404 as any id past the last)."""
    return whole_number(text, name)


def given_once(pairs: Pairs, name: str) -> str | None:
    """The value of a parameter given at most once (None: not given)."""
    values = [value for key, value in pairs if key == name]
    if len(values) > 1:
        raise BadParameter(f"{name} given {len(values)} times: give it once")
    return values[0] if values else None


def number(pairs: Pairs, name: str, default: int) -> int:
    """A whole-number parameter given at most once, or `default`."""
    value = given_once(pairs, name)
    return default if value is None else whole_number(value, name)


FLAGS = {"1": True, "true": True, "0": False, "false": False}


def flag(pairs: Pairs, name: str) -> bool:
    """A flag given at most once: `1` or `true`, `0` or `false`; not given, false."""
    value = given_once(pairs, name)
    if value is None:
        return False
    if value not in FLAGS:
        raise BadParameter(f"{name}={value[:40]!r}: expected 1 or 0 (true or false)")
    return FLAGS[value]


def only(pairs: Pairs, route: str, taken: Iterable[str], hint: str = "") -> None:
    """Refuse a parameter `route` does not take (a typo must not look like an answer to it)."""
    allowed = set(taken)
    others = sorted({name for name, _ in pairs if name not in allowed})
    if others:
        takes = f"it takes {', '.join(sorted(allowed))}" if allowed else "it takes none"
        named = ", ".join(map(repr, others))[:200]
        raise BadParameter(f"{route} takes no parameter {named}: {takes}{hint}")
