"""`replay --simulate`: answering requests no recording matches, from what the recordings know.

Which answer wins is fixed: a request about a feature or entry the session changed by simulation is
simulated (the recordings of it are stale); otherwise a matching recording answers; otherwise the
simulator answers when it can, and says why when it cannot (never inventing records).
"""

from __future__ import annotations

from collections.abc import Sequence

from proxy.core.model.exchange import Exchange, Request
from proxy.core.replay.simulation import entries, features
from proxy.core.replay.simulation.answers import (
    Simulated,
    Unanswerable,
    invalid,
    json_answer,
    missing_bearer,
    refusal,
)
from proxy.core.replay.simulation.lists import (
    ListKnowledge,
    Refusal,
    Uncovered,
    learn_lists,
    list_key,
    page_ask,
)


class Simulator:
    """The state the recordings imply (lists, features, entries), kept current through a session."""

    def __init__(self, exchanges: Sequence[Exchange]) -> None:
        self._exchanges = exchanges
        self.lists: dict[tuple[str, tuple[tuple[str, str], ...]], ListKnowledge] = learn_lists(
            enumerate(exchanges)
        )
        self.features: dict[str, features.KnownFeature] = {}
        self.entries: dict[entries.EntryKey, entries.KnownEntry] = {}
        for number, exchange in enumerate(exchanges):
            self.observe(number, exchange)

    def observe(self, number: int, exchange: Exchange) -> None:
        """Learn from a recorded answer (at start, and each time replay serves one)."""
        feature = features.learned_feature(exchange)
        if feature is not None:
            identifier, data = feature
            self.features[identifier] = features.KnownFeature(data, exchange.response.status, number)
            return
        entry = entries.learned_entry(number, exchange)
        if entry is not None:
            key, known = entry
            self.entries[key] = known

    def takes_over(self, request: Request) -> bool:
        """Whether the session changed this resource by simulation, so recordings of it are stale."""
        identifier = features.feature_id(request)
        if identifier is not None:
            known = self.features.get(identifier)
            return known is not None and known.changed
        key = entries.entry_key(request)
        entry = self.entries.get(key) if key is not None else None
        return entry is not None and entry.changed

    def answer(self, request: Request, now: str) -> Simulated | Unanswerable | None:
        """The simulated answer; Unanswerable with a reason; None when the request is nothing it knows.

        `now` is the current time, ISO 8601 with microseconds and `Z`, for timestamps of changes.
        """
        method = request.method.upper()
        target = request.target
        if features.feature_id(request) is not None:
            return self._feature(request, now)
        key = entries.entry_key(request)
        if key is not None and method in ("GET", "PUT"):
            entry = self.entries.get(key)
            if entry is None:
                return None
            if missing_bearer(request.headers):
                return _unauthorised(request)
            template = self._exchanges[entry.number]
            if method == "GET":
                return entries.read(entry, template, request)
            return entries.update(entry, template, request, now)
        if method == "GET":
            knowledge = self.lists.get(list_key(request))
            if knowledge is None:
                return None
            if missing_bearer(request.headers):
                return _unauthorised(request)
            ask = page_ask(request)
            if isinstance(ask, Refusal):
                return refusal(
                    ask.status, "Bad Request", [(ask.source, ask.detail)], f"GET {target}: refused"
                )
            window = knowledge.window(ask, f"GET {target}")
            if isinstance(window, Uncovered):
                return Unanswerable(window.detail)
            template = self._exchanges[window.template]
            shown = len(window.document["data"])
            response = json_answer(200, window.document, template)
            return Simulated(
                response, window.sources, window.template, f"GET {target}: {shown} recorded records"
            )
        return None

    def _feature(self, request: Request, now: str) -> Simulated | None:
        """A known feature is updated; a path that is not a UUID is refused whatever the cassette knows."""
        identifier = features.feature_id(request) or ""
        known = self.features.get(identifier)
        well_formed = features.is_uuid(identifier)
        if known is None and well_formed:
            return None
        if missing_bearer(request.headers):
            return _unauthorised(request)
        if known is None or not well_formed:
            return invalid([("feature_uuid", f"{identifier!r} is not a UUID")], f"PUT {request.target}")
        return features.simulate_update(known, self._exchanges[known.number], request, now)


def _unauthorised(request: Request) -> Simulated:
    """Spec, Authentication: no bearer token, no answer (api-notes: 401 `Unable to validate access token`)."""
    return refusal(
        401,
        "Unauthorized",
        [(None, "Unable to validate access token")],
        f"{request.method} {request.target}: 401, no bearer token",
    )
