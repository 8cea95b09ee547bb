"""Two versions of a cassette paired exchange by exchange: the k-th recording of a request in one with
the k-th of the same request in the other (requests keyed as replay matches them), then compared by
meaning. What only one version holds is added or removed."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

from proxy.core.drift.compare import Difference, Tier, Tiering, compare_exchanges, is_drift, tier_counts
from proxy.core.drift.origins import SAME, Origins
from proxy.core.model.exchange import Exchange
from proxy.core.replay.matching import MatchPolicy, request_key


@dataclass(frozen=True, slots=True)
class Pair:
    """One request recorded in both versions, at these indexes, and how its answers differ."""

    index_a: int
    index_b: int
    request: str
    differences: list[Difference]


@dataclass(frozen=True, slots=True)
class Unpaired:
    """An exchange only one version holds."""

    index: int
    request: str


@dataclass(slots=True)
class CassetteDiff:
    pairs: list[Pair] = field(default_factory=list)
    added: list[Unpaired] = field(default_factory=list)  # only in B
    removed: list[Unpaired] = field(default_factory=list)  # only in A

    def counts(self) -> dict[Tier, int]:
        return tier_counts(difference for pair in self.pairs for difference in pair.differences)

    @property
    def drifted(self) -> bool:
        """Anything but volatile values differs: a change, an exchange added or removed."""
        changed = is_drift(difference for pair in self.pairs for difference in pair.differences)
        return bool(self.added or self.removed or changed)


def request_line(exchange: Exchange) -> str:
    request = exchange.request
    return f"{request.method} {request.target}"


def pair_cassettes(
    a: Sequence[Exchange],
    b: Sequence[Exchange],
    policy: MatchPolicy | None = None,
    origins: Origins = SAME,
    tiering: Tiering | None = None,
) -> CassetteDiff:
    """`origins`: where A and B were recorded from, so a link that only moved origin is no change;
    `tiering`: the published specs, which tier the differences they decide (B judged by them)."""
    policy = policy or MatchPolicy()
    waiting: dict[Hashable, list[int]] = defaultdict(list)
    for index, exchange in enumerate(b):
        waiting[request_key(exchange.request, policy)].append(index)
    taken: set[int] = set()
    diff = CassetteDiff()
    for index, exchange in enumerate(a):
        candidates = waiting.get(request_key(exchange.request, policy))
        if not candidates:
            diff.removed.append(Unpaired(index, request_line(exchange)))
            continue
        other = candidates.pop(0)
        taken.add(other)
        differences = compare_exchanges(exchange, b[other], origins, tiering)
        diff.pairs.append(Pair(index, other, request_line(exchange), differences))
    diff.added = [Unpaired(index, request_line(item)) for index, item in enumerate(b) if index not in taken]
    return diff


@dataclass(frozen=True, slots=True)
class ReRecorded:
    """A re-recording's exchanges, and how many of them were kept unchanged (their earlier entries,
    byte for byte), changed (paired with an earlier recording, answered otherwise) or new."""

    exchanges: tuple[Exchange, ...]
    unchanged: int
    changed: int
    new: int


def re_recorded(
    before: Sequence[Exchange],
    after: Sequence[Exchange],
    policy: MatchPolicy | None = None,
    origins: Origins = SAME,
) -> ReRecorded:
    """`keep_unchanged`, counted."""
    kept = [origins.exchange(exchange) for exchange in after]
    unchanged = changed = 0
    for pair in pair_cassettes(before, kept, policy).pairs:
        if is_drift(pair.differences):
            changed += 1
        else:
            kept[pair.index_b] = before[pair.index_a]
            unchanged += 1
    return ReRecorded(tuple(kept), unchanged, changed, len(kept) - unchanged - changed)


def keep_unchanged(
    before: Sequence[Exchange],
    after: Sequence[Exchange],
    policy: MatchPolicy | None = None,
    origins: Origins = SAME,
) -> tuple[Exchange, ...]:
    """A re-recording with each exchange whose answer differs from its earlier recording only in
    volatile values replaced by that earlier recording, whole: re-recording an unchanged service
    changes no byte of the cassette, and a real change stands out in the diff. `origins`: where the
    earlier recording and this one were made; a new exchange is written at the earlier origin, so
    re-recording from another address of the same service changes only what the service changed."""
    return re_recorded(before, after, policy, origins).exchanges
