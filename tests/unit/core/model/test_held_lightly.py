"""`held_lightly`: what a live server holds of an exchange until its UI is first opened. Over every kind
of body (JSON with its text, parsed or not, JSON built or redacted, text, binary, none): the exchange held
equals the one given and indexes to the same row and detail, a JSON body with its text is held without
its parsed document, and the size counted is what holding it keeps alive."""

from __future__ import annotations

import base64
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from proxy.app.traffic_rows import entry_of
from proxy.core.model.exchange import (
    _UNPARSED,
    HEADS_HELD,
    PARSED_FACTOR,
    Body,
    Exchange,
    JSONFromText,
    Request,
    Response,
    held_lightly,
    source_text,
)
from proxy.core.model.json_text import dump_json

VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-(2**40), 2**40), st.text(max_size=12)),
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=20,
)


@st.composite
def bodies(draw: st.DrawFn) -> Body:
    kind = draw(st.sampled_from(["json text", "json parsed", "json built", "text", "base64", "empty"]))
    coding = draw(st.sampled_from([None, "gzip"]))
    if kind.startswith("json"):
        value = draw(VALUES)
        if kind == "json built":
            return Body("json", value, coding)
        text = json.dumps(value, indent=draw(st.sampled_from([None, 2])), ensure_ascii=draw(st.booleans()))
        body = JSONFromText("json", decoded_from=coding, text=text)
        if kind == "json parsed":
            assert body.value == value  # parsed now, as the recorder's redaction parses a body
        return body
    if kind == "empty":
        return Body()
    if kind == "base64":
        return Body(kind, base64.b64encode(draw(st.binary(max_size=40))).decode("ascii"), coding)
    return Body(kind, draw(st.text(max_size=40)), coding)


def expected_size(body: Body) -> int:
    text = source_text(body)
    if text is not None:
        return len(text)
    if body.kind == "json":
        return PARSED_FACTOR * len(dump_json(body.value))
    return len(body.value) if isinstance(body.value, str) else 0


@settings(max_examples=300, deadline=None)
@given(request_body=bodies(), response_body=bodies())
def test_an_exchange_held_lightly_is_the_same_exchange_without_parsed_documents(
    request_body: Body, response_body: Body
) -> None:
    exchange = Exchange(
        Request("POST", "/v2/products", "a=1", (("Content-Type", "application/json"),), request_body),
        Response(200, (("Content-Type", "application/json"),), response_body),
        "2026-11-27T10:00:00.000Z",
        12.5,
    )
    held, size = held_lightly(exchange)
    assert size == HEADS_HELD + expected_size(request_body) + expected_size(response_body)
    for given_body, held_body in ((request_body, held.request.body), (response_body, held.response.body)):
        assert held_body.decoded_from == given_body.decoded_from
        if isinstance(given_body, JSONFromText):
            assert isinstance(held_body, JSONFromText) and held_body._document is _UNPARSED
            assert source_text(held_body) == source_text(given_body)
        else:
            assert held_body is given_body
    assert held == exchange  # compared after: comparing parses
    before = entry_of(exchange, [], cassette="c.yaml", index=3, endpoint="x")
    after = entry_of(held, [], cassette="c.yaml", index=3, endpoint="x")
    assert after == before
