"""`redact_headers` gives back the very headers it was given when no value changes (a cassette whose
credentials were redacted when it was written), so such a message is not rebuilt; otherwise exactly
each header redacted in its place, for drawn headers of every kind."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from proxy.core.redaction.policy import DEFAULT_HEADERS, PLACEHOLDER, credential_header
from proxy.core.redaction.redact import _redact_header_value, redact_headers

NAMES = ("Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie", "X-Api-Key", "Accept", "ETag")
VALUES = (
    "Bearer sk_live_0a1b2c",
    f"Bearer {PLACEHOLDER}",
    "Basic",
    PLACEHOLDER,
    "session=abc; theme=dark",
    f"session={PLACEHOLDER}; theme={PLACEHOLDER}",
    f"session={PLACEHOLDER}; Path=/",
    "a=1;; b",
    "",
    "application/json",
)


def plainly(headers: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
    """Every header redacted in its place, one by one."""
    return tuple(
        (
            name,
            _redact_header_value(name.lower(), value)
            if credential_header(name.lower(), DEFAULT_HEADERS)
            else value,
        )
        for name, value in headers
    )


@given(st.lists(st.tuples(st.sampled_from(NAMES), st.sampled_from(VALUES)), max_size=6))
def test_headers_are_redacted_in_place_and_kept_when_nothing_changes(pairs: list[tuple[str, str]]) -> None:
    headers = tuple(pairs)
    redacted = redact_headers(headers, DEFAULT_HEADERS)
    assert redacted == plainly(headers)
    assert (redacted is headers) == (plainly(headers) == headers)
