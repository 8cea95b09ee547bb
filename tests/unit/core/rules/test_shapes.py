"""Shapes: the compiled fast verdict and the full jsonschema walk agree, whatever the Rust side can take."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from proxy.core.rules.shapes import Shape, known_valid, schema_problem
from proxy.store.shipped import shipped_dir
from tests.paths import ROOT

LIMITED = {"type": "object", "properties": {"count": {"type": "integer", "maximum": 5, "x-part": "count"}}}


def test_a_conformant_document_has_no_violations_and_a_broken_one_names_its_part() -> None:
    shape = Shape("limited", LIMITED)
    assert shape.violations({"count": 5}) == []
    (found,) = shape.violations({"count": 6})
    assert (found.part, found.violation.where, found.violation.expected) == ("count", "count", "at most 5")


@pytest.mark.parametrize("value", [10**30, 6])
def test_integers_of_any_size_are_judged(value: int) -> None:
    """JSON integers past 64 bits reach the schema too (the standard library parses them)."""
    (found,) = Shape("limited", LIMITED).violations({"count": value})
    assert found.violation.found == str(value)


def test_a_pattern_only_pythons_re_compiles_is_still_checked() -> None:
    """jsonschema-rs refuses a Python-only pattern; the shape then checks every document with jsonschema."""
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"twice": {"type": "string", "pattern": "^(?P<x>a)(?P=x)$"}},
    }
    shape = Shape("python-only", schema)
    assert shape.violations({"twice": "aa"}) == []
    (found,) = shape.violations({"twice": "ab"})
    assert found.violation.where == "twice"


def test_a_value_the_fast_validator_cannot_take_goes_to_the_full_walk() -> None:
    """A mapping with a key that is not text (never from JSON, but a caller may build one) is not lost."""
    shape = Shape("limited", LIMITED)
    assert shape.violations({1: "x", "count": 1}) == []
    assert [item.violation.where for item in shape.violations({1: "x", "count": 9})] == ["count"]


def test_an_invalid_schema_is_a_value_error_naming_the_shape() -> None:
    with pytest.raises(ValueError, match="shape 'bad' is not a valid JSON Schema"):
        Shape("bad", {"type": "no-such-type"})


SCHEMAS: list[Any] = [
    {"type": "object", "properties": {"name": {"type": "string", "maxLength": 3}}},
    {"type": "no-such-type"},
    {"minimum": "five"},
    {"type": "string", "pattern": "^[a-z]+$"},
    {"type": "string", "pattern": "("},
    {"type": "string", "pattern": "\\p{L}+"},  # ECMA-262 only: Python's re refuses it
    {"type": "string", "pattern": "^(?P<x>a)(?P=x)$"},  # Python only
    {"type": "object", "patternProperties": {"[": {"type": "string"}}},
    {"$schema": "http://json-schema.org/draft-07/schema#", "type": "integer", "exclusiveMinimum": 3},
    {"$schema": "http://json-schema.org/draft-07/schema#", "exclusiveMinimum": True},
    {"$schema": "https://json-schema.org/draft/2020-12/schema", "required": "name"},
    {"$schema": "http://192.0.2.1/no-such-meta-schema", "type": "integer"},
    {"properties": {"pattern": {"type": "string"}}, "const": {"pattern": "("}},
]


@pytest.mark.parametrize("schema", SCHEMAS)
def test_a_schema_jsonschema_would_refuse_is_never_passed_without_it(schema: Any) -> None:
    """The quick verdict (jsonschema-rs's meta-schema check, Python's re on every pattern) only ever says
    valid where jsonschema's `check_schema` does; a shape is refused exactly when jsonschema refuses it."""
    problem = schema_problem(schema)
    if known_valid(schema):
        assert problem is None
    if problem is None:
        Shape("s", schema)
    else:
        with pytest.raises(ValueError, match="shape 's' is not a valid JSON Schema: "):
            Shape("s", schema)


def test_the_quick_verdict_passes_the_shipped_shapes_and_refuses_a_broken_regex() -> None:
    """So starting `check` does not import jsonschema, and a pattern Python cannot compile still fails."""
    for path in sorted(shipped_dir("rules").glob("shapes/*.json")):
        assert known_valid(json.loads(path.read_text(encoding="utf-8"))), path
    assert not known_valid({"type": "string", "pattern": "("})
    assert not known_valid({"type": "string", "pattern": "\\p{L}+"})


def test_rules_load_and_conformant_exchanges_check_without_importing_jsonschema() -> None:
    """jsonschema (about 80 ms to import) is loaded only for a failure: a document, a schema or params."""
    code = (
        "import sys\n"
        "from proxy.core.rules.engine import Checker\n"
        "from proxy.store.rule_files import load_rules\n"
        "from proxy.store.shipped import shipped_dir\n"
        "from tests.unit.core.exchanges import entry_read, feature_update, list_read\n"
        "rules = load_rules(shipped_dir('rules'))\n"
        "assert Checker(rules).check_all([list_read(), entry_read(), feature_update()]) == []\n"
        "print(sorted(name for name in sys.modules if name.split('.')[0] == 'jsonschema'))\n"
        "Checker(rules).check_all([feature_update(body={'data': []})])\n"
        "print('jsonschema' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True, timeout=120
    )
    assert done.stdout.split("\n")[:2] == ["[]", "True"]


def envelope_findings(body: dict[str, Any]) -> list[tuple[str, str]]:
    from proxy.core.rules.engine import Checker
    from proxy.store.rule_files import load_rules
    from tests.unit.core.exchanges import list_read

    found = Checker(load_rules(shipped_dir("rules"))).check_all([list_read(body=body)])
    return [(f.rule, f.where) for f in found if f.rule.startswith("pagination.envelope.")]


def test_each_missing_key_is_named_once_by_the_rule_that_owns_it() -> None:
    """`data` alone: links and meta are missing, one finding each under its own rule (a missing `meta`
    was reported as a second `links` finding, so lowering one rule hid the other's)."""
    assert envelope_findings({"data": []}) == [
        ("pagination.envelope.links", "links"),
        ("pagination.envelope.meta", "meta"),
    ]


def test_a_rule_makes_one_finding_naming_every_key_it_owns() -> None:
    """Links without current, prev and next: one `links` finding naming all three (it was three
    findings, each naming `links.current`)."""
    body = {
        "data": [],
        "links": {"first": None, "last": None},
        "meta": {"page": {"limit": 25, "offset": 0, "current": 1, "total": 0}, "results": {"total": 0}},
    }
    assert envelope_findings(body) == [("pagination.envelope.links", "links.current, links.prev, links.next")]
