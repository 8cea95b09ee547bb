"""The UI's edit takes a typed JSON value: one of a type the field cannot hold is a 400 (`UsageError`)
naming the field, the type it takes and the type found, and the cassette is left as it was; each field's
own type is taken. A table over fields x JSON types. Failed before: `{"field": "status", "value": "201"}`
was a 409 saying "expected a final HTTP status 200-599 ..., found '201'"."""

from __future__ import annotations

from pathlib import Path

import pytest

from proxy.app.ui_actions import edit_exchange
from proxy.core.cassette.document import Cassette, dump_cassette
from proxy.core.model.exchange import Body, Exchange, JSONValue, Request, Response
from proxy.errors import UsageError

VALUES: dict[str, JSONValue] = {
    "string": "201",
    "whole number": 201,
    "fraction": 20.5,
    "boolean": True,
    "null": None,
    "list": [201],
    "object": {"status": 201},
}
# field -> (the kinds of value it takes, a value of its own type that is inside its domain)
FIELDS: dict[str, tuple[set[str], JSONValue]] = {
    "status": ({"whole number"}, 201),
    "duration_ms": ({"whole number", "fraction"}, 5.5),
    "reason": ({"string"}, "Fine"),
    "recorded_at": ({"string"}, "2026-01-02T03:04:05Z"),
    "method": ({"string"}, "PUT"),
    "path": ({"string"}, "/v2/y"),
    "query": ({"string"}, "a=1"),
    "resp.header.X-A": ({"string"}, "x"),
    "req.header.X-B": ({"string"}, "y"),
}


@pytest.fixture
def cassette(tmp_path: Path) -> Path:
    path = tmp_path / "c.yaml"
    exchange = Exchange(
        Request("GET", "/v2/x"),
        Response(200, (("Content-Type", "application/json"),), Body("json", {"a": 1})),
        "2026-01-02T03:04:05Z",
        1.0,
    )
    path.write_text(dump_cassette(Cassette((exchange,), None)))
    return path


def test_a_value_of_a_type_the_field_cannot_hold_is_a_400_naming_both_types(cassette: Path) -> None:
    before = cassette.read_bytes()
    checked = 0
    for (field, (takes, _)), (kind, value) in ((f, v) for f in FIELDS.items() for v in VALUES.items()):
        if kind in takes:
            continue
        with pytest.raises(UsageError) as refused:
            edit_exchange(cassette, 0, field, value)
        message = str(refused.value)
        assert message.startswith(f"edit of {field!r}: expected ") and " found " in message, message
        assert "\n" not in message and cassette.read_bytes() == before
        checked += 1
    assert checked == 53


@pytest.mark.parametrize("field", FIELDS)
def test_a_value_of_the_fields_own_type_is_set(cassette: Path, field: str) -> None:
    edit_exchange(cassette, 0, field, FIELDS[field][1])


def test_a_body_or_json_field_takes_any_json_value(cassette: Path) -> None:
    for value in VALUES.values():
        edit_exchange(cassette, 0, "resp.json.a", value)
