"""What the stateful checks remember across the exchanges of one cassette or live session.

Every memory is bounded (the entry stored longest ago goes first) so a proxy that runs for days stays flat.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from proxy.core.rules.freshness import Freshness

Key = TypeVar("Key")
Value = TypeVar("Value")


class BoundedMemory(Generic[Key, Value]):
    """A dict that forgets the entry stored longest ago beyond `capacity`.

    Reading does not count as use: what is kept depends only on what the observers stored, so a checker
    that replays only the observers over a stream's start holds the same memories as one that checked it.
    """

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._items: OrderedDict[Key, Value] = OrderedDict()

    def get(self, key: Key) -> Value | None:
        return self._items.get(key)

    def put(self, key: Key, value: Value) -> None:
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self.capacity:
            self._items.popitem(last=False)

    def __len__(self) -> int:
        return len(self._items)


@dataclass(frozen=True, slots=True)
class FeatureState:
    """The last known feature, from the last successful answer that showed it (its read, update, create
    or a list item). `complete`: the answer was the feature itself, so an attribute it lacks is absent;
    a list item may leave attributes out, so only those it shows are known."""

    attributes: dict[str, Any]
    updated_at: Any
    exchange: int
    complete: bool = True


@dataclass(frozen=True, slots=True)
class Shown:
    """What is known of one version of an entry: a fingerprint of each field by path (see
    `entries.fingerprint`), the exchange that showed it last, and the exchange that showed each field
    an earlier answer showed and the last one did not (`earlier`; see `entries.merged`)."""

    fields: dict[str, bytes]
    exchange: int
    earlier: dict[str, int] = field(default_factory=dict)

    def shown_at(self, path: str) -> int:
        return self.earlier.get(path, self.exchange)


@dataclass(frozen=True, slots=True)
class EntryState:
    """The last representation of an entry seen, the version it named (its ETag, or `W/"<etag_id>"`),
    what the answers since that named the same version showed, up to and merged with the last read of
    it (`since`: the entry must not have changed from it), and what each version was last shown to be
    (by the first answer that named it, then by each read of it)."""

    etag: str | None
    shown: Shown
    since: Shown
    by_etag: dict[str, Shown]


@dataclass(frozen=True, slots=True)
class WalkState:
    """The end of the last page of a sorted list: the last sort value and how many records shared it."""

    value: Any
    sharing: int
    exchange: int


@dataclass(frozen=True, slots=True)
class DefaultPageLength:
    """The page length a list answered with when no `page[limit]` was sent, and where first seen."""

    limit: int
    exchange: int


class Session:
    """Memories of the features, entries and sort+filter walks seen so far, and the project's default
    page length: as its config states it (`page_lengths`), or as the first list answered without a
    `page[limit]` showed it (set per project through the settings endpoint, which is not shown), and
    how old a recording the project accepts."""

    def __init__(
        self, capacity: int = 10_000, page_lengths: tuple[int, ...] = (), freshness: Freshness | None = None
    ) -> None:
        self.features: BoundedMemory[str, FeatureState] = BoundedMemory(capacity)
        self.entries: BoundedMemory[tuple[str, str], EntryState] = BoundedMemory(capacity)  # slug, id
        self.walks: BoundedMemory[tuple[str, str], WalkState] = BoundedMemory(capacity)
        self.page_lengths = page_lengths
        self.default_page_length: DefaultPageLength | None = None
        self.freshness = freshness  # the project's max_age and the time now, when max_age is set
