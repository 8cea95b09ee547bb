"""A credential the proxy itself sent (`redact_exchange`'s `known`: a Basic password, a `verify --token`)
is scrubbed wherever it echoes exactly when the book would learn it (`credential_like`): a value that
cannot be told apart from ordinary text (a letter, a word, a short number) is redacted where it is
named, never replaced throughout the traffic, so the answers keep their bytes."""

from __future__ import annotations

import json

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from proxy.core.model.bodies import body_from_bytes
from proxy.core.model.exchange import Exchange, Request, Response
from proxy.core.redaction.book import KNOWN, credential_like
from proxy.core.redaction.policy import is_secret_name, secret_names
from proxy.core.redaction.redact import PLACEHOLDER, RedactionPolicy, redact_exchange

JSON_TYPE = (("Content-Type", "application/json"),)
SHORT_OR_PLAIN = st.one_of(
    st.text("abcdefghijklmnopqrstuvwxyzT0123456789-_.", min_size=1, max_size=5),
    st.text("abcdefghijklmnopqrstuvwxyz", min_size=6, max_size=15),
    st.text("0123456789", min_size=6, max_size=15),
)
LIKE_A_SECRET = st.text("abcdefghijklmnopqrstuvwxyz0123456789", min_size=16, max_size=30).map(
    lambda text: "tok-" + text
)


def answer(token: str) -> Exchange:
    """An answer holding the token as a word of its own and inside other words and keys."""
    document = {"data": {"type": "token", "note": f"sent {token} and {token}s", token: "application/json"}}
    raw = json.dumps(document).encode()
    return Exchange(
        Request("GET", "/v2/settings", "", (("Authorization", f"Bearer {token}"),)),
        Response(200, JSON_TYPE, body_from_bytes(raw, JSON_TYPE)),
    )


@settings(max_examples=150, deadline=None)
@given(token=st.one_of(SHORT_OR_PLAIN, LIKE_A_SECRET))
def test_a_sent_credential_is_scrubbed_everywhere_only_when_it_can_be_told_from_text(token: str) -> None:
    # The answer uses the token as a JSON key too: one that is a secret's name (`apikey`, `token`)
    # names its value a secret, which is another test's matter.
    assume(not is_secret_name(token.lower(), secret_names(RedactionPolicy())))
    KNOWN.forget()
    try:
        exchange = answer(token)
        redacted = redact_exchange(exchange, RedactionPolicy(), frozenset({token}))
        assert redacted.request.headers == (("Authorization", f"Bearer {PLACEHOLDER}"),)  # named: always
        body = json.dumps(redacted.response.body.value)
        if credential_like(token):
            assert token not in body
        else:
            assert redacted.response == exchange.response  # every byte of the answer kept
    finally:
        KNOWN.forget()
