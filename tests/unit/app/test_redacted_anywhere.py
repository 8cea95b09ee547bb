"""A request sent again (the UI's resend, `verify`) never carries the redaction placeholder, wherever
it sits: one finder (`proxy.core.redaction.placeholders.redacted_places`) serves both, and each place a
recording can hold `<redacted>` in is generated below. What `verify` refused before (a credential
header, query parameter or form field; an Authorization without --token) it refuses as before."""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import Iterator
from dataclasses import replace

import pytest

from proxy.app.traffic_rows import entry_of
from proxy.app.traffic_view import TrafficView
from proxy.app.ui_action_cases import ActionSetting, Conflict, UiActions
from proxy.app.verify import NEEDS_TOKEN, VerifyOptions, _why_not_sent
from proxy.core.model.exchange import Body, Request, Response
from proxy.core.redaction.placeholders import redacted_places
from proxy.core.redaction.policy import PLACEHOLDER
from proxy.store.traffic_index import temporary_index
from tests.conftest import make_exchange, make_request

P = PLACEHOLDER
FORM = (("Content-Type", "application/x-www-form-urlencoded"),)
JSON = (("Content-Type", "application/json"),)


def places() -> Iterator[tuple[str, Request]]:
    """(the place named, a POST holding the placeholder there and nowhere else)."""
    post = make_request("POST", "/v2/customers")
    yield "header X-Api-Key", replace(post, headers=(("X-Api-Key", P),))
    yield "header Cookie", replace(post, headers=(("Cookie", f"session={P}"),))
    yield "header X-Anything", replace(post, headers=(("X-Anything", f"a {P} b"),))
    yield "path", replace(post, path=f"/v2/customers/{P}")
    yield "path", replace(post, path="/v2/customers/%3Credacted%3E")
    yield "query parameter access_token", replace(post, query=f"access_token={P}")
    yield "query parameter q", replace(post, query="q=%3Credacted%3E&page=1")
    yield "form field client_secret", replace(post, headers=FORM, body=Body("text", f"a=1&client_secret={P}"))
    yield "form field note", replace(post, headers=FORM, body=Body("text", "note=%3Credacted%3E"))
    for value, where in [
        ({"client_secret": P}, "client_secret"),
        ({"data": {"billing": {"card": {"cvc": P}}}}, "data.billing.card.cvc"),
        ({"data": [{"a": 1}, {"token": f"Bearer {P}"}]}, "data[1].token"),
        ([[P]], "[0][0]"),
        ({P: 1}, P),
    ]:
        text = json.dumps(value)
        yield f"JSON body field {where}", replace(post, headers=JSON, body=Body("json", json.loads(text)))
    yield "JSON body field (the whole body)", replace(post, headers=JSON, body=Body("json", P))
    yield "body", replace(post, headers=(("Content-Type", "text/plain"),), body=Body("text", f"x {P} y"))
    data = base64.b64encode(f"\x00{P}\xff".encode("latin-1")).decode()
    yield "body", replace(post, body=Body("base64", data))


CASES = list(places())


@pytest.mark.parametrize(("where", "request_"), CASES, ids=[f"{n}-{w}" for n, (w, _) in enumerate(CASES)])
def test_every_place_is_found_and_neither_resend_nor_verify_sends_it(where: str, request_: Request) -> None:
    assert redacted_places(request_) == [where]
    reason = _why_not_sent(request_, VerifyOptions(writes=True, token="real"))
    assert reason == f"its {where} holds a redacted value the live service would refuse"
    sent: list[Request] = []
    with pytest.raises(Conflict, match="holds a redacted value"):
        asyncio.run(_resend(request_, sent))
    assert sent == []


def test_a_request_holding_no_placeholder_is_sent_again() -> None:
    request = make_request("POST", "/v2/customers", "a=1", JSON, Body("json", {"name": "redacted"}))
    assert redacted_places(request) == []
    assert _why_not_sent(request, VerifyOptions(writes=True)) is None
    sent: list[Request] = []
    asyncio.run(_resend(request, sent))
    assert [r.target for r in sent] == ["/v2/customers?a=1"]


def test_verify_refuses_what_it_refused_before_as_before() -> None:
    bearer = make_request(headers=(("Authorization", f"Bearer {P}"),))
    assert _why_not_sent(bearer, VerifyOptions()) == NEEDS_TOKEN
    assert _why_not_sent(bearer, VerifyOptions(token="t")) is None  # --token stands in for it
    both = replace(bearer, query=f"api_key={P}")
    assert _why_not_sent(both, VerifyOptions()) == NEEDS_TOKEN
    assert _why_not_sent(both, VerifyOptions(token="t")) == (
        "its query parameter api_key holds a redacted value the live service would refuse"
    )
    form = make_request("POST", headers=FORM, body=Body("text", f"password={P}"))
    assert _why_not_sent(form, VerifyOptions()) == "a write: re-sent only with --writes"
    assert _why_not_sent(form, VerifyOptions(writes=True)) == (
        "its form field password holds a redacted value the live service would refuse"
    )


async def _resend(request: Request, sent: list[Request]) -> None:
    index = temporary_index()
    index.add([entry_of(make_exchange(request), [], cassette=None, index=1, endpoint=None)])
    view = TrafficView("spy", index, [])

    async def send(request: Request) -> Response:
        sent.append(request)
        return make_exchange(request).response

    try:
        await UiActions(view, ActionSetting("spy", upstream="http://127.0.0.1:9", send=send)).resend(1)
    finally:
        view.close()
