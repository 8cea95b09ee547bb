"""`nullable: true` means what the specs' authors meant in 3.0 and in 3.1 documents alike: null passes,
and a wrong value is still caught, at the keyword of the spec it breaks (beside a `type`, or inside the
schema a `$ref` or an `allOf` names), never at a keyword the spec does not write (the `anyOf` the
conversion once wrapped a nullable composed schema in)."""

from __future__ import annotations

from typing import Any

import pytest

from proxy.core.contract.documents import Spec, resolve_pointer
from proxy.core.contract.schemas import Schemas

# Modelled on rule-promotions.yaml (`openapi: 3.1.0`, `type: string` + `nullable: true` on
# `order_id`, `customer_id`, `customer_email`; `type: integer` + `nullable: true` on `deleted`).
TARGET = {"type": "object", "properties": {"code": {"type": "string"}}, "required": ["code"]}
CONSTRUCTS: list[tuple[str, dict[str, Any], Any, str]] = [
    ("type", {"type": "string", "nullable": True}, 7, "type"),
    ("integer", {"type": "integer", "nullable": True}, "1000", "type"),
    ("enum", {"type": "string", "enum": ["a", "b"], "nullable": True}, "c", "enum"),
    ("$ref", {"$ref": "#/components/schemas/Target", "nullable": True}, {}, "required"),
    ("anyOf", {"anyOf": [{"$ref": "#/components/schemas/Target"}], "nullable": True}, {}, "anyOf"),
    ("allOf", {"allOf": [{"$ref": "#/components/schemas/Target"}], "nullable": True}, {}, "required"),
    ("oneOf", {"oneOf": [{"$ref": "#/components/schemas/Target"}], "nullable": True}, {}, "oneOf"),
    (
        "properties",
        {"type": "object", "properties": {"n": {"type": "integer"}}, "nullable": True},
        {"n": "x"},
        "type",
    ),
]


def _problems(version: str, schema: dict[str, Any], value: Any) -> list[str]:
    """The keywords the value breaks, each checked to be at a place of the spec that writes it."""
    document = {"components": {"schemas": {"Target": TARGET, "Usage": schema}}}
    spec = Spec("rule-promotions.yaml", version, document, {})
    compiled = Schemas({spec.name: spec}).compiled((spec.name, "/components/schemas/Usage"), "response")
    problems = compiled.problems(value, {spec.name: spec})
    for problem in problems:
        parent, _, keyword = problem.location[1].rpartition("/")
        assert (keyword, keyword in resolve_pointer(document, parent)) == (problem.keyword, True), problem
    return [problem.keyword for problem in problems]


@pytest.mark.parametrize("version", ["3.0", "3.1"])
@pytest.mark.parametrize(("construct", "schema", "wrong", "keyword"), CONSTRUCTS)
def test_null_passes_and_a_wrong_value_is_caught(
    version: str, construct: str, schema: dict[str, Any], wrong: Any, keyword: str
) -> None:
    assert _problems(version, schema, None) == [], construct
    assert keyword in _problems(version, schema, wrong), construct


@pytest.mark.parametrize("version", ["3.0", "3.1"])
def test_without_nullable_null_is_caught(version: str) -> None:
    assert _problems(version, {"type": "string"}, None) == ["type"]
    assert _problems(version, {"type": "string", "nullable": False}, None) == ["type"]
