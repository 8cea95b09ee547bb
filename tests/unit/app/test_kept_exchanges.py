"""An exchange the UI's index keeps is rebuilt by the core's one decoder of a kept exchange
(`cassette.cache_line`), the same as it was indexed: headers in their order (a name repeated around
another stays where it was), a JSON body as its exact text, and the Content-Encoding a body was
decoded from (an action's curl, diff, resend and export see what was recorded)."""

from __future__ import annotations

import base64
import itertools

from proxy.app.traffic_rows import entry_of
from proxy.app.ui_action_cases import exchange_of
from proxy.core.model.bodies import body_to_bytes
from proxy.core.model.exchange import EMPTY_BODY, Body, Exchange, JSONFromText, Request, Response, source_text
from proxy.store.traffic_index import temporary_index

BODIES = {
    "empty": EMPTY_BODY,
    "json": JSONFromText(text='{"b": 1.50,  "a": [1E2, -0]}'),
    "text": Body("text", "a\r\nb é "),
    "binary": Body("base64", base64.b64encode(b"\x00\xff\x10").decode()),
}
HEADERS = {
    "none": (),
    "interleaved": (("Accept", "a"), ("X-One", "1"), ("accept", "b"), ("X-One", "2")),
}


def kept(exchange: Exchange) -> Exchange:
    index = temporary_index()
    try:
        index.add([entry_of(exchange, [], cassette=None, index=None, endpoint=None)])
        found = index.exchange(1)
        assert found is not None
        return exchange_of(*found)
    finally:
        index.close()


def test_every_kind_of_kept_exchange_comes_back_as_it_was_indexed() -> None:
    kinds = itertools.product(BODIES, BODIES, HEADERS, [None, "gzip"], [None, "2026-11-22T03:11:09.552627Z"])
    for request_kind, response_kind, headers, decoded_from, recorded_at in kinds:
        request_body, response_body = BODIES[request_kind], BODIES[response_kind]
        if decoded_from is not None:
            response_body = _decoded(response_body, decoded_from)
        exchange = Exchange(
            Request("POST", "/v2/orders", "page[limit]=5", HEADERS[headers], request_body),
            Response(201, HEADERS[headers], response_body, "Created Here"),
            recorded_at,
            2.5 if recorded_at else None,
        )
        back = kept(exchange)
        case = (request_kind, response_kind, headers, decoded_from, recorded_at)
        for mine, theirs in ((exchange.request, back.request), (exchange.response, back.response)):
            assert mine.headers == theirs.headers, case
            assert (
                theirs.body.kind == mine.body.kind and theirs.body.decoded_from == mine.body.decoded_from
            ), case
            assert body_to_bytes(theirs.body) == body_to_bytes(mine.body), case
            if mine.body.kind == "json":
                assert source_text(theirs.body) == source_text(mine.body), case
        assert (back.request.method, back.request.path, back.request.query) == (
            "POST",
            "/v2/orders",
            "page[limit]=5",
        )
        assert (back.response.status, back.response.reason) == (201, "Created Here"), case
        assert (back.recorded_at, back.duration_ms) == (exchange.recorded_at, exchange.duration_ms), case


def _decoded(body: Body, coding: str) -> Body:
    if body.kind == "json":
        return JSONFromText(text=source_text(body) or "", decoded_from=coding)
    return Body(body.kind, body.value, coding)
