"""The cassette format: round trips, normal layout, safe loading, and errors with file:line."""

from __future__ import annotations

import pytest

from proxy.core.cassette.document import Cassette, dump_cassette, parse_cassette
from proxy.core.model.exchange import Body, Exchange, Request, Response
from proxy.errors import CassetteFormatError
from tests.conftest import json_body, make_exchange, make_request

VALID = """\
cassette_format: 1
upstream: http://127.0.0.1:9000
exchanges:
- request:
    method: GET
    path: /v2/products
  response:
    status: 200
"""


def sample() -> Cassette:
    feature = {"data": {"type": "subscription_feature", "id": "x", "attributes": {"name": "Zed", "a": 1}}}
    return Cassette(
        upstream="http://127.0.0.1:9000",
        exchanges=(
            Exchange(
                request=Request(
                    "PUT",
                    "/v2/subscriptions/features/x",
                    "page[limit]=2",
                    (("Authorization", "Bearer <redacted>"), ("X-Dup", "1"), ("X-Dup", "2")),
                    json_body(feature),
                ),
                response=Response(
                    200,
                    (("Content-Type", "application/json"), ("Set-Cookie", "a=1"), ("Set-Cookie", "b=2")),
                    json_body({"z": 1, "a": [1.5, None, True, "2024-01-01T00:00:00Z", "yes", "012"]}),
                ),
                recorded_at="2026-11-22T00:00:00.000001Z",
                duration_ms=1.25,
            ),
            make_exchange(make_request("POST", "/oauth/access_token"), body=Body("text", "a=1\r\nb  \n" * 5)),
            make_exchange(body=Body("base64", "AAEC/w==", decoded_from="gzip")),
        ),
    )


def test_round_trip_keeps_every_value() -> None:
    """Dumping and parsing gives back the same cassette, repeated headers and value types included."""
    cassette = sample()
    assert parse_cassette(dump_cassette(cassette), "x.yaml") == cassette


def test_resave_is_byte_identical() -> None:
    """Re-saving an unchanged cassette gives the very same text."""
    text = dump_cassette(sample())
    assert dump_cassette(parse_cassette(text, "x.yaml")) == text


def test_json_is_pretty_json_text_in_server_key_order() -> None:
    """JSON bodies are stored as the JSON text itself, in a literal block, in the order the server sent."""
    text = dump_cassette(sample())
    assert "cassette_format: 2\n" in text
    assert '    json: |\n      {\n        "z": 1,\n        "a": [\n          1.5,\n          null,' in text
    assert text.index('"type": "subscription_feature"') < text.index('"id": "x"')


def test_format_1_structured_json_loads_as_the_same_cassette() -> None:
    """A format 1 cassette (JSON as YAML structure) loads to what its format 2 rewrite loads to."""
    old = VALID + "    json:\n      data:\n        id: x\n        list: [1, yes, '012']\n"
    cassette = parse_cassette(old, "old.yaml")
    assert cassette.exchanges[0].response.body.value == {"data": {"id": "x", "list": [1, True, "012"]}}
    assert parse_cassette(dump_cassette(cassette), "new.yaml") == cassette


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ('    json: |\n      {"a": 1,}\n', "x.yaml:9: exchanges[0].response.json: not valid JSON: Expecting"),
        ("    json:\n      a: 1\n", "x.yaml:10: exchanges[0].response.json: expected JSON text (format 2)"),
    ],
)
def test_format_2_json_bodies_must_be_json_text(body: str, expected: str) -> None:
    text = VALID.replace("cassette_format: 1", "cassette_format: 2") + body
    with pytest.raises(CassetteFormatError) as raised:
        parse_cassette(text, "x.yaml")
    assert str(raised.value).startswith(expected), str(raised.value)


def test_strings_that_look_like_other_types_stay_strings() -> None:
    """Timestamps, 'yes' and '012' survive as strings, also when a person writes them unquoted."""
    edited = VALID.replace(
        "    status: 200", "    status: 200\n    headers:\n      Date: 2024-01-01T00:00:00Z"
    )
    cassette = parse_cassette(edited, "x.yaml")
    assert cassette.exchanges[0].response.headers == (("Date", "2024-01-01T00:00:00Z"),)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("cassette_format: 1\nexchanges: [\n", "x.yaml:3: not valid YAML"),
        ("cassette_format: 3\nexchanges: []\n", "x.yaml:1: cassette_format: format version 3 is newer"),
        ("exchanges: []\n", "missing 'cassette_format': not a commerce-proxy cassette"),
        ("version: 1\ninteractions: []\n", "a vcrpy cassette?"),
        ("- 1\n", "expected a mapping with 'cassette_format', found a list"),
        (
            VALID.replace("status: 200", "status: OK"),
            "x.yaml:8: exchanges[0].response.status: expected a final HTTP",
        ),
        (VALID.replace("    method: GET\n", ""), "x.yaml:5: exchanges[0].request: missing 'method'"),
        (
            VALID.replace("path: /v2/products", "path: v2"),
            "x.yaml:6: exchanges[0].request.path: expected a path",
        ),
        (VALID + "  response: {status: 201}\n", "x.yaml:9: not valid YAML: duplicate key 'response'"),
        (VALID.replace("exchanges:", "exchanges: 3\nx:"), "x.yaml:3: exchanges: expected a list"),
        (
            "cassette_format: 1\nexchanges: !!python/object/apply:os.system ['true']\n",
            "x.yaml:2: not valid YAML",
        ),
    ],
)
def test_broken_cassettes_name_file_line_and_problem(text: str, expected: str) -> None:
    """Every broken cassette is one error line naming the source, the line and the problem."""
    with pytest.raises(CassetteFormatError) as caught:
        parse_cassette(text, "x.yaml")
    message = str(caught.value)
    assert expected in message
    assert "\n" not in message


def test_empty_exchanges_is_a_valid_empty_cassette() -> None:
    """A cassette with no exchanges is valid (a recording that saw no traffic), not an error."""
    assert parse_cassette("cassette_format: 1\nexchanges: []\n", "x.yaml").exchanges == ()


def test_older_format_versions_are_migrated(monkeypatch: pytest.MonkeyPatch) -> None:
    """A document of an older version goes through each registered migration in turn."""
    from proxy.core.cassette import document as module

    def rename_interactions(document: dict) -> dict:  # type: ignore[type-arg]
        items = document.pop("items")  # renamed: a key left behind is one the format does not have
        return {**document, "exchanges": items}

    monkeypatch.setattr(module, "FORMAT_VERSION", 2)
    monkeypatch.setitem(module.MIGRATIONS, 1, rename_interactions)
    old = VALID.replace("exchanges:", "items:")
    assert len(parse_cassette(old, "x.yaml").exchanges) == 1
    assert dump_cassette(parse_cassette(old, "x.yaml")).startswith(
        module.HEADER_COMMENT + "cassette_format: 2\n"
    )
