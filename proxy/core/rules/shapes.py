"""Shapes (the feature, its update payload, the paginated envelope) as JSON Schemas, and their violations.

A conformant document, the common case, costs one call of jsonschema-rs's compiled (Rust) validator:
about 2 µs for a page of ten records, against 9 µs for fastjsonschema's generated Python and 150 µs for
jsonschema. Only a failing one is walked with jsonschema, which reports every error with its place.
Subschemas carry `x-part: NAME`; each error is attributed to the innermost part it sits in (a missing
key to its own part, or to the part its object names with `x-missing-part`), and rules select
violations by part. `additionalProperties` is never used: unknown fields are not errors.

jsonschema itself is imported only when something fails (a document, a schema, a rule's params):
importing it costs about 80 ms, a third of starting `check`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import jsonschema_rs

from proxy.core.rules.findings import Violation

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError
    from jsonschema.protocols import Validator

PART_KEY = "x-part"
MISSING_PART_KEY = "x-missing-part"  # on an object: its missing required keys are this part's
BUNDLED_META_SCHEMAS = frozenset(
    {
        "http://json-schema.org/draft-04/schema",
        "http://json-schema.org/draft-06/schema",
        "http://json-schema.org/draft-07/schema",
        "https://json-schema.org/draft/2019-09/schema",
        "https://json-schema.org/draft/2020-12/schema",
    }
)
ROOT_PART = "shape"
ROOT_PLACE = "$"  # where a violation of the whole document is


@dataclass(frozen=True, slots=True)
class PartViolation:
    """A violation and the schema part it belongs to."""

    part: str
    violation: Violation


class Shape:
    """One compiled JSON Schema and the parts it declares."""

    def __init__(self, name: str, schema: Mapping[str, Any]) -> None:
        self.name = name
        self.schema = schema
        self.parts = frozenset(parts_of(schema)) | {ROOT_PART}
        if not known_valid(schema):  # jsonschema has the last word, and the message
            problem = schema_problem(schema)
            if problem is not None:
                raise ValueError(f"shape {name!r} is not a valid JSON Schema: {problem}")
        self._full_walk: Validator | None = None
        self._fast: Callable[[Any], bool] | None
        try:
            # offline: a remote $ref is not fetched (jsonschema does not fetch one either)
            self._fast = jsonschema_rs.validator_for(dict(schema), offline=True).is_valid
        except (ValueError, jsonschema_rs.ValidationError):  # e.g. a pattern only Python's re accepts
            self._fast = None

    def violations(self, document: Any) -> list[PartViolation]:
        """Every way the document breaks the schema; empty when it conforms."""
        try:
            if self._fast is not None and self._fast(document):
                return []
        except ValueError:  # a value the Rust side cannot take; the full walk decides
            pass
        missing_taken: dict[tuple[Any, ...], int] = {}
        return [self._attributed(error, missing_taken) for error in self._full.iter_errors(document)]

    @property
    def _full(self) -> Validator:
        """jsonschema's validator for this schema, made the first time a document fails."""
        if self._full_walk is None:
            self._full_walk = full_validator(self.schema)
        return self._full_walk

    def _attributed(self, error: ValidationError, missing_taken: dict[tuple[Any, ...], int]) -> PartViolation:
        """The violation and its part; `missing_taken` counts the `required` errors already seen per
        object and keyword: jsonschema gives one error per missing key, in the keyword's order, but
        does not name the key."""
        part = ROOT_PART
        node: Any = self.schema
        path = list(error.schema_path)
        for step in path:
            if isinstance(node, Mapping) and isinstance(node.get(PART_KEY), str):
                part = node[PART_KEY]
            try:
                node = node[step]
            except (KeyError, IndexError, TypeError):
                break
        where = _place(error.absolute_path)
        expected = _expected(error)
        found = shown(error.instance)
        if error.validator == "required" and isinstance(error.instance, Mapping):
            required: Any = error.validator_value
            missing = [name for name in required if name not in error.instance]
            key = (*error.absolute_path, "|", *path)
            taken = missing_taken.get(key, 0)
            missing_taken[key] = taken + 1
            name = missing[taken] if taken < len(missing) else "?"
            parent = _parent(self.schema, path)
            child = parent.get("properties", {}).get(name, {}) if isinstance(parent, Mapping) else {}
            if isinstance(parent, Mapping) and isinstance(parent.get(MISSING_PART_KEY), str):
                part = parent[MISSING_PART_KEY]  # the object's own rule says what it lacks
            elif isinstance(child, Mapping) and isinstance(child.get(PART_KEY), str):
                part = child[PART_KEY]
            where = f"{where}.{name}" if where != ROOT_PLACE else name
            expected, found = "present (required)", "missing"
        return PartViolation(part, Violation(where=where, expected=expected, found=found))


def _validator_class(schema: Mapping[str, Any]) -> type[Validator]:
    """jsonschema's validator class for the draft the schema names (2020-12 when it names none)."""
    import jsonschema

    default = jsonschema.Draft202012Validator
    found: type[Validator] = jsonschema.validators.validator_for(schema, default=default)
    return found


def full_validator(schema: Mapping[str, Any]) -> Validator:
    """jsonschema's validator for the schema, which reports every error with its place."""
    return _validator_class(schema)(schema)


def schema_problem(schema: Mapping[str, Any]) -> str | None:
    """What jsonschema's `check_schema` finds wrong with a schema (its meta-schema, regexes compiled by
    Python's re), or None."""
    from jsonschema import SchemaError

    try:
        _validator_class(schema).check_schema(dict(schema))
    except SchemaError as error:
        return error.message
    return None


def known_valid(schema: Mapping[str, Any]) -> bool:
    """Whether a schema passes jsonschema-rs's meta-schema check and every regex in it compiles with
    Python's re: jsonschema's `check_schema` asks both (its only format check a meta-schema uses is
    `regex`). False means only that jsonschema must decide."""
    named = schema.get("$schema")
    if named is not None and (not isinstance(named, str) or named.rstrip("#") not in BUNDLED_META_SCHEMAS):
        return False  # jsonschema-rs would try to fetch a meta-schema it does not bundle over the network
    try:
        if not jsonschema_rs.meta.is_valid(dict(schema)):
            return False
    except (ValueError, jsonschema_rs.ReferencingError):  # a value it cannot take
        return False
    try:
        for pattern in _patterns(schema):
            re.compile(pattern)
    except (re.error, TypeError, RecursionError):
        return False
    return True


def _mappings(schema: Any) -> Iterator[Mapping[str, Any]]:
    """Every mapping anywhere in a schema, the schema itself first."""
    if isinstance(schema, Mapping):
        yield schema
        for value in schema.values():
            yield from _mappings(value)
    elif isinstance(schema, list):
        for value in schema:
            yield from _mappings(value)


def _patterns(schema: Any) -> Iterator[Any]:
    """Every `pattern` string and `patternProperties` key anywhere in a schema (and, harmlessly, any
    such key inside a `const` or `enum` value)."""
    for node in _mappings(schema):
        if isinstance(node.get("pattern"), str):
            yield node["pattern"]
        if isinstance(node.get("patternProperties"), Mapping):
            yield from node["patternProperties"]


def parts_of(schema: Any) -> Iterator[str]:
    """Every `x-part` name declared anywhere in a schema."""
    return (node[PART_KEY] for node in _mappings(schema) if isinstance(node.get(PART_KEY), str))


def _parent(schema: Mapping[str, Any], schema_path: list[Any]) -> Any:
    node: Any = schema
    for step in schema_path[:-1]:
        node = node[step]
    return node


def _place(path: Any) -> str:
    text = ""
    for step in path:
        text += f"[{step}]" if isinstance(step, int) else (f".{step}" if text else str(step))
    return text or ROOT_PLACE


def _expected(error: ValidationError) -> str:
    value: Any = error.validator_value
    descriptions = {
        "type": lambda: f"type {value}" if isinstance(value, str) else f"one of types {', '.join(value)}",
        "minLength": lambda: f"at least {value} characters",
        "maxLength": lambda: f"at most {value} characters",
        "pattern": lambda: f"matching {value}",
        "enum": lambda: "one of " + ", ".join(shown(option) for option in value),
        "const": lambda: shown(value),
        "minimum": lambda: f"at least {value}",
        "maximum": lambda: f"at most {value}",
    }
    describe = descriptions.get(str(error.validator))
    return describe() if describe else f"{error.validator} {shown(value)}"


def shown(value: Any) -> str:
    if isinstance(value, str):
        return repr(value) if len(value) <= 80 else repr(value[:77] + "...") + f" ({len(value)} characters)"
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, list):
        return f"an array of {len(value)}"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
