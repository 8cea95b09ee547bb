"""The UI's index entries of `record` and `spy`, made in the live checker's process.

With a page open, each exchange's row and detail document (made and compressed: about 40 us of a
4 KB exchange) were made on the proxy's loop, its busiest core. The checker's process already has the
exchange as recorded (its journal line, redacted) and its findings, so once the proxy's UI view exists
it asks the checker (`ENTRIES`, a control frame) to answer each exchange with its entry too: the row's
fields and rules as JSON, the packed detail as bytes after a NUL (JSON written by orjson holds none).
From then on each exchange goes with what the journal does not keep and the UI shows (`Unjournaled`),
so the entry is the one the proxy would make. The proxy adds the bodies' text for the search itself
(it has them) and keeps each entry only if its book of secrets did not change since the exchange was
handed over; else it makes the entry itself, scrubbing the findings by what it has learned since, as
before (`LiveIndexer.flush`). A checker in the proxy's own process (after a failed child) makes none.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import orjson

from proxy.core.model.exchange import Exchange, source_text, with_source_text
from proxy.core.rules.findings import Finding
from proxy.store.rule_files import RulesInForce
from proxy.store.traffic_entries import BODY_TEXT_LONGEST, Prepared, prepared

ENTRIES = b"!entries "  # a frame to the checker: from now on answer with each exchange's entry


@dataclass(frozen=True, slots=True)
class CheckerEntry:
    """An exchange's index entry as the checker's process made it, less its bodies' text; `book`: the
    proxy's secrets when the exchange was handed over (the entry is kept only if they are still those)."""

    row: tuple[Any, ...]
    rules: tuple[str, ...]
    packed: bytes
    book: frozenset[str]

    def prepared(self, texts: tuple[str, str]) -> Prepared:
        """The entry as `TrafficIndex.add_prepared` stores it, with the bodies' text the proxy has."""
        request_text, response_text = texts
        return (
            self.row,
            self.packed,
            self.rules,
            request_text[:BODY_TEXT_LONGEST],
            response_text[:BODY_TEXT_LONGEST],
        )


# What the journal does not keep of an exchange and the UI shows: its JSON bodies' texts as they came
# (it writes the document) and the answer's reason phrase (left out when it is the standard one).
Unjournaled = tuple[str | None, str | None, str | None]


def exchange_frame(line: bytes, exchange: Exchange) -> bytes:
    """An exchange's frame to a checker making entries: its journal line, then (after a NUL) what the
    journal does not keep of it (`Unjournaled`)."""
    request, response = exchange.request, exchange.response
    kept = (source_text(request.body), source_text(response.body), response.reason)
    try:
        return line + b"\0" + orjson.dumps(kept)
    except orjson.JSONEncodeError:  # a lone surrogate: the entry shows the document, as a cassette's
        return line + b"\0" + orjson.dumps((None, None, response.reason))


def read_exchange_frame(payload: bytes) -> tuple[bytes, Unjournaled | None]:
    """`exchange_frame`'s inverse: the journal line, and what the journal does not keep."""
    cut = payload.find(b"\0")
    if cut == -1:
        return payload, None
    request_text, response_text, reason = orjson.loads(payload[cut + 1 :])
    return payload[:cut], (request_text, response_text, reason)


def entries_frame(cassette: str | None) -> bytes:
    """The control frame that asks the checker for entries naming `cassette` (None: spy's)."""
    return ENTRIES + orjson.dumps({"cassette": cassette})


class EntryMaker:
    """The checker's side: each exchange's entry, as the proxy's `LiveIndexer` would make it."""

    def __init__(self, in_force: RulesInForce, payload: bytes) -> None:
        from proxy.app.project_rules import shown_baseline
        from proxy.app.traffic_view import Endpoints

        self._endpoints = Endpoints(in_force.ruleset)
        self._accepted = shown_baseline(in_force)
        self._cassette = orjson.loads(payload.removeprefix(ENTRIES))["cassette"]

    def answer(
        self,
        answer: bytes,
        exchange: Exchange,
        findings: Sequence[Finding],
        sequence: int,
        unjournaled: Unjournaled | None,
    ) -> bytes:
        """`answer` (the findings' frame) with the exchange's entry after it, made with what the journal
        did not keep of it (`exchange_frame`)."""
        from proxy.app.traffic_view import _entry

        shown = exchange
        if unjournaled is not None:
            request_text, response_text, reason = unjournaled
            request, response = exchange.request, exchange.response
            shown = replace(
                exchange,
                request=replace(request, body=with_source_text(request.body, request_text)),
                response=replace(
                    response, body=with_source_text(response.body, response_text), reason=reason
                ),
            )
        row, packed, rules, _, _ = prepared(
            _entry(shown, findings, None, self._endpoints, self._cassette, sequence, accepted=self._accepted)
        )
        return answer[:-1] + b"," + orjson.dumps([row, rules]) + b"]\0" + packed
