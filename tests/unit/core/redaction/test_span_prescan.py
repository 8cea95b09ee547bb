"""The cheap pre-scan of `text_secret_spans` (`may_hold_name` and the test of the three searches' own
triggers) changes nothing: on many drawn texts, the spans are those of every search run
(`named_spans`), for the default policy and for policies with names the pre-scan cannot vouch for."""

from __future__ import annotations

import random

import pytest

from proxy.core.redaction.policy import RedactionPolicy, named_spans, secret_names, text_secret_spans

DEFAULT = RedactionPolicy()
ODD = RedactionPolicy().extended(query=["clé", "api key", "\u017fecret", "K_id"], json_paths=["a.Token"])
PIECES = (
    "access_token", "ACCESS_TOKEN", "Access_Token", "api_key", "api%5Fkey", "api%5fKey", "\\u0061ccess_token",
    "access&#95;token", "client_secret", "password", "clé", "cl%C3%A9", "api key", "api+key", "\u017fecret",
    "secret", "\u212a_id", "k_id", "token", "Token", "name", "NAME", "name*=", "utf-8''", "filename=",
    '"', "'", ":", " : ", "=", "%3D", "%3d", "&", "?", ";", "#", "/", " ", "\n", "\r\n", "--", "--b\r\n",
    "Content-Disposition: form-data; ", "null", "value", "v4lu3", "Σ", "ς", "İ", "\\", "\\\"", "{", "}",
    ",", "1.5", "+", "%", "%2", "x",
)  # fmt: skip


def drawn(chance: random.Random) -> str:
    return "".join(chance.choice(PIECES) for _ in range(chance.randint(0, 14)))


@pytest.mark.parametrize("policy", [DEFAULT, ODD], ids=["default", "odd-names"])
def test_the_prescan_finds_what_every_search_finds(policy: RedactionPolicy) -> None:
    chance = random.Random(38)
    names = secret_names(policy)
    found = 0
    for _ in range(30_000):
        text = drawn(chance)
        expected = named_spans(text, names)
        assert text_secret_spans(text, policy) == expected, text
        found += bool(expected)
    assert found > 300  # the drawn texts do name secrets, in many spellings
