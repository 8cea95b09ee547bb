"""Redaction: every default secret replaced, configured ones too, and nothing else touched."""

from __future__ import annotations

import json

import pytest

from proxy.core.model.bodies import body_from_bytes
from proxy.core.model.exchange import Body, Exchange
from proxy.core.redaction import echoes
from proxy.core.redaction import redact as redaction
from proxy.core.redaction.book import KNOWN
from proxy.core.redaction.redact import (
    PLACEHOLDER,
    RedactionPolicy,
    placeholders_in,
    redact_exchange,
    redact_request,
)
from tests.conftest import json_body, make_exchange, make_request

FORM = (("Content-Type", "application/x-www-form-urlencoded"),)
JSON_TYPE = (("Content-Type", "application/json"),)


def test_authorization_keeps_its_scheme() -> None:
    """`Authorization: Bearer abc` becomes `Bearer <redacted>`."""
    request = redact_request(make_request(headers=(("Authorization", "Bearer abc"),)), RedactionPolicy())
    assert request.headers == (("Authorization", f"Bearer {PLACEHOLDER}"),)


def test_cookies_keep_their_names_and_attributes() -> None:
    """Cookie values go, names and Set-Cookie attributes stay."""
    exchange = make_exchange(
        make_request(headers=(("Cookie", "sid=1; theme=dark"), ("X-API-Key", "k"))),
        headers=(("Set-Cookie", "sid=2; Path=/; HttpOnly"),),
    )
    redacted = redact_exchange(exchange, RedactionPolicy())
    assert redacted.request.headers == (
        ("Cookie", f"sid={PLACEHOLDER}; theme={PLACEHOLDER}"),
        ("X-API-Key", PLACEHOLDER),
    )
    assert redacted.response.headers == (("Set-Cookie", f"sid={PLACEHOLDER}; Path=/; HttpOnly"),)


def test_token_form_fields_and_token_answer() -> None:
    """client_secret in the token form and access_token in its answer are redacted; the rest stays."""
    form = "grant_type=client_credentials&client_id=me&client_secret=s3cret"
    exchange = make_exchange(
        make_request("POST", "/oauth/access_token", headers=FORM, body=Body("text", form)),
        body=json_body({"access_token": "t0ken", "expires": 5, "refresh_token": None}),
    )
    redacted = redact_exchange(exchange, RedactionPolicy())
    assert (
        redacted.request.body.value
        == f"grant_type=client_credentials&client_id=me&client_secret={PLACEHOLDER}"
    )
    assert redacted.response.body.value == {"access_token": PLACEHOLDER, "expires": 5, "refresh_token": None}


def test_configured_query_header_and_json_path() -> None:
    """Names given on the command line are redacted as well, JSON paths through lists too."""
    policy = RedactionPolicy().extended(
        headers=["X-Trace"], query=["email"], json_paths=["data.attributes.email"]
    )
    request = make_request(
        "PUT",
        query="email=a%40b.c&page[limit]=2",
        headers=(("X-Trace", "t"),),
        body=json_body({"data": [{"attributes": {"email": "a@b.c", "name": "n"}}]}),
    )
    redacted = redact_request(request, policy)
    assert redacted.query == f"email={PLACEHOLDER}&page[limit]=2"
    assert redacted.headers == (("X-Trace", PLACEHOLDER),)
    assert redacted.body.value == {"data": [{"attributes": {"email": PLACEHOLDER, "name": "n"}}]}


def test_nothing_to_redact_returns_the_same_objects() -> None:
    """A request without secrets is returned unchanged (no copies on the hot path)."""
    body = json_body({"data": {"name": "x"}})
    request = make_request(body=body, query="page[limit]=1")
    redacted = redact_request(request, RedactionPolicy())
    assert redacted.body is body and redacted.query == request.query


def test_placeholders_found_in_a_recording() -> None:
    """Replay learns which fields a recording had redacted, so they never decide a match."""
    request = make_request(
        query=f"key={PLACEHOLDER}&a=1",
        body=json_body({"data": {"pin": PLACEHOLDER, "n": 1}}),
    )
    found = placeholders_in([request])
    assert found.query == frozenset({"key"})
    assert found.json_paths == frozenset({("data", "pin")})


def test_secret_values_are_scrubbed_wherever_they_are_echoed() -> None:
    """A token or form secret reflected in the answer (headers, JSON keys and values, text) is replaced."""
    request = make_request(
        "POST",
        "/echo",
        headers=(("Authorization", "Bearer tok-123456"), *FORM),
        body=Body("text", "client_secret=sec-654321&client_id=me"),
    )
    echoed = {"seen": {"auth": "Bearer tok-123456", "sec-654321": "form said client_secret=sec-654321"}}
    exchange = make_exchange(request, body=json_body(echoed), headers=(("X-Echo", "tok-123456"),))
    redacted = redact_exchange(exchange, RedactionPolicy())
    assert redacted.response.body.value == {
        "seen": {"auth": f"Bearer {PLACEHOLDER}", PLACEHOLDER: f"form said client_secret={PLACEHOLDER}"}
    }
    assert redacted.response.headers == (("X-Echo", PLACEHOLDER),)


def test_short_secret_values_are_not_scrubbed_from_ordinary_text() -> None:
    """A five-character secret is redacted where it is named but not replaced inside other text."""
    request = make_request(headers=(("X-API-Key", "abcde"),))
    exchange = make_exchange(request, body=json_body({"word": "abcdef"}))
    redacted = redact_exchange(exchange, RedactionPolicy())
    assert redacted.request.headers == (("X-API-Key", PLACEHOLDER),)
    assert redacted.response.body.value == {"word": "abcdef"}


@pytest.mark.parametrize(
    "document",
    [
        {"Data": {"ACCESS_TOKEN": "tok-123456", "n": 1}},
        {"data": [{"attributes": {"Email": "me@example.com"}}], "meta": {"echo": "Bearer sekret-token"}},
        {"list": ["sekret-token", {"nested": "x sekret-token y"}], "client_secret": None},
        {"quote": 'say "sekret\\"token"', "key with sekret-token inside": 1},
        {"unicode": "ÄÖÜ sekret-token", "İD": "x"},
        ["refresh_token", {"refresh_token": "abcdefgh"}],
        {"ok": "nothing secret here at all"},
    ],
)
def test_the_text_prechecks_never_skip_what_the_walk_would_redact(
    document: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Redaction looks at a body as JSON text before walking it; the result is the walk's, always."""
    policy = RedactionPolicy().extended(json_paths=["data.attributes.email"])
    # Built bodies, and bodies read from bytes as record reads them (which keep their text), one of
    # them with every character escaped that JSON lets a sender escape.
    raw_forms = [
        json.dumps(document, ensure_ascii=False).encode(),
        json.dumps(document).encode().replace(b"_", b"\\u005f").replace(b"-", b"\\u002d"),
    ]
    bodies = [json_body(document)] + [body_from_bytes(raw, JSON_TYPE) for raw in raw_forms]
    assert all(body.value == document for body in bodies)
    exchanges = [
        make_exchange(
            make_request("POST", headers=(("Authorization", f"Bearer {token}"),), body=body),
            body=body,
        )
        for token in ("sekret-token", 'sekret\\"token', "abcdefgh")
        for body in bodies
    ]

    def alone(exchange: Exchange) -> Exchange:  # as the only exchange seen: no secret learned before it
        KNOWN.forget()
        return redact_exchange(exchange, policy)

    fast = [alone(exchange) for exchange in exchanges]
    monkeypatch.setattr(redaction, "may_name", lambda value, policy: True)
    monkeypatch.setattr(echoes, "may_name", lambda value, policy: True)
    assert fast == [alone(exchange) for exchange in exchanges]
