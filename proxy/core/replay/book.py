"""Replay state: the index of recordings by request key, the position in each sequence, and usage.

The same request recorded several times is answered in recorded order (cassettes in the order given,
then recording order); past the end, the last recorded answer repeats.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from urllib.parse import unquote

from proxy.core.cassette.document import Cassette
from proxy.core.model.exchange import Exchange, Request
from proxy.core.redaction.book import KNOWN
from proxy.core.redaction.redact import RedactionPolicy, merged, placeholders_in, redact_request
from proxy.core.replay.matching import (
    Compared,
    Difference,
    Explainer,
    MatchPolicy,
    RequestKey,
    request_key,
)
from proxy.core.replay.simulation.answers import Simulated, Unanswerable
from proxy.core.replay.simulation.simulator import Simulator

CLOSEST_SCAN_LIMIT = 5000
BODY_COMPARED_PER_NEAR_MISS = 3  # candidates whose bodies are compared, per near miss named
MISSES_LISTED = 10_000  # distinct missed requests kept by name; more are only counted
KEYS_KEPT = 4096  # body-less requests whose key is remembered (cleared whole past it)


@dataclass(frozen=True, slots=True)
class Recording:
    """One recorded exchange and where it came from."""

    cassette: str
    index: int
    exchange: Exchange
    upstream: str | None


@dataclass(frozen=True, slots=True)
class Answer:
    """The recording chosen for a request; `repeated` is true when its sequence is used up."""

    recording: Recording
    repeated: bool
    first_repeat: bool
    number: int  # position in the book


@dataclass(frozen=True, slots=True)
class Miss:
    """Nothing answers: the simulator's reason when it knows the resource, and the closest recordings."""

    reason: str | None
    near: list[NearMiss]
    work: int = 0  # what explaining it compared (matching.Explainer), never more than its budget


@dataclass(slots=True)
class MissCount:
    """How often a request missed, and the latest reason."""

    method: str
    target: str
    count: int
    reason: str | None


@dataclass(frozen=True, slots=True)
class NearMiss:
    """A recording close to an unmatched request, with how it differs."""

    recording: Recording
    differences: tuple[Difference, ...]
    unnamed: int = 0  # more query differences, counted and not named


@dataclass(slots=True)
class ReplayBook:
    """Everything replay needs to answer requests from one or more cassettes."""

    policy: MatchPolicy
    redaction: RedactionPolicy
    recordings: list[Recording] = field(default_factory=list)
    _index: dict[RequestKey, list[int]] = field(default_factory=dict)
    _by_route: dict[tuple[str, str], list[int]] = field(default_factory=dict)
    _by_path: dict[str, list[int]] = field(default_factory=dict)  # the same path, any method
    _cursor: dict[RequestKey, int] = field(default_factory=dict)
    _warned: set[RequestKey] = field(default_factory=set)
    uses: list[int] = field(default_factory=list)
    simulate: bool = False
    simulator: Simulator | None = None
    misses: dict[tuple[str, str], MissCount] = field(default_factory=dict)
    simulated: dict[tuple[str, str], int] = field(default_factory=dict)
    served: int = 0  # requests answered by a recording through `respond`
    unlisted_misses: int = 0  # misses past MISSES_LISTED distinct requests
    label: str | None = None  # the X-Commerce-Cassette name that chose this book, if any
    _keys: dict[tuple[object, ...], RequestKey] = field(default_factory=dict)  # `key`'s memory
    _keys_known: frozenset[str] = field(default_factory=frozenset)  # the secrets its keys were made with

    @classmethod
    def build(
        cls,
        cassettes: Sequence[tuple[str, Cassette]],
        policy: MatchPolicy,
        redaction: RedactionPolicy,
        simulate: bool = False,
    ) -> ReplayBook:
        """Index every exchange of the cassettes, in the order given."""
        recorded = (exchange.request for _, cassette in cassettes for exchange in cassette.exchanges)
        book = cls(policy=policy, redaction=merged(redaction, placeholders_in(recorded)), simulate=simulate)
        for name, cassette in cassettes:
            for position, exchange in enumerate(cassette.exchanges):
                book.add(Recording(name, position, exchange, cassette.upstream))
        book.restart_simulation()
        return book

    def restart_simulation(self) -> None:
        """The simulator's state as the recordings leave it (with `simulate` on)."""
        if self.simulate:
            self.simulator = Simulator([recording.exchange for recording in self.recordings])

    def add(self, recording: Recording) -> None:
        """Make one more recording answerable (after those already there)."""
        number = len(self.recordings)
        self.recordings.append(recording)
        self.uses.append(0)
        request = recording.exchange.request
        key = request_key(redact_request(request, self.redaction), self.policy)
        self._index.setdefault(key, []).append(number)
        route = (request.method.upper(), unquote(request.path))
        self._by_route.setdefault(route, []).append(number)
        self._by_path.setdefault(route[1], []).append(number)

    def prepare(self, request: Request) -> Request:
        """The incoming request as recordings see it: its secrets redacted the same way."""
        return redact_request(request, self.redaction)

    def key(self, request: Request) -> RequestKey:
        """The request's key, made from it redacted. A body-less request's is remembered by its parts
        as sent and the secrets known (which its redaction scrubs, and may add to): a replayed client
        asks the same few requests again and again, and redacting and keying one costs a fifth of
        serving it."""
        if request.body.kind != "empty":
            return request_key(self.prepare(request), self.policy)
        known = KNOWN.values
        if known is not self._keys_known:
            self._keys.clear()
            self._keys_known = known
        sent = (request.method, request.path, request.query, request.headers, request.body)
        key = self._keys.get(sent)
        if key is None:
            key = request_key(self.prepare(request), self.policy)
            if KNOWN.values is known:  # else this request taught a secret: its key is made again next time
                if len(self._keys) >= KEYS_KEPT:
                    self._keys.clear()
                self._keys[sent] = key
        return key

    def answer(self, request: Request) -> Answer | None:
        """The next recording in sequence for this request, or None when nothing matches."""
        if not self._index:
            return None  # an empty book (record without a base): no need to redact and key the request
        key = self.key(request)
        numbers = self._index.get(key)
        if not numbers:
            return None
        position = self._cursor.get(key, 0)
        repeated = position >= len(numbers)
        number = numbers[-1] if repeated else numbers[position]
        if not repeated:
            self._cursor[key] = position + 1
        first_repeat = repeated and key not in self._warned
        if first_repeat:
            self._warned.add(key)
        self.uses[number] += 1
        return Answer(self.recordings[number], repeated, first_repeat, number)

    def holds(self, request: Request) -> bool:
        """Whether a recording matches this request (nothing is used up)."""
        return bool(self._index) and self.key(request) in self._index

    def respond(self, request: Request, now: str | Callable[[], str]) -> Answer | Simulated | Miss:
        """Answer a request: a recording, else (with `simulate`) the simulator, else a miss.

        A feature or entry the session changed by simulation is always simulated: recordings of it
        are stale. `now` is ISO 8601 with microseconds and `Z`, for timestamps of simulated changes (or
        how to read it: only a simulation does).
        """
        simulator = self.simulator
        if simulator is None or not simulator.takes_over(request):
            answer = self.answer(request)
            if answer is not None:
                if simulator is not None:
                    simulator.observe(answer.number, answer.recording.exchange)
                self.served += 1
                return answer
        reason = None
        if simulator is not None:
            result = simulator.answer(request, now() if callable(now) else now)
            if isinstance(result, Simulated):
                for number in result.sources:
                    self.uses[number] += 1
                route = (request.method.upper(), unquote(request.path))
                self.simulated[route] = self.simulated.get(route, 0) + 1
                return result
            reason = result.detail if isinstance(result, Unanswerable) else None
        return self.missed(request, reason)

    def missed(self, request: Request, reason: str | None) -> Miss:
        """Count a miss (by its redacted target) and find the closest recordings."""
        prepared = self.prepare(request)
        key = (prepared.method.upper(), prepared.target)
        count = self.misses.get(key)
        if count is None and len(self.misses) >= MISSES_LISTED:
            self.unlisted_misses += 1
        elif count is None:
            self.misses[key] = MissCount(key[0], key[1], 1, reason)
        else:
            count.count += 1
            count.reason = reason
        explainer = Explainer(self.prepare(request), self.policy)
        return Miss(reason, self.closest(request, explainer=explainer), explainer.spent)

    def closest(self, request: Request, limit: int = 3, explainer: Explainer | None = None) -> list[NearMiss]:
        """Up to `limit` recordings nearest to an unmatched request, nearest first (`closeness`: the
        path, then the method, then the rest; ties in recording order), found within the explainer's
        budget: recordings of the same route are compared first, then those of the same path."""
        prepared = self.prepare(request) if explainer is None else explainer.incoming
        explainer = explainer or Explainer(prepared, self.policy)
        route = (prepared.method.upper(), unquote(prepared.path))
        numbers = list(self._by_route.get(route, ()))
        if len(numbers) < limit:
            numbers.extend(number for number in self._by_path.get(route[1], ()) if number not in numbers)
        if len(numbers) < limit:
            seen = set(numbers)
            numbers.extend(
                number
                for number in range(min(len(self.recordings), CLOSEST_SCAN_LIMIT))
                if number not in seen
            )
        # Bodies are compared only for the nearest few by method, path and query: comparing a large
        # body's every leaf with thousands of candidates held the event loop for seconds.
        scored: list[tuple[int, int, Compared]] = []
        for number in numbers[:CLOSEST_SCAN_LIMIT]:
            heads = explainer.compare(self.recordings[number].exchange.request, bodies=False)
            if heads is None:
                break  # the budget is spent: the nearest of those compared are named
            scored.append((heads.distance, number, heads))
        scored.sort(key=lambda item: (item[0], item[1]))
        near = []
        for _, number, heads in scored[: limit * BODY_COMPARED_PER_NEAR_MISS]:
            found = explainer.compare(self.recordings[number].exchange.request, bodies=True)
            # One the budget left unexplained ranks after those explained: its distance is partial.
            near.append((found is None, (found or heads).distance, number, found or heads))
        near.sort(key=lambda item: item[:3])
        return [
            NearMiss(self.recordings[number], tuple(found.differences), found.unnamed)
            for _, _, number, found in near[:limit]
        ]

    def reset(self) -> None:
        """Rewind every sequence to its first recording (for test suites)."""
        self._cursor.clear()
        self._warned.clear()
        self.restart_simulation()
