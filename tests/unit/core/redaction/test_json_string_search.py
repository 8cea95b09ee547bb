"""The strings of a JSON body searched for named secrets are cut from its text, and whether it may name
a redacted key is known from the same lowered text (`json_search`), not walked and searched again:
over drawn bodies of every kind redaction reads (JSON, forms, text, UTF-8 and other charsets, byte
order marks, binary), the secrets learned and the redacted exchange are those of the walk over every
string with `may_name`'s own search. And the pre-scan's narrower `&` (an entity counts only with a quote or a
multipart `name`) finds what every search finds, on drawn texts that spell names with entities."""

from __future__ import annotations

import json
import random

import pytest

from proxy.core.model.bodies import body_from_bytes
from proxy.core.model.exchange import EMPTY_BODY, Body, Exchange, Request, Response
from proxy.core.redaction import echoes
from proxy.core.redaction.book import KNOWN
from proxy.core.redaction.policy import (
    RedactionPolicy,
    may_name,
    named_spans,
    secret_names,
    text_secret_spans,
)
from proxy.core.redaction.redact import redact_exchange

DEFAULT = RedactionPolicy()
ODD = RedactionPolicy().extended(query=["clé", "api key"], json_paths=["a.Token"])  # not ASCII
SPACED = RedactionPolicy().extended(form_fields=["api key"])  # `+` may spell its space
SECRET = "s3cr3t-Value-9f8e7d"
# Strings a JSON body may hold: URLs naming a secret in many spellings, `&` as a separator and in
# entities, escapes, quotes (a backslash in the text), names in values, non-ASCII text.
STRINGS = (
    "plain words",
    "https://shop.example/v2/products?page[limit]=25&page[offset]=50",
    f"https://shop.example/cb?access_token={SECRET}&x=1",
    f"/cb?api%5Fkey={SECRET}a",
    f"/cb?x=1&client_secret={SECRET}b",
    f"access+token={SECRET}c",
    f"api+key={SECRET}d",
    f"{{'acc&#101;ss_token': '{SECRET}e'}}",
    f'{{"acc&#101;ss_token": "{SECRET}f"}}',
    f'--b\r\nContent-Disposition: form-data; name="pass&#119;ord"\r\n\r\n{SECRET}g\r\n--b--',
    f"password: {SECRET}h",
    f"clé={SECRET}i",
    "Tom & Jerry; 50% off + more",
    "line\nbreak \\ backslash",
    'a "quoted" word',
    "Σ ς İ \u212a_id \u017fecret",
    f"refresh_token={SECRET}j&access_token={SECRET}k",
    "&#97;ccess_token=&amp;",
)
KEYS = ("name", "links", "self", "access_token", "Token", "acc&#101;ss_token", "api key", "x+y", "q%20")
CHARSETS = (None, "utf-8", "utf-16", "utf-16-le", "utf-32", "latin-1", "shift_jis")


def _document(chance: random.Random, depth: int = 0) -> object:
    kind = chance.randrange(5 if depth < 3 else 2)
    if kind == 0:
        return chance.choice(STRINGS)
    if kind == 1:
        return chance.choice((1, 2.5, None, True, SECRET))
    if kind == 2:
        return [_document(chance, depth + 1) for _ in range(chance.randrange(4))]
    keys = chance.sample(KEYS, chance.randrange(1, 4))
    return {key: _document(chance, depth + 1) for key in keys}


def _body_bytes(chance: random.Random) -> tuple[bytes, str]:
    """A body and its Content-Type: JSON (compact or indented, in a charset, with or without a BOM),
    a form, text, or binary bytes."""
    shape = chance.randrange(6)
    charset = chance.choice(CHARSETS)
    suffix = f"; charset={charset}" if charset else ""
    if shape <= 2:
        text = json.dumps(
            _document(chance), ensure_ascii=chance.random() < 0.2, indent=chance.choice((None, 2))
        )
        media = "application/json"
    elif shape == 3:
        text = "&".join(chance.sample(STRINGS, 3))
        media = "application/x-www-form-urlencoded"
    elif shape == 4:
        text = " ".join(chance.sample(STRINGS, 3))
        media = "text/plain"
    else:
        return bytes(
            chance.randrange(256) for _ in range(chance.randrange(1, 40))
        ), "application/octet-stream"
    try:
        data = text.encode(charset or "utf-8")
    except UnicodeEncodeError:
        data, suffix = text.encode("utf-8"), ""
    if charset in ("utf-16-le",) and chance.random() < 0.5:
        data = b"\xff\xfe" + data
    return data, media + suffix


def _exchange(chance: random.Random) -> Exchange:
    data, content_type = _body_bytes(chance)
    headers = (("Content-Type", content_type),)
    body = body_from_bytes(data, headers)
    if chance.random() < 0.5:
        request = Request("POST", "/v2/carts", "", headers, body)
        response = Response(200, (("Content-Type", "application/json"),), EMPTY_BODY)
    else:
        request = Request("GET", "/v2/products", "page[limit]=25", (), EMPTY_BODY)
        response = Response(200, headers, body)
    return Exchange(request, response)


def _every_string(body: Body, policy: RedactionPolicy, named: bool | None = None) -> echoes.JSONSearch:
    return echoes.JSONSearch(may_name(body, policy), echoes._strings(body.value))


@pytest.mark.parametrize("policy", [DEFAULT, ODD, SPACED], ids=["default", "odd-names", "spaced"])
def test_cut_strings_learn_and_redact_as_the_walk_over_every_string(
    policy: RedactionPolicy, monkeypatch: pytest.MonkeyPatch
) -> None:
    chance = random.Random(40)
    learned = 0
    for _ in range(400):
        exchange = _exchange(chance)
        KNOWN.forget()
        fast = echoes.secret_values(exchange.request, exchange.response, policy)
        fast_redacted = redact_exchange(exchange, policy)
        with monkeypatch.context() as patched:
            patched.setattr(echoes, "json_search", _every_string)
            KNOWN.forget()
            full = echoes.secret_values(exchange.request, exchange.response, policy)
            full_redacted = redact_exchange(exchange, policy)
        KNOWN.forget()
        assert fast == full, exchange
        assert fast_redacted == full_redacted, exchange
        learned += bool(full)
    assert learned > 100  # the drawn bodies do hold secrets, in many spellings


# A name spelled with entities (or not), in each place `named_spans` reads a key.
SPELLINGS = ("access_token", "acc&#101;ss_token", "&#x61;ccess_token", "pass&#119ord", "&amp;", "&", "x")
PLACES = (
    '"{}": "v1"',
    "'{}': 'v2'",
    "{}: v3",
    "?{}=v4",
    "a=1&{}=v5",
    'name="{}"\r\n\r\nv6\r\n--b',
    "name={}\r\n\r\nv7\r\n--b",
    "{} & {}",
)


def test_an_entity_counts_where_a_key_may_hold_it() -> None:
    chance = random.Random(41)
    names = secret_names(DEFAULT)
    found = 0
    for _ in range(3000):
        text = " ".join(
            chance.choice(PLACES).format(chance.choice(SPELLINGS), chance.choice(SPELLINGS))
            for _ in range(chance.randint(1, 3))
        )
        expected = named_spans(text, names)
        assert text_secret_spans(text, DEFAULT) == expected, text
        found += bool(expected)
    assert found > 300


# Keys a policy may name that JSON must escape, or that are not ASCII, beside plain ones.
ESCAPED = RedactionPolicy().extended(json_paths=['a.we"ird', "b.back\\slash", "c.Ünï", "d.tab\tkey"])
KEYED = ("access_token", 'we"ird', "back\\slash", "Ünï", "ünï", "tab\tkey", "Password", "name")


def _may_name_by_its_definition(body: Body, policy: RedactionPolicy) -> bool:
    """A JSON body's lowered text holds a redacted key quoted as JSON writes it."""
    if body.kind != "json" or not isinstance(body.value, dict | list):
        return False
    names = policy.json_keys | {path[-1].lower() for path in policy.json_paths if path}
    text = echoes.json_text(body).lower()
    return any(f'"{json.dumps(name, ensure_ascii=False)[1:-1]}"' in text for name in names)


def test_may_name_is_its_definition_whatever_body_and_policy_were_asked_before() -> None:
    """`may_name` and `json_search` share one lowering and search of the last body asked about: drawn
    bodies, asked about in drawn order under drawn policies (the same body again, under another
    policy, or another body), answer as the whole search of each does."""
    chance = random.Random(42)
    policies = (DEFAULT, ODD, SPACED, ESCAPED)
    bodies: list[Body] = []
    named = 0
    for _ in range(3000):
        if not bodies or chance.random() < 0.4:
            document = {chance.choice(KEYED): _document(chance) for _ in range(chance.randrange(1, 4))}
            text = json.dumps(document, ensure_ascii=chance.random() < 0.3, indent=chance.choice((None, 2)))
            bodies.append(body_from_bytes(text.encode(), (("Content-Type", "application/json"),)))
        body = chance.choice(bodies[-3:])
        policy = chance.choice(policies)
        expected = _may_name_by_its_definition(body, policy)
        assert may_name(body, policy) == expected, (body, policy)
        search = echoes.json_search(body, policy)
        assert search.may_name == expected, (body, policy)
        named += expected
    assert 500 < named < 2500  # both answers drawn often


def test_the_names_a_text_holds_are_found_through_their_roots() -> None:
    """`names_in_json_text` and `may_hold_name` search only the names no other name stands inside: over
    drawn sets of names (some inside others) and drawn texts, they find exactly the names a search of
    every one finds."""
    from proxy.core.redaction.policy import may_hold_name, name_roots, names_in_json_text

    chance = random.Random(46)
    pieces = ("token", "access_", "id_", "secret", "_key", "api", "pass", "word", "x", "_")
    for _ in range(400):
        names = frozenset(
            "".join(chance.sample(pieces, chance.randint(1, 3))) for _ in range(chance.randint(1, 6))
        )
        assert all(any(root in name for root, _ in name_roots(names)) for name in names)
        policy = RedactionPolicy(json_keys=names, query=frozenset(), form_fields=frozenset())
        text = json.dumps({"k": " ".join(chance.choice(pieces) + chance.choice(pieces) for _ in range(6))})
        body = body_from_bytes(text.encode(), (("Content-Type", "application/json"),))
        _, present = names_in_json_text(body, policy)
        assert present == {name for name in secret_names(policy) if name in text.lower()}
        assert may_hold_name(text, names) == any(name in text.lower() for name in names)
