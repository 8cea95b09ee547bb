"""The exchanges no rule about the answer could judge, and their bounded count for a report.

A quiet report is a clean one only if the rules looked: an error answer, an undocumented operation or
an answer that is not JSON passes every rule unjudged. The in_force gives each exchange's `Unjudged`
verdict (`proxy.core.rules.engine.Checker.check`); an `UnjudgedTally` counts them, per documented
operation by name, the rest per path shape, and keeps at most MAX_GROUPS groups (a live proxy runs for
days: what falls past the bound is only counted). Pure: no I/O.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias, cast

from proxy.core.rules.path_shapes import Folding

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
DROPPED_NAMED = 10 * MAX_GROUPS  # names of groups past the bound remembered, to count them


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
    which are few, before any other), the exchanges of any other only counted in `overflow`, and
    the groups in `overflow_groups` (exactly while `overflow_exact`). Path shapes fold as `Folding`
    says, so a parent path's many ids make one group."""

    def __init__(self, bound: int = MAX_GROUPS) -> None:
        self.bound = bound
        self.groups: dict[str, Group] = {}
        self.overflow = 0  # exchanges of groups past the bound
        self.folding = Folding()
        self.dropped: set[str] = set()  # names of the groups past the bound, DROPPED_NAMED at most
        self.dropped_unnamed = 0  # groups past the bound counted without a name (read from JSON)
        self.overflow_exact = True  # False once a group past the bound could not be told from the others
        # Each exchange's verdict by its number, kept only for a report that shows every exchange (the
        # HTML page, which holds them all anyway): `mark_exchanges`.
        self.marks: dict[int, Unjudged] | None = None

    @property
    def exchanges(self) -> int:
        return sum(group.exchanges for group in self.groups.values()) + self.overflow

    @property
    def overflow_groups(self) -> int:
        """How many groups fell past the bound (at least that many unless `overflow_exact`)."""
        return len(self.dropped) + self.dropped_unnamed

    def __bool__(self) -> bool:
        return bool(self.groups) or self.overflow > 0

    def mark_exchanges(self) -> None:
        """From now on, keep each exchange's verdict by its number (`add`'s `exchange`) in `marks`."""
        if self.marks is None:
            self.marks = {}

    def add(self, verdict: Unjudged, count: int = 1, exchange: int | None = None) -> None:
        """Count one exchange's verdict (`exchange`: its number, kept while `marks` are)."""
        if self.marks is not None and exchange is not None:
            self.marks[exchange] = verdict
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
        for name in other.dropped:
            name, _ = self.folding.fold(name)
            if name not in self.groups:
                self._drop(name)
        self.overflow += other.overflow
        self.dropped_unnamed += other.dropped_unnamed
        self.overflow_exact = self.overflow_exact and other.overflow_exact

    def ordered(self) -> list[tuple[str, Group]]:
        """Documented operations first, then the rest; most exchanges first, then by name."""
        return sorted(
            self.groups.items(), key=lambda item: (not item[1].documented, -item[1].exchanges, item[0])
        )

    def _group(self, name: str, documented: bool) -> Group | None:
        if not documented:
            name, folded = self.folding.fold(name)
            if folded:
                self._refold()
        group = self.groups.get(name)
        if group is None:
            if name in self.dropped:
                return None
            if len(self.groups) >= self.bound:
                if not documented:
                    self._drop(name)
                    return None
                self._make_room()
            group = self.groups[name] = Group(documented)
        return group

    def _drop(self, name: str) -> None:
        """Count a group past the bound (by its name, while few enough are remembered)."""
        if name in self.dropped:
            return
        if len(self.dropped) < DROPPED_NAMED:
            self.dropped.add(name)
        else:
            self.overflow_exact = False

    def _make_room(self) -> None:
        """Move the undocumented group of fewest exchanges past the bound: a documented one comes in."""
        others = [(group.exchanges, name) for name, group in self.groups.items() if not group.documented]
        if others:
            _, name = min(others)
            self.overflow += self.groups.pop(name).exchanges
            self._drop(name)

    def _refold(self) -> None:
        """Rename the path shapes a new fold covers, adding together those that become one."""
        groups: dict[str, Group] = {}
        for name, group in self.groups.items():
            key = name if group.documented else self.folding.refold(name)
            kept = groups.get(key)
            if kept is None:
                groups[key] = group
            else:
                kept.reasons.update(group.reasons)
                kept.statuses.update(group.statuses)
        self.groups = groups
        dropped = {self.folding.refold(name) for name in self.dropped}
        self.dropped = dropped - set(groups)

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
            "overflow": {
                "exchanges": self.overflow,
                "groups": self.overflow_groups,
                "exact": self.overflow_exact,
            },
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
            overflow = document["overflow"]
            tally.overflow += int(overflow["exchanges"])
            tally.dropped_unnamed += int(overflow["groups"])
            tally.overflow_exact = tally.overflow_exact and bool(overflow["exact"])
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
