"""Shapes: the compiled fast verdict and the full jsonschema walk agree, whatever the Rust side can take."""

from __future__ import annotations

from typing import Any

import pytest

from proxy.core.shapes import Shape

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
