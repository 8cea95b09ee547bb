"""The one search of an exchange for known secrets (`echoes._haystack`): a JSON body whose text escapes
nothing is searched as its text alone, and that finds every secret that searching each of its keys and
strings again would find, however the secret is written inside a string."""

from __future__ import annotations

import base64
import html
import json
from urllib.parse import quote

from hypothesis import given, settings
from hypothesis import strategies as st

from proxy.core.model.exchange import Body, Exchange, Request, Response
from proxy.core.model.json_text import JSONValue
from proxy.core.redaction.echoes import _haystack, _strings
from proxy.core.redaction.encodings import contains_secret

SECRETS = ["sk-live-5f3a9c27e1b84d6f", "Tok3n+With/Slash=", "pässwort-ÄÖÜ-2026", 'quo"te\\back-91x']


def spellings(secret: str) -> list[str]:
    """The secret as a string of a JSON body may hold it, one encoding of the family each."""
    raw = secret.encode("utf-8")
    forms = [secret, quote(secret, safe=""), quote(quote(secret, safe=""), safe=""), raw.hex()]
    forms += ["".join(f"&#{ord(character)};" for character in secret), html.escape(secret)]
    for shift in range(3):
        padded = b"x" * shift + raw
        forms += [base64.b64encode(padded).decode(), base64.urlsafe_b64encode(padded).decode()]
    forms.append(base64.b64encode(quote(secret, safe="").encode()).decode())  # two steps deep
    forms.append(secret[:3] + f"\\u{ord(secret[3]):04x}" + secret[4:])  # a JS escape, as text
    return forms


def searched_string_by_string(exchange: Exchange) -> str:
    """The haystack as it was: the JSON body's text and then every key and string again."""
    body = exchange.response.body
    pieces = [exchange.request.path, exchange.request.query, "", json.dumps(body.value, ensure_ascii=False)]
    return "\n\x01\n".join([*pieces, *_strings(body.value)])


words = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=12)


@settings(max_examples=300, deadline=None)
@given(
    secret=st.sampled_from(SECRETS),
    form=st.integers(0, 20),
    before=words,
    after=words,
    others=st.lists(words, max_size=4),
    as_key=st.booleans(),
)
def test_a_json_body_searched_as_its_text_finds_what_its_strings_would(
    secret: str, form: int, before: str, after: str, others: list[str], as_key: bool
) -> None:
    forms = spellings(secret)
    held = before + forms[form % len(forms)] + after
    listed: list[JSONValue] = [*others, held]
    document: JSONValue = {held: list(others)} if as_key else {"data": listed, "n": 12.5}
    exchange = Exchange(Request("GET", "/v2/products"), Response(200, (), Body("json", document)))
    values = frozenset({secret})
    assert contains_secret(_haystack(exchange), values) == contains_secret(
        searched_string_by_string(exchange), values
    )
