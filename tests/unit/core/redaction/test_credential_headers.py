"""A header carrying a credential is redacted by the words of its name, listed in the policy or not;
an ordinary header keeps its value."""

from __future__ import annotations

from proxy.core.redaction.book import KNOWN
from proxy.core.redaction.redact import RedactionPolicy, redact_exchange
from tests.conftest import make_exchange, make_request

PREFIXES = ("", "x-", "X-Amz-", "Ocp-Apim-", "x-my_app.", "X-Client-")
WORDS = (
    "Token",
    "Access-Token",
    "Session-Token",
    "Security-Token",
    "Secret",
    "Client-Secret",
    "Password",
    "Passwd",
    "Credential",
    "Credentials",
    "Session",
    "Signature",
    "Auth",
    "Api-Key",
    "ApiKey",
    "Api_Key",
    "Access-Key",
    "Subscription-Key",
    "Secret-Key",
)
SUFFIXES = ("", "-V2", "_id")
ORDINARY = (
    "Content-Type",
    "Idempotency-Key",
    "X-Request-Id",
    "ETag",
    "Keep-Alive",
    "Cache-Control",
    "X-Moltin-Currency",
    "WWW-Authenticate",
    "X-Tokenizer-Version",
    "X-Keyboard",
    "Accept-Language",
)


def test_every_header_named_as_a_credential_is_redacted_in_requests_and_answers() -> None:
    names = [f"{prefix}{word}{suffix}" for prefix in PREFIXES for word in WORDS for suffix in SUFFIXES]
    assert len(names) > 300
    for number, name in enumerate(names):
        KNOWN.forget()
        value = f"cred-{number:04d}-Zq9xW2vT8r"
        exchange = make_exchange(
            make_request(headers=((name, value),)), headers=((name, value), ("Content-Type", "text/plain"))
        )
        redacted = redact_exchange(exchange, RedactionPolicy())
        assert value not in repr(redacted), name


def test_an_ordinary_header_keeps_its_value() -> None:
    for name in ORDINARY:
        exchange = make_exchange(make_request(headers=((name, "plain-value-1"),)))
        assert "plain-value-1" in repr(redact_exchange(exchange, RedactionPolicy())), name
