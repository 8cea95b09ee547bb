"""What a server tells a watcher of each request it answered: the request as the client sent it, and
what answered it (a recording, the simulator, the upstream, or nothing). The pytest plugin watches its
servers this way, to show a test its exchanges and to explain a miss in the test's own failure."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the pytest plugin imports this module at load; the replay book only when serving
    from proxy.core.model.exchange import Request
    from proxy.core.replay.book import Answer, Miss, ReplayBook
    from proxy.core.replay.simulation.answers import Simulated

SIMULATED = "simulated"
MISSED = "missed"
FORWARDED = "forwarded"  # forwarded to the upstream, not kept (a fresh token, an upstream failure)


@dataclass(frozen=True, slots=True)
class Seen:
    """One request served. `request` is as sent, secrets included: a watcher keeps it in memory only.
    `shown` is the request as recordings see it (redacted), for anything printed or kept."""

    request: Request
    shown: Request
    status: int
    answered_by: int | str  # the recording's index in `cassette` (a new one's when recorded),
    # or SIMULATED, MISSED, FORWARDED (to the upstream and not recorded)
    cassette: str | None = None
    miss: Miss | None = None

    @classmethod
    def of(cls, request: Request, book: ReplayBook, result: Answer | Simulated | Miss, status: int) -> Seen:
        """What the replay book's verdict on `request` tells a watcher."""
        from proxy.core.replay.book import Answer
        from proxy.core.replay.simulation.answers import Simulated

        shown = book.prepare(request)
        if isinstance(result, Answer):
            recording = result.recording
            return cls(request, shown, status, recording.index, recording.cassette)
        if isinstance(result, Simulated):
            return cls(request, shown, status, SIMULATED)
        return cls(request, shown, status, MISSED, miss=result)


Watch = Callable[[Seen], None]
