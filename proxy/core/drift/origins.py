"""The origin an answer was recorded from is not part of its meaning: the same service at another
address (a new sandbox port, staging instead of production) writes its links at that address. When two
answers are compared, a live link is read as at the cassette's origin (`link`, `text`), but what a
report shows is what the service sent; before a live answer joins a cassette, its absolute URLs at the
live origin are moved to the cassette's (`upstream`), as replay moves them to its own. A URL at any
other origin stays.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from urllib.parse import urlsplit

from proxy.core.model.exchange import Body, Exchange, Response
from proxy.core.model.links import OriginRewriter, origin_of


@dataclass(frozen=True, slots=True)
class Origins:
    """Where the recorded answers came from (the cassette's `upstream`) and where the live ones come
    from; either may be unknown (None), and then nothing moves."""

    recorded: str | None = None
    live: str | None = None

    @property
    def moved(self) -> bool:
        """Whether the two differ, so live answers need moving."""
        if not self.recorded or not self.live:
            return False
        return _base(self.recorded) != _base(self.live)

    def link(self, value: str) -> str:
        """One live JSON string as the recorded origin would have written it."""
        if not self.moved or "://" not in value:
            return value
        return self._rewriter().url(value)

    def text(self, value: str) -> str:
        """A live text body with each absolute URL at the live origin moved to the recorded one."""
        if not self.moved or "://" not in value:
            return value
        return _moved_text(self._rewriter(), value)

    def _rewriter(self) -> OriginRewriter:
        assert self.recorded is not None and self.live is not None
        return OriginRewriter(self.live, self.recorded, keep_new_path=True)

    def response(self, response: Response) -> Response:
        """A live answer as the recorded origin would have written it: links in a JSON or text body and
        Location headers at the live origin moved to the recorded one."""
        if not self.moved:
            return response
        rewriter = self._rewriter()
        body = response.body
        if body.kind == "json":
            body = Body("json", rewriter.json(body.value), body.decoded_from)
        elif (
            body.kind == "text" and isinstance(body.value, str) and rewriter.mentions_old(body.value.encode())
        ):
            body = Body("text", _moved_text(rewriter, body.value), body.decoded_from)
        return replace(response, headers=rewriter.headers(response.headers), body=body)

    def exchange(self, exchange: Exchange) -> Exchange:
        """`response` for a whole exchange (its request is what the client sent, and stays)."""
        moved = self.response(exchange.response)
        return exchange if moved is exchange.response else replace(exchange, response=moved)


SAME = Origins()  # nothing moves: the default of the comparisons


def _base(upstream: str) -> str:
    return origin_of(upstream) + urlsplit(upstream).path.rstrip("/")


def _moved_text(rewriter: OriginRewriter, text: str) -> str:
    """Each whitespace-separated absolute URL of a text body at the live origin, moved."""
    return "".join(rewriter.url(piece) if "://" in piece else piece for piece in _pieces(text))


def _pieces(text: str) -> list[str]:
    return re.split(r"(\s+|[\"'<>()])", text)
