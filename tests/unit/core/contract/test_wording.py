"""What a schema finding says (`proxy.core.contract.wording`): expected what the spec asks, found what the
traffic had, in that order, for every kind of value; and one disagreement once, however many places of
the spec say it (a 3.1 `required` beside a `$ref` whose schema requires the same property)."""

from __future__ import annotations

import json
from typing import Any

from proxy.core.contract.documents import Spec
from proxy.core.contract.schemas import Problem, Schemas

VALUES: list[Any] = ["thing", "other", 0, 7, 1.5, True, False, None, {"a": 1}, [1, "x"], "é"]


def _problems(version: str, schemas: dict[str, Any], value: Any) -> list[Problem]:
    spec = Spec("probe.yaml", version, {"components": {"schemas": schemas}}, {})
    compiled = Schemas({spec.name: spec}).compiled((spec.name, "/components/schemas/Thing"), "response")
    return compiled.problems(value, {spec.name: spec})


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def test_const_says_expected_the_spec_value_and_found_the_traffic_value() -> None:
    for version in ("3.0", "3.1"):
        for wanted in VALUES:
            for sent in VALUES:
                schema = {"type": "object", "properties": {"kind": {"const": wanted}}}
                problems = _problems(version, {"Thing": schema}, {"kind": sent})
                if sent == wanted and type(sent) is type(wanted):
                    assert problems == [], (wanted, sent)
                    continue
                (problem,) = problems  # JSON Schema tells 0 from false, and true from 1
                assert (problem.where, problem.keyword) == ("body.kind", "const")
                assert (problem.expected, problem.found) == (
                    f"{_json(wanted)} (the schema's `const`)",
                    _json(sent),
                ), (wanted, sent)


def test_a_false_schema_says_no_value_and_the_value_found() -> None:
    for sent in VALUES:
        schema = {"type": "array", "prefixItems": [{}], "items": False}
        (problem,) = _problems("3.1", {"Thing": schema}, ["first", sent])
        assert (problem.where, problem.expected, problem.found) == (
            "body.1",
            "no value here (the schema is `false`)",
            _json(sent),
        )


# keyword -> (the inner schema's constraint, a value breaking it); a 3.1 `$ref` with the same keyword
# beside it, as elasticpath's 3.1 specs write `Thing: {$ref: ThingInner, required: [...]}`
SAID_TWICE: dict[str, tuple[dict[str, Any], Any]] = {
    "required": ({"type": "object", "required": ["id"]}, {}),
    "type": ({"type": "string"}, 7),
    "minLength": ({"type": "string", "minLength": 3}, "ab"),
    "enum": ({"enum": ["a", "b"]}, "c"),
    "maximum": ({"type": "integer", "maximum": 3}, 9),
    "format": ({"type": "string", "format": "uuid"}, "nope"),
}


def test_one_disagreement_said_by_a_ref_and_its_sibling_is_said_once() -> None:
    for keyword, (inner, value) in SAID_TWICE.items():
        thing = {"$ref": "#/components/schemas/ThingInner", keyword: inner[keyword]}
        problems = _problems("3.1", {"Thing": thing, "ThingInner": inner}, value)
        assert [(problem.where, problem.keyword, problem.location[1]) for problem in problems] == [
            ("body", keyword, f"/components/schemas/Thing/{keyword}")
        ], keyword
