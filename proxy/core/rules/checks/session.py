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
    """What is known of a feature: each attribute some successful answer showed (its read, update or
    create, or a list item), with the exchange that showed it last (`shown_at`), and the newest
    `updated_at` shown. `complete`: a feature's own answer showed all its attributes, so one the state
    lacks is absent; a list item may leave attributes out, so one it does not show is unknown (it is
    merged into the state, never wipes it). `exchange`: the last answer learned from."""

    attributes: dict[str, Any]
    updated_at: Any
    exchange: int
    complete: bool = True
    shown_at: dict[str, int] = field(default_factory=dict)

    def attribute_shown_at(self, name: str) -> int:
        return self.shown_at.get(name, self.exchange)


@dataclass(frozen=True, slots=True)
class Shown:
    """What is known of one representation of an entry: a fingerprint of each field by path (see
    `entries.fingerprint`), the exchange that showed it last, and the exchange that showed each field
    an earlier answer showed and the last one did not (`earlier`; see `entries.merged`)."""

    fields: dict[str, bytes]
    exchange: int
    earlier: dict[str, int] = field(default_factory=dict)

    def shown_at(self, path: str) -> int:
        return self.earlier.get(path, self.exchange)


@dataclass(frozen=True, slots=True)
class Unreported:
    """A fact of an ETag shown by an answer the ETag rules do not judge (an update's answer, a create,
    a list item), left for the next read of the entry: which rule's (`changes` or `identifies`), and
    the exchange and places of the representation it differs from."""

    rule: str
    other: int
    places: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Version:
    """The distinct representations one ETag was seen on (the one shown last, last; bounded), and the
    fact about it not yet reported, if any."""

    representations: tuple[Shown, ...]
    unreported: Unreported | None = None


@dataclass(frozen=True, slots=True)
class EntryState:
    """What is known of a custom API entry: the version the last answer named (its ETag, or
    `W/"<etag_id>"`) and the exchange that began the run of answers naming it (`run`), the last
    exchange learned from, the representations each version was seen on, and the newest `updated_at`
    and `resource_version` shown (an answer older than them does not replace what is known)."""

    etag: str | None
    run: int
    exchange: int
    versions: dict[str, Version]
    newest: tuple[Any, Any] = (None, None)


@dataclass(frozen=True, slots=True)
class WalkState:
    """The end of the last page of a sorted list: the last sort value, how many records shared it, and
    whether they were the whole of a full page (the next page must then page on at that value)."""

    value: Any
    sharing: int
    exchange: int
    whole_page: bool = False


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
