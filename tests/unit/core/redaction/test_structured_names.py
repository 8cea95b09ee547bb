"""A secret's name written as a structured parameter (`api_key[]`, `api_key[0]`, `user[password]`,
`auth.token`, brackets percent-encoded) names a secret as the bare name does, in every place a named
value is redacted: the query, a form body, a URL in a JSON string, a Location header, a text body. And
one list of names serves forms, JSON keys and queries: a default name redacted in one is redacted in
all. Drawn as a table: every default name x decoration x place; the value never reaches the result,
and plain structured names of the API (`page[limit]`, `filter`) are kept."""

from __future__ import annotations

import itertools
import json
from urllib.parse import unquote

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
    elif place == "json key":
        key, _, value = pair.partition("=")
        document = {"data": {"id": "a1", unquote(key): value}}
        answer = Response(200, JSON_TYPE, body_from_bytes(json.dumps(document).encode(), JSON_TYPE))
    else:
        answer = Response(200, TEXT, body_from_bytes(f"see /cb?{pair} for more".encode(), TEXT))
    return Exchange(request, answer)


@pytest.mark.parametrize("place", ["query", "form", "json url", "location", "text", "json key"])
def test_a_structured_name_of_a_secret_names_it_everywhere(place: str) -> None:
    policy = RedactionPolicy()
    for number, (name, decoration) in enumerate(itertools.product(sorted(SECRET_VALUE_NAMES), DECORATIONS)):
        secret = f"Sv{number:03d}x7Qm9Lp2Zr"
        KNOWN.forget()
        redacted = redact_exchange(_exchange(place, f"{decoration.format(name)}={secret}"), policy)
        assert secret not in repr(redacted), (place, decoration.format(name))
    KNOWN.forget()


@pytest.mark.parametrize("place", ["query", "form", "json url", "location", "text", "json key"])
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


# A URL (or a parameter list) standing inside another value: wrappers around `NAME=SECRET`.
WRAPPED = {
    "refresh": lambda pair: Response(200, (("Refresh", f"0; url=/v2/x?{pair}"),), EMPTY_BODY),
    "refresh-upper": lambda pair: Response(
        200, (("Refresh", f"5;URL=http://shop.example/a?b=1&{pair}"),), EMPTY_BODY
    ),
    "location-in-query": lambda pair: Response(302, (("Location", f"/login?next=/cb%3F{pair}"),), EMPTY_BODY),
    "challenge": lambda pair: Response(
        401, (("WWW-Authenticate", 'Bearer realm="x", ' + pair.replace("=", '="', 1) + '"'),), EMPTY_BODY
    ),
    "header-url-param": lambda pair: Response(
        200, (("X-Next", f"url=https://a.example/cb?{pair}"),), EMPTY_BODY
    ),
}


@pytest.mark.parametrize("wrapper", list(WRAPPED))
def test_a_secret_named_inside_another_value_is_found(wrapper: str) -> None:
    """`url=/x?token=S` in a Refresh, a challenge's `token="S"`, a URL in a header's parameter: the
    pair inside another value is searched as well."""
    policy = RedactionPolicy()
    for number, name in enumerate(sorted(SECRET_VALUE_NAMES)):
        secret = f"Wv{number:03d}x7Qm9Lp2Zr"
        KNOWN.forget()
        exchange = Exchange(
            Request("GET", "/v2/products", "", (), EMPTY_BODY), WRAPPED[wrapper](f"{name}={secret}")
        )
        assert secret not in repr(redact_exchange(exchange, policy)), (wrapper, name)
    KNOWN.forget()


@pytest.mark.parametrize("encoding", ["percent", "plus-and-percent", "twice"])
def test_a_url_in_a_query_value_names_its_secrets(encoding: str) -> None:
    """`redirect_uri=https%3A%2F%2Fshop%2Fcb%3Faccess_token%3DS`: the query decoded is searched too."""
    from urllib.parse import quote, quote_plus

    policy = RedactionPolicy()
    for number, name in enumerate(sorted(SECRET_VALUE_NAMES)):
        secret = f"Qv{number:03d}x7Qm9Lp2Zr"
        url = f"https://shop.example/cb?a=1&{name}={secret}"
        value = {
            "percent": quote(url, safe=""),
            "plus-and-percent": quote_plus(url),
            "twice": quote(quote(url, safe=""), safe=""),
        }[encoding]
        KNOWN.forget()
        request = Request("GET", "/v2/products", f"page[limit]=25&redirect_uri={value}", (), EMPTY_BODY)
        redacted = redact_exchange(Exchange(request, Response(200, (), EMPTY_BODY)), policy)
        assert secret not in repr(redacted), (encoding, name, redacted.request.query)
    KNOWN.forget()


NOT_SECRETS = (False, True, None, "")


@pytest.mark.parametrize("place", ["json", "json-in-text", "form", "query"])
def test_a_named_value_that_holds_no_secret_is_kept_as_sent(place: str) -> None:
    """A named field holding false, true, null or an empty string is not a secret: the exchange is kept
    as it was (a placeholder would turn `false` into a truthy string on replay). A standard header
    whose name holds a credential's word but carries a flag (`Access-Control-Allow-Credentials`) too."""
    policy = RedactionPolicy()
    cors = (("Access-Control-Allow-Credentials", "true"),)
    for name, value in itertools.product(sorted(SECRET_VALUE_NAMES), NOT_SECRETS):
        if place in ("form", "query") and value != "":
            continue  # a form or query value is text: only the empty one is no secret
        document = json.dumps({"data": {name: value, "ok": 1}})
        request = Request("GET", "/v2/products", "", (), EMPTY_BODY)
        response = Response(200, cors, EMPTY_BODY)
        if place == "json":
            response = Response(200, cors + JSON_TYPE, body_from_bytes(document.encode(), JSON_TYPE))
        elif place == "json-in-text":
            response = Response(200, cors + TEXT, body_from_bytes(document.encode(), TEXT))
        elif place == "form":
            request = Request(
                "POST", "/oauth/access_token", "", FORM, body_from_bytes(f"a=1&{name}=".encode(), FORM)
            )
        else:
            request = Request("GET", "/v2/products", f"page[limit]=25&{name}=", (), EMPTY_BODY)
        KNOWN.forget()
        exchange = Exchange(request, response)
        assert redact_exchange(exchange, policy) == exchange, (place, name, value)
    KNOWN.forget()


def test_a_named_number_or_object_is_still_redacted() -> None:
    """A number (a PIN) or an object under a secret's name is redacted whole, as documented."""
    policy = RedactionPolicy()
    for value in (123456, {"hash": "abcdef123456"}, ["abcdef123456"]):
        document = json.dumps({"password": value})
        response = Response(200, JSON_TYPE, body_from_bytes(document.encode(), JSON_TYPE))
        KNOWN.forget()
        redacted = redact_exchange(Exchange(Request("GET", "/v2/x", "", (), EMPTY_BODY), response), policy)
        assert "<redacted>" in repr(redacted) and "123456" not in repr(redacted), value
    KNOWN.forget()
