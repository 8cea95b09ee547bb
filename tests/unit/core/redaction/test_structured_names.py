"""A secret's name written as a structured parameter (`api_key[]`, `api_key[0]`, `user[password]`,
`auth.token`, brackets percent-encoded) names a secret as the bare name does, in every place a named
value is redacted: the query, a form body, a URL in a JSON string, a Location header, a text body. And
one list of names serves forms, JSON keys and queries: a default name redacted in one is redacted in
all. Drawn as a table: every default name x decoration x place; the value never reaches the result,
and plain structured names of the API (`page[limit]`, `filter`) are kept."""

from __future__ import annotations

import itertools
import json

import pytest

from proxy.core.model.bodies import body_from_bytes
from proxy.core.model.exchange import EMPTY_BODY, Exchange, Request, Response
from proxy.core.redaction.book import KNOWN
from proxy.core.redaction.policy import SECRET_VALUE_NAMES
from proxy.core.redaction.redact import RedactionPolicy, redact_exchange

DECORATIONS = ("{}", "{}[]", "{}[0]", "user[{}]", "a[b][{}]", "auth.{}", "{}%5B%5D", "user%5B{}%5D", "{}[x]")
FORM = (("Content-Type", "application/x-www-form-urlencoded"),)
JSON_TYPE = (("Content-Type", "application/json"),)
TEXT = (("Content-Type", "text/plain"),)


def _exchange(place: str, pair: str) -> Exchange:
    request = Request("GET", "/v2/products", "", (), EMPTY_BODY)
    answer = Response(200, (), EMPTY_BODY)
    if place == "query":
        request = Request("GET", "/v2/products", f"page[limit]=25&{pair}&filter=eq(name,x)", (), EMPTY_BODY)
    elif place == "form":
        request = Request("POST", "/v2/carts", "", FORM, body_from_bytes(f"a=1&{pair}".encode(), FORM))
    elif place == "json url":
        document = {"links": {"next": f"https://shop.example/v2/cb?page[limit]=25&{pair}"}}
        answer = Response(200, JSON_TYPE, body_from_bytes(json.dumps(document).encode(), JSON_TYPE))
    elif place == "location":
        answer = Response(302, (("Location", f"https://shop.example/cb?{pair}&x=1"),), EMPTY_BODY)
    else:
        answer = Response(200, TEXT, body_from_bytes(f"see /cb?{pair} for more".encode(), TEXT))
    return Exchange(request, answer)


@pytest.mark.parametrize("place", ["query", "form", "json url", "location", "text"])
def test_a_structured_name_of_a_secret_names_it_everywhere(place: str) -> None:
    policy = RedactionPolicy()
    for number, (name, decoration) in enumerate(itertools.product(sorted(SECRET_VALUE_NAMES), DECORATIONS)):
        secret = f"Sv{number:03d}x7Qm9Lp2Zr"
        KNOWN.forget()
        redacted = redact_exchange(_exchange(place, f"{decoration.format(name)}={secret}"), policy)
        assert secret not in repr(redacted), (place, decoration.format(name))
    KNOWN.forget()


@pytest.mark.parametrize("place", ["query", "form", "json url", "location", "text"])
def test_structured_names_of_no_secret_are_kept(place: str) -> None:
    policy = RedactionPolicy()
    for key in (
        "page[limit]",
        "page[offset]",
        "filter",
        "sort",
        "include",
        "user[name]",
        "tokens_left",
        "a.b",
    ):
        KNOWN.forget()
        exchange = _exchange(place, f"{key}=keptValue42")
        assert "keptValue42" in repr(redact_exchange(exchange, policy)), (place, key)
    KNOWN.forget()
