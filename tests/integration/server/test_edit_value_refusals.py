"""Every refused edit value is a 400 naming the field and the JSON type found, through the real route,
and the cassette is untouched (class: an edit value's refusal has the wrong status or message).

A table over fields x JSON values (as the JSON text a client writes: `2.01e2` too) x `unset` absent,
false or true. Failed before: a value of the wrong type (`"201"` for status) was a 409 (the edit's
mapping took every refusal for a conflict), `201.0` and `2.01e2` for status were refused as "expected
200-599 ... found 201.0", `unset` of status said "unknown field", and `unset` with a value was taken."""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path

from tests.integration.server import test_ui_action_routes as routes

folder = routes.folder  # the same project and server as the action routes' tests
serve = routes.serve

FIELDS = [
    "status",
    "duration_ms",
    "reason",
    "recorded_at",
    "method",
    "path",
    "query",
    "req.header.X-Drawn",
    "resp.header.Content-Type",
    "req.body",
    "resp.body",
    "resp.json.links.next",
    "no.such.field",
    "resp.status",
]
UNKNOWN = {"no.such.field", "resp.status"}
UNREMOVABLE = {"status", "method", "path", "query"}
TEXT = {"reason", "recorded_at", "method", "path", "query", "req.header.X-Drawn", "resp.header.Content-Type"}
# (JSON text, the type a refusal names, the kind the oracle reads it as)
VALUES = [
    ('"201"', "a string", "string"),
    ('""', "a string", "string"),
    ("201", "a number", "whole"),
    ("201.0", "a number with a fraction or an exponent", "fraction"),
    ("2.01e2", "a number with a fraction or an exponent", "fraction"),
    ("2.5", "a number with a fraction or an exponent", "fraction"),
    ("true", "true or false", "bool"),
    ("false", "true or false", "bool"),
    ("null", "null", "null"),
    ("[201]", "a list", "list"),
    ('{"status": 201}', "an object", "object"),
]


def drawn_values(rng: random.Random) -> list[tuple[str, str, str]]:
    """New members each run of the same kinds: other whole numbers, fractions, exponents, strings."""
    whole = rng.randint(200, 599)
    return [
        (str(whole), "a number", "whole"),
        (f"{whole}.{rng.randint(1, 9)}", "a number with a fraction or an exponent", "fraction"),
        (f"{whole / 100}e2", "a number with a fraction or an exponent", "fraction"),
        (json.dumps(str(whole)), "a string", "string"),
        (json.dumps([rng.random()]), "a list", "list"),
    ]


def accepted(field: str, kind: str) -> bool:
    """Whether `field` takes a value of `kind` (then the edit is made, and not sent here)."""
    if field == "status":
        return kind == "whole"
    if field == "duration_ms":
        return kind in ("whole", "fraction")
    if field in TEXT:
        return kind == "string"
    return True  # a body or a JSON field takes any JSON value


async def test_every_refused_value_is_a_400_naming_field_and_type(serve: routes.Serve, folder: Path) -> None:
    url, _ = await serve()
    cassette = folder / "walk.yaml"
    before = cassette.read_bytes()
    values = VALUES + drawn_values(random.Random())
    sent = 0
    for field, (text, named, kind), unset in itertools.product(FIELDS, values, (None, False, True)):
        flag = "" if unset is None else f', "unset": {json.dumps(unset)}'
        if unset:
            expected = [field, "a number" if kind in ("whole", "fraction") else named, "takes no"]
        elif field in UNKNOWN:
            expected = [field, "unknown field"]
        elif not accepted(field, kind):
            expected = [field, named if field == "status" or kind != "fraction" else "a number", "expected"]
        else:
            continue
        body = f'{{"field": {json.dumps(field)}, "value": {text}{flag}}}'.encode()
        status, _, answer = await routes.call(url, "POST", "exchanges/1/edit", body)
        assert status == 400, (body, status, answer)
        detail = routes.error_line(400, answer)
        assert all(part in detail for part in expected), (body, detail)
        sent += 1
    for field in FIELDS:  # unset alone: refused when the field cannot be removed
        if field in UNREMOVABLE | UNKNOWN:
            body = json.dumps({"field": field, "unset": True}).encode()
            status, _, answer = await routes.call(url, "POST", "exchanges/1/edit", body)
            assert status == 400, (body, answer)
            detail = routes.error_line(400, answer)
            assert field in detail and ("cannot be removed" in detail or "unknown field" in detail), detail
            sent += 1
    assert sent > 300 and cassette.read_bytes() == before
    for text in ("201", "2.01e2"):  # the table's oracle: a whole number is taken, its fraction not
        body = f'{{"field": "status", "value": {text}}}'.encode()
        status, _, answer = await routes.call(url, "POST", "exchanges/1/edit", body)
        assert status == (200 if text == "201" else 400), answer
    assert cassette.read_bytes() != before
