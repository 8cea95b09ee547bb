"""The exchanges no rule about the answer could judge, and their bounded count for a report.

A quiet report is a clean one only if the rules looked: an error answer, an undocumented operation or
an answer that is not JSON passes every rule unjudged. The engine gives each exchange's `Unjudged`
verdict (`proxy.core.rules.engine.Checker.check`); an `UnjudgedTally` counts them, per documented
operation by name, the rest per path shape, and keeps at most MAX_GROUPS groups (a live proxy runs for
days: what falls past the bound is only counted). Pure: no I/O.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias, cast

Reason: TypeAlias = Literal["error", "status", "not-json", "rules-off", "undocumented", "not-documented"]
REASONS: tuple[Reason, ...] = ("error", "status", "not-json", "rules-off", "undocumented", "not-documented")
# What each reason says after a count ("3 error answers (409 x2, 500)").
REASON_TEXT: Mapping[Reason, tuple[str, str]] = {  # one, several
    "error": ("error answer", "error answers"),
    "status": ("answer neither success nor error", "answers neither success nor error"),
    "not-json": ("success answer whose body is not JSON", "success answers whose body is not JSON"),
    "rules-off": (
        "answer whose every rule is turned off here",
        "answers whose every rule is turned off here",
    ),
    "undocumented": ("undocumented operation", "undocumented operation"),
    "not-documented": ("known operation, not documented", "known operation, not documented"),
}
STATUS_REASONS = frozenset({"error", "status"})
MAX_GROUPS = 200  # path shapes and operations kept; past it, exchanges are counted as overflow
ID = "{id}"
_UUID = re.compile(r"[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}")
_HEX = re.compile(r"(?=[^/]*[0-9])[0-9a-fA-F]{8,}")
# A word of a path ("v2", "subscriptions", "access_token", "custom-api-2"): letters, joined by - _ or .,
# at most two digits at its end, no longer than a word is; anything else is an id, a number or a token.
_WORD = re.compile(r"[A-Za-z][a-z]*(?:[-_.][A-Za-z][a-z]*)*[0-9]{0,2}")
LONGEST_WORD = 40


@dataclass(frozen=True, slots=True)
class Unjudged:
    """Why no rule about the answer judged one exchange, and the group it is counted in: a documented
    operation's name, or `METHOD /path/{id}` (its path shape) for the others; `status`, its answer's."""

    reason: Reason
    group: str
    status: int
    documented: bool

    def to_json(self) -> list[Any]:
        """The verdict as JSON (it crosses from the check worker to the proxy): `from_json` reads it."""
        return [self.reason, self.group, self.status, self.documented]

    @classmethod
    def from_json(cls, document: Any) -> Unjudged:
        """Read `to_json`'s list back; raises ValueError on anything else."""
        if not isinstance(document, list) or len(document) != 4:
            raise ValueError(
                f"an unjudged verdict is [reason, group, status, documented], found {document!r}"
            )
        reason, group, status, documented = document
        if reason not in REASONS or not isinstance(group, str) or type(status) is not int:
            raise ValueError(f"not an unjudged verdict: {document!r}")
        if not isinstance(documented, bool):
            raise ValueError(f"not an unjudged verdict: {document!r}")
        return cls(cast(Reason, reason), group, status, documented)


def path_shape(method: str, path: str) -> str:
    """`METHOD /path` with each segment that is not a word (an id, a UUID, a number, long hex, a
    token) replaced by `{id}`: the group an undocumented exchange is counted in. No value seen in
    traffic is kept but the words of its path."""
    segments = []
    for segment in path.split("/"):
        if not segment or (
            len(segment) <= LONGEST_WORD
            and _WORD.fullmatch(segment)
            and not _UUID.fullmatch(segment)
            and not _HEX.fullmatch(segment)
        ):
            segments.append(segment)
        else:
            segments.append(ID)
    return f"{method} {'/'.join(segments)}"


@dataclass(slots=True)
class Group:
    """One operation's or path shape's unjudged exchanges: how many for each reason, and the statuses
    of those that are error (or other non-success) answers."""

    documented: bool
    reasons: Counter[str] = field(default_factory=Counter)
    statuses: Counter[int] = field(default_factory=Counter)

    @property
    def exchanges(self) -> int:
        return sum(self.reasons.values())


class UnjudgedTally:
    """The unjudged exchanges of a run, counted; at most `bound` groups are kept (documented operations,
    which are few, first), the exchanges of any other only counted in `overflow`."""

    def __init__(self, bound: int = MAX_GROUPS) -> None:
        self.bound = bound
        self.groups: dict[str, Group] = {}
        self.overflow = 0  # exchanges of groups past the bound
        self.overflow_groups = False

    @property
    def exchanges(self) -> int:
        return sum(group.exchanges for group in self.groups.values()) + self.overflow

    def __bool__(self) -> bool:
        return bool(self.groups) or self.overflow > 0

    def add(self, verdict: Unjudged, count: int = 1) -> None:
        """Count one exchange's verdict."""
        group = self._group(verdict.group, verdict.documented)
        if group is None:
            self.overflow += count
            return
        group.reasons[verdict.reason] += count
        if verdict.reason in STATUS_REASONS:
            group.statuses[verdict.status] += count

    def merge(self, other: UnjudgedTally) -> None:
        """Add another tally's counts (a second process's, another cassette's)."""
        for name, theirs in other.groups.items():
            group = self._group(name, theirs.documented)
            if group is None:
                self.overflow += theirs.exchanges
                continue
            group.reasons.update(theirs.reasons)
            group.statuses.update(theirs.statuses)
        self.overflow += other.overflow
        self.overflow_groups = self.overflow_groups or other.overflow_groups

    def ordered(self) -> list[tuple[str, Group]]:
        """Documented operations first, then the rest; most exchanges first, then by name."""
        return sorted(
            self.groups.items(), key=lambda item: (not item[1].documented, -item[1].exchanges, item[0])
        )

    def _group(self, name: str, documented: bool) -> Group | None:
        group = self.groups.get(name)
        if group is None:
            if len(self.groups) >= self.bound and not documented:
                self.overflow_groups = True
                return None
            group = self.groups[name] = Group(documented)
        return group

    def to_json(self) -> dict[str, Any]:
        """The tally as JSON, the field `unjudged` of a JSON report: `from_json` reads it back."""
        return {
            "exchanges": self.exchanges,
            "groups": [
                {
                    "group": name,
                    "documented": group.documented,
                    "exchanges": group.exchanges,
                    "reasons": {reason: group.reasons[reason] for reason in REASONS if group.reasons[reason]},
                    "statuses": {str(status): count for status, count in sorted(group.statuses.items())},
                }
                for name, group in self.ordered()
            ],
            "overflow": {"exchanges": self.overflow, "groups": self.overflow_groups},
        }

    @classmethod
    def from_json(cls, document: Any, bound: int = MAX_GROUPS) -> UnjudgedTally:
        """Read `to_json`'s document back; raises ValueError on anything else."""
        try:
            tally = cls(bound)
            for item in document["groups"]:
                group = tally._group(str(item["group"]), bool(item["documented"]))
                reasons = Counter({str(key): int(value) for key, value in item["reasons"].items()})
                if not set(reasons) <= set(REASONS):
                    raise ValueError(f"unknown reason in {item['reasons']!r}")
                if group is None:
                    tally.overflow += sum(reasons.values())
                    continue
                group.reasons.update(reasons)
                group.statuses.update({int(key): int(value) for key, value in item["statuses"].items()})
            tally.overflow += int(document["overflow"]["exchanges"])
            tally.overflow_groups = tally.overflow_groups or bool(document["overflow"]["groups"])
        except (KeyError, TypeError, AttributeError) as error:
            raise ValueError(f"not an unjudged tally: {error!r}") from None
        return tally


def reasons_phrase(group: Group) -> str:
    """`3 error answers (409 x2, 500), 1 success answer whose body is not JSON`."""
    parts = []
    for reason in REASONS:
        count = group.reasons[reason]
        if not count:
            continue
        one, several = REASON_TEXT[reason]
        text = f"{count} {one if count == 1 else several}"
        if reason in STATUS_REASONS:
            statuses = [
                f"{status} x{times}" if times > 1 else str(status)
                for status, times in sorted(group.statuses.items())
                if (status >= 400) == (reason == "error")
            ]
            text += f" ({', '.join(statuses)})"
        parts.append(text)
    return ", ".join(parts)


def summed(tallies: Iterable[UnjudgedTally]) -> UnjudgedTally:
    """One tally of several (each cassette's)."""
    total = UnjudgedTally()
    for tally in tallies:
        total.merge(tally)
    return total
