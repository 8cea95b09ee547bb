"""The parse cache's line codec: an `Exchange` to one compact JSON line and back, and the line that
closes an entry. Pure: bytes in, values out (the files are `proxy.store.cassette_reader.parse_cache`).

An entry is a key line, then one compact JSON list per exchange, then a closing line with the
upstream and the count; a JSON body is kept as its text (`JSONFromText`): building 10,000 exchanges
takes about a tenth of a second, and a body is parsed only when something reads it. Every value is
type-checked as it is built, so a foreign entry is a miss, not a strange cassette.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

from proxy.core.model.bodies import dump_json
from proxy.core.model.exchange import BODY_KINDS, EMPTY_BODY, Body, Exchange, JSONFromText, Request, Response

Seen = dict[tuple[str, ...], tuple[tuple[str, str], ...]]  # equal header sets read share one tuple


# The front of an exchange's line up to its request's query, when no string in it has an escape.
REQUEST_LINE = re.compile(rb'\[(?:null|"[^"\\]*"),[^,]*,\["([^"\\]*)","([^"\\]*)","([^"\\]*)",')


def request_line_of(line: bytes) -> tuple[str, str, str] | None:
    """(method, path, query) read off the front of an exchange's line: a sixth of the cost of reading
    the line, whose response body is most of it. None when only reading the line can tell."""
    found = REQUEST_LINE.match(line)
    if found is None:
        return None
    try:
        return found[1].decode("utf-8"), found[2].decode("utf-8"), found[3].decode("utf-8")
    except UnicodeDecodeError:
        return None


def entry_line(exchange: Exchange) -> bytes:
    """One exchange's line of an entry (TypeError for a value JSON cannot hold: an int over 64 bits)."""
    return orjson.dumps(_entry_of(exchange), option=orjson.OPT_APPEND_NEWLINE)


def closing_line(upstream: str | None, count: int) -> bytes:
    """The line that ends an entry: an entry cut short has none, or the wrong count."""
    return orjson.dumps({"upstream": upstream, "count": count}, option=orjson.OPT_APPEND_NEWLINE)


def _entry_of(exchange: Exchange) -> list[object]:
    return [
        exchange.recorded_at,
        exchange.duration_ms,
        [
            exchange.request.method,
            exchange.request.path,
            exchange.request.query,
            _flat(exchange.request.headers),
            _body_entry(exchange.request.body),
        ],
        [
            exchange.response.status,
            exchange.response.reason,
            _flat(exchange.response.headers),
            _body_entry(exchange.response.body),
        ],
    ]


def _flat(headers: tuple[tuple[str, str], ...]) -> list[str]:
    return [part for pair in headers for part in pair]


def _body_entry(body: Body) -> list[object] | None:
    if body.kind == "empty" and body.decoded_from is None:
        return None
    value = dump_json(body.value).decode("utf-8") if body.kind == "json" else body.value
    return [body.kind, value, body.decoded_from]


def exchange_of_entry(item: list[Any], seen: Seen, confirmed_at: str | None) -> Exchange:
    """The exchange of one entry line's JSON (ValueError or TypeError when it is not one); `seen`
    holds the header sets read before, `confirmed_at` is the cassette's."""
    recorded_at, duration, request, response = item
    method, path, query, request_headers, request_body = request
    status, reason, response_headers, response_body = response
    if not (
        isinstance(method, str)
        and isinstance(path, str)
        and isinstance(query, str)
        and type(status) is int
        and (reason is None or isinstance(reason, str))
        and (recorded_at is None or isinstance(recorded_at, str))
        and (duration is None or type(duration) in (int, float))
    ):
        raise ValueError("not an exchange entry")
    return Exchange(
        Request(method, path, query, _headers_of(request_headers, seen), _body_of(request_body)),
        Response(status, _headers_of(response_headers, seen), _body_of(response_body), reason),
        recorded_at,
        None if duration is None else float(duration),
        confirmed_at,
    )


def _headers_of(flat: list[str], seen: Seen) -> tuple[tuple[str, str], ...]:
    key = tuple(flat)
    headers = seen.get(key)
    if headers is None:
        "".join(key)  # TypeError unless every name and value is a string, checked at C speed
        if len(key) % 2:
            raise ValueError("not a header entry")
        parts = iter(key)
        headers = seen[key] = tuple(zip(parts, parts, strict=True))
    return headers


def _body_of(item: list[Any] | None) -> Body:
    if item is None:
        return EMPTY_BODY
    kind, value, decoded_from = item
    if kind not in BODY_KINDS or not (decoded_from is None or isinstance(decoded_from, str)):
        raise ValueError("not a body entry")
    if kind == "json":
        if not isinstance(value, str):
            raise ValueError("not a JSON body entry")
        return JSONFromText(decoded_from=decoded_from, text=value)
    if not ((kind == "empty" and value is None) or isinstance(value, str)):
        raise ValueError("not a body entry")
    return Body(kind, value, decoded_from)
