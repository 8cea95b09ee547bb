"""The recording journal's line codec: an `Exchange` to one JSON line (`{"seq": N, "exchange": {...}}`,
the exchange as the cassette's YAML mapping holds it, `proxy.core.cassette.document`) and back. Pure:
the file is `proxy.store.journal`; a live checker process reads the same lines."""

from __future__ import annotations

from typing import Any

from proxy.core.cassette.document import exchange_from_document, exchange_to_document
from proxy.core.model.bodies import dump_json, loads_exact
from proxy.core.model.domain import exchange_problem
from proxy.core.model.exchange import Exchange
from proxy.errors import NotRecordable


def journal_line(sequence: int, exchange: Exchange) -> bytes:
    """One exchange as a journal line: `{"seq": N, "exchange": {...}}` and a newline.

    `NotRecordable` for an exchange `read_journal` would refuse: the heads pass the reader's own
    checks (`proxy.core.model.heads`) and the line must encode, so one exchange never spoils a journal.
    """
    problem = exchange_problem(exchange)
    if problem is not None:
        raise NotRecordable(f"cannot record this exchange: {problem}")
    try:
        return json_line({"seq": sequence, "exchange": exchange_to_document(exchange)})
    except (TypeError, ValueError) as error:  # a lone surrogate, say: UTF-8 cannot hold it
        raise NotRecordable(f"cannot record this exchange: its body cannot be written ({error})") from None


def json_line(document: dict[str, Any]) -> bytes:
    """One JSON line, every number in a body spelled as it was read."""
    return dump_json(document) + b"\n"


def parse_json_line(line: bytes) -> Any:
    """A JSON line, as `json_line` writes them: numbers keep their spelling."""
    return loads_exact(line)


def journal_entry(document: Any, now: float | None = None) -> tuple[int, Exchange]:
    """`journal_line`'s inverse, from the line's parsed JSON: (sequence, exchange). KeyError, TypeError,
    ValueError or AttributeError when it is no entry; CassetteFormatError when its exchange is outside
    the cassette format (`now`: what a recording may not be after)."""
    exchange = exchange_from_document(document.get("exchange"), ("exchange",), now)
    return int(document["seq"]), exchange
