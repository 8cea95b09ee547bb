"""How much of the specs the traffic exercised (`check --coverage`): per operation, its exchanges and
statuses; and the operations no spec knows, by path shape. Pure counting, no I/O: the contract's judge
feeds it as it judges each exchange, so the traffic is read once.

Memory is bounded: the operations are the specs', and the shapes no spec knows are kept up to
`MAX_UNKNOWN` (past it, their exchanges are only counted).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from proxy.core.contract.operations import Operation
from proxy.core.rules.path_shapes import path_shape

MAX_UNKNOWN = 200  # path shapes no spec knows, kept by name


def documented_key(documented: Iterable[str], status: int) -> str | None:
    """The `responses` key a status falls under: itself, its range (`4XX`), or `default`; else None."""
    by_upper = {key.upper(): key for key in documented}
    text = str(status)
    for candidate in (text, f"{text[0]}XX", "DEFAULT"):
        if candidate in by_upper:
            return by_upper[candidate]
    return None


@dataclass(slots=True)
class OperationCount:
    """One operation of the specs: where it is, its documented statuses, what the traffic showed."""

    spec: str
    method: str
    template: str
    documented: tuple[str, ...]  # its `responses` keys, as written
    statuses: Counter[int] = field(default_factory=Counter)

    @property
    def exchanges(self) -> int:
        return sum(self.statuses.values())

    def seen_keys(self) -> list[str]:
        """The documented statuses (or ranges, or `default`) some exchange fell under."""
        hit = {documented_key(self.documented, status) for status in self.statuses}
        return [key for key in self.documented if key in hit]

    def never_keys(self) -> list[str]:
        """The documented statuses no exchange fell under."""
        seen = set(self.seen_keys())
        return [key for key in self.documented if key not in seen]

    def undocumented(self) -> list[int]:
        """The statuses seen that the operation does not document."""
        return sorted(status for status in self.statuses if documented_key(self.documented, status) is None)

    def to_json(self) -> dict[str, Any]:
        return {
            "spec": self.spec,
            "method": self.method,
            "path": self.template,
            "exchanges": self.exchanges,
            "statuses": {str(status): count for status, count in sorted(self.statuses.items())},
            "documented_seen": self.seen_keys(),
            "documented_never": self.never_keys(),
            "undocumented_seen": self.undocumented(),
        }


class Coverage:
    """The specs' operations and what the traffic did with them."""

    def __init__(self, operations: Iterable[Operation]) -> None:
        self.operations: dict[tuple[str, str], OperationCount] = {}
        for operation in operations:
            key = (operation.spec, operation.pointer)
            if key not in self.operations:  # one operation under several base paths is counted once
                responses = operation.node.get("responses")
                keys = tuple(str(key) for key in responses) if isinstance(responses, Mapping) else ()
                self.operations[key] = OperationCount(
                    operation.spec, operation.method, operation.template, keys
                )
        self.unknown: Counter[str] = Counter()  # path shape of each operation no spec knows
        self.overflow = 0  # exchanges of shapes past MAX_UNKNOWN

    def seen(self, operation: Operation, status: int) -> None:
        """One exchange of an operation of the specs, answered with `status`."""
        self.operations[(operation.spec, operation.pointer)].statuses[status] += 1

    def unknown_seen(self, method: str, path: str) -> None:
        """One exchange no spec knows the operation of."""
        shape = path_shape(method, path)
        if shape in self.unknown or len(self.unknown) < MAX_UNKNOWN:
            self.unknown[shape] += 1
        else:
            self.overflow += 1

    def emptied(self) -> Coverage:
        """The same operations, nothing counted (for a part of the traffic counted elsewhere)."""
        empty = Coverage(())
        empty.operations = {
            key: OperationCount(one.spec, one.method, one.template, one.documented)
            for key, one in self.operations.items()
        }
        return empty

    def merge(self, other: Coverage) -> None:
        """Add what `other` (of the same specs) counted."""
        for key, one in other.operations.items():
            self.operations[key].statuses.update(one.statuses)
        for shape, count in other.unknown.items():
            if shape in self.unknown or len(self.unknown) < MAX_UNKNOWN:
                self.unknown[shape] += count
            else:
                self.overflow += count
        self.overflow += other.overflow

    @property
    def exercised(self) -> int:
        """The operations with at least one exchange."""
        return sum(1 for one in self.operations.values() if one.statuses)

    @property
    def percent(self) -> float:
        """Operations exercised of all the specs' operations, in percent (100 when the specs have none)."""
        if not self.operations:
            return 100.0
        return 100.0 * self.exercised / len(self.operations)

    def ordered(self) -> list[OperationCount]:
        """By spec file, then path template, then method."""
        return sorted(self.operations.values(), key=lambda one: (one.spec, one.template, one.method))
