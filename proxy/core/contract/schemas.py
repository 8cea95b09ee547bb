"""OpenAPI schemas as JSON Schema (2020-12), each converted once and compiled once with jsonschema-rs,
when an exchange first needs it. No I/O.

What the conversion does so the published specs read as their authors meant (the false alarms other
checkers raise are all here): `nullable: true` admits null, beside `type`, `enum`, `$ref` or
`anyOf`/`oneOf`/`allOf` alike, in a 3.1 document too (3.1 dropped the keyword, but the published specs
still write it: rule-promotions.yaml); a `discriminator` with `propertyName` and `mapping` (or the
implicit mapping by schema name) picks the one branch its value names instead of asking that exactly one
branch of `oneOf` match, and a value it does not name is said at the `discriminator`; `readOnly`
properties are not required in a request, nor `writeOnly` ones in a response, however the object is
composed (`proxy.core.contract.one_way`); 3.0's boolean `exclusiveMinimum`/`exclusiveMaximum` become
2020-12's numbers; only the formats `uuid`, `date-time`, `uri` and `uri-reference` are validated, the
links as the service writes them (`proxy.core.contract.formats`; the others are annotations: the specs use
`int32`, `float` and their own). Every `$ref`, within a file or across files, becomes a `$defs` entry of
one self-contained schema, so a recursive schema is fine.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

import jsonschema_rs

from proxy.core.contract.documents import Spec, escape, ref_target, resolve_pointer
from proxy.core.contract.formats import CUSTOM, VALIDATED
from proxy.core.contract.one_way import hidden
from proxy.core.contract.wording import worded
from proxy.core.model.json_text import is_integral

Direction: TypeAlias = Literal["request", "response"]
_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_SCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
_SAME_VALUE = frozenset({"allOf", "anyOf", "oneOf", "then", "else"})  # their schemas judge the same value
_SCHEMA_VALUES = (
    "additionalProperties",
    "items",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
)
_DROPPED = frozenset({"nullable", "discriminator", "example", "examples", "xml", "externalDocs"})
Location: TypeAlias = tuple[str, str]  # a document's name and a JSON pointer in it
_Key: TypeAlias = tuple[Location, frozenset[str]]  # a schema, and the properties its object never carries


@dataclass(frozen=True, slots=True)
class Problem:
    """One way a document broke a schema: where in the document (`body.data.id`), the place in the
    spec whose keyword it broke, that keyword (`required`, `format`...) and the validator's words."""

    where: str
    location: Location
    keyword: str
    expected: str  # what the spec asks there, and what the traffic had (`wording.worded`)
    found: str
    seen: Any = None  # what the traffic had, for a proposed correction (`seen_of`)


class Unsupported(Exception):
    """A schema the validator cannot compile: said once, at its place, and never judged against."""

    def __init__(self, location: Location, reason: str) -> None:
        super().__init__(reason)
        self.location = location
        self.reason = reason


_REFUSED = (ValueError, jsonschema_rs.ValidationError, jsonschema_rs.ReferencingError)


def _validator(converted: dict[str, Any]) -> Any:
    return jsonschema_rs.Draft202012Validator(converted, validate_formats=True, formats=dict(CUSTOM))


class Compiled:
    """One schema of the specs, converted and compiled: `problems` of a document against it."""

    def __init__(
        self,
        root: Location,
        converted: dict[str, Any],
        names: Mapping[str, Location],
        discriminators: frozenset[str] = frozenset(),
        specs: Mapping[str, Spec] | None = None,
    ) -> None:
        self.root = root
        self._names = names
        self._discriminators = discriminators  # the `$defs` that check a discriminator's value
        # the nodes JSON Schema cannot read, each said at its place and left out: the rest is judged
        self.unsupported: tuple[Unsupported, ...] = ()
        try:
            self._validator = _validator(converted)
            return
        except _REFUSED as error:
            reason = str(error).strip().splitlines()[0]
        self.unsupported = _cut_unreadable(converted, self._source, specs) if specs is not None else ()
        if not self.unsupported:
            raise Unsupported(root, reason)
        try:
            self._validator = _validator(converted)
        except _REFUSED as error:
            raise Unsupported(root, str(error).strip().splitlines()[0]) from None

    def problems(self, document: Any, specs: Mapping[str, Spec], limit: int = 5) -> list[Problem]:
        """At most `limit` problems, none when the document conforms (the usual case: checked first
        by the fast `is_valid`)."""
        if self._validator.is_valid(document):
            return []
        found: list[Problem] = []
        said: set[tuple[str, str, str]] = set()  # one disagreement is said once, at its first place
        for error in self._validator.iter_errors(document):
            path = [str(part) for part in error.schema_path]
            where = "body" + "".join(f".{part}" for part in error.instance_path)
            keyword = path[-1] if path else ""
            if len(path) >= 2 and path[0] == "$defs" and path[1] in self._discriminators:
                keyword = "discriminator"
            if (where, keyword, error.message) in said:
                continue  # two places of the spec say the same (a 3.1 `required` beside its `$ref`'s)
            said.add((where, keyword, error.message))
            location = self._source(path, specs)
            found.append(Problem(where, location, keyword, *worded(error, keyword), seen_of(error)))
            if len(found) >= limit:
                break
        return found

    def _source(self, path: list[str], specs: Mapping[str, Spec]) -> Location:
        """The place in the spec a keyword path of the converted schema comes from: the named schema
        it is in, and the steps that exist in the source (the conversion's wrappers are left out)."""
        name, pointer = self.root
        rest = path
        if len(path) >= 2 and path[0] == "$defs" and path[1] in self._names:
            name, pointer = self._names[path[1]]
            rest = path[2:]
            if path[1] in self._discriminators:
                return name, pointer  # the discriminator itself: its value or its property missing
        node = resolve_pointer(specs[name].document, pointer)
        for step in rest:
            if isinstance(node, Mapping) and step in node:
                node = node[step]
            elif isinstance(node, list) and step.isdigit() and int(step) < len(node):
                node = node[int(step)]
            else:
                continue
            pointer += "/" + escape(step)
        return name, pointer


MAX_CUT = 50  # unreadable nodes left out of one schema, at most; past that the whole schema is


def _cut_unreadable(
    converted: dict[str, Any],
    source: Callable[[list[str], Mapping[str, Spec]], Location],
    specs: Mapping[str, Spec],
) -> tuple[Unsupported, ...]:
    """Each node of `converted` the JSON Schema meta-schema refuses (`properties: {type: "object"}`, a
    spec's slip), as `Unsupported` at its place in the spec, and taken out of `converted`: a schema in a
    schema's place becomes `true` (its value unjudged), a keyword with a value of the wrong kind goes.
    Only asked when the schema does not compile: a spec without such a slip pays nothing."""
    cut: list[Unsupported] = []
    while len(cut) < MAX_CUT:
        try:
            jsonschema_rs.meta.validate(converted)
            break
        except _REFUSED as error:
            path = [str(part) for part in getattr(error, "instance_path", ())]
            reason = str(error).strip().splitlines()[0]
        if not _left_out(converted, path):
            break  # nothing to take out: the compiler says what it cannot read, at the whole schema
        cut.append(Unsupported(source(path, specs), reason))
    return tuple(cut)


def _left_out(schema: dict[str, Any], path: list[str]) -> bool:
    """Take the node at `path` of the converted schema out of judging; False when it cannot be."""
    while path:
        parent: Any = schema
        for step in path[:-1]:
            parent = parent[int(step)] if isinstance(parent, list) else parent.get(step)
        last, above = path[-1], path[-2] if len(path) >= 2 else ""
        in_place_of_schema = (
            above in (*_SCHEMA_MAPS, "$defs")
            or (above in _SCHEMA_LISTS and last.isdigit())
            or (last in _SCHEMA_VALUES and isinstance(parent, dict))
        )
        if in_place_of_schema:
            parent[int(last) if isinstance(parent, list) else last] = True
            return True
        if isinstance(parent, dict) and last in parent:
            del parent[last]
            return True
        path = path[:-1]  # an item of a keyword's list: the keyword goes
    return False


def seen_of(error: Any) -> Any:
    """What a correction needs of one error: the missing property (`required`), the unexpected ones
    (`additionalProperties`), the value's JSON type (`type`), the value in a 1-tuple (`enum`, `const`:
    a scalar or null)."""
    kind = error.kind
    if isinstance(kind, jsonschema_rs.ValidationErrorKind.Required):
        return kind.property
    if isinstance(kind, jsonschema_rs.ValidationErrorKind.AdditionalProperties):
        return tuple(kind.unexpected)
    if isinstance(kind, jsonschema_rs.ValidationErrorKind.Type):
        return json_type(error.instance)
    if isinstance(kind, jsonschema_rs.ValidationErrorKind.Enum | jsonschema_rs.ValidationErrorKind.Constant):
        scalar = error.instance is None or isinstance(error.instance, str | int | float)
        return (error.instance,) if scalar else None  # a tuple: a null seen is not nothing seen
    return None


def json_type(value: Any) -> str:
    """JSON Schema's name of a value's type (`integer` for a whole number)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if is_integral(value) else "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


class Schemas:
    """Every schema of the specs an exchange has needed so far, compiled once per direction."""

    def __init__(self, specs: Mapping[str, Spec]) -> None:
        self.specs = specs
        self._compiled: dict[tuple[Location, Direction], Compiled | Unsupported] = {}

    def compiled(self, location: Location, direction: Direction) -> Compiled:
        """The schema at `location`, compiled for a request or a response; raises `Unsupported` (each
        time: the caller says it once) when the validator cannot take it."""
        key = (location, direction)
        found = self._compiled.get(key)
        if found is None:
            try:
                found = Compiled(location, *_Bundle(self.specs, direction).of(location), self.specs)
            except Unsupported as unsupported:
                found = unsupported
            self._compiled[key] = found
        if isinstance(found, Unsupported):
            raise found
        return found


class _Bundle:
    """One schema and every schema it reaches through `$ref`, as one JSON Schema with `$defs`."""

    def __init__(self, specs: Mapping[str, Spec], direction: Direction) -> None:
        self.specs = specs
        self.direction = direction
        self.flag = "readOnly" if direction == "request" else "writeOnly"
        self.names: dict[_Key, str] = {}
        self.waiting: list[_Key] = []
        self.discriminators: dict[str, tuple[Location, dict[str, Any]]] = {}  # label: its place, its check

    def of(self, root: Location) -> tuple[dict[str, Any], dict[str, Location], frozenset[str]]:
        first = self._name(root, frozenset())
        definitions: dict[str, Any] = {}
        while self.waiting:
            key = self.waiting.pop()
            (name, pointer), context = key
            node = resolve_pointer(self.specs[name].document, pointer)
            definitions[self.names[key]] = self._convert(node, name, pointer, context)
        labels = {label: location for (location, _), label in self.names.items()}
        _refuse_cycles(definitions, labels)
        for label, (location, check) in self.discriminators.items():
            definitions[label], labels[label] = check, location
        return {"$defs": definitions, "$ref": f"#/$defs/{first}"}, labels, frozenset(self.discriminators)

    def _name(self, location: Location, context: frozenset[str]) -> str:
        """The `$defs` name of a schema; one per set of properties its object never carries (a schema
        shared by objects that differ in those is converted once for each)."""
        key = (location, context)
        found = self.names.get(key)
        if found is None:
            found = self.names[key] = f"s{len(self.names)}"
            self.waiting.append(key)
        return found

    def _target(self, name: str, ref: str) -> tuple[Location, Any]:
        location = ref_target(name, ref)
        return location, resolve_pointer(self.specs[location[0]].document, location[1])

    def _convert(self, node: Any, name: str, at: str, context: frozenset[str] = frozenset()) -> Any:
        """`at`: the node's JSON pointer in `name`; `context`: the properties the enclosing object never
        carries in this direction, when `node` is one of the schemas that judge that same object (an
        `allOf` branch...)."""
        if not isinstance(node, Mapping):
            return node  # a boolean schema (3.1)
        version = self.specs[name].version
        converted: dict[str, Any] = {}
        unsent = context | hidden(self.specs, node, name, self.flag)
        ref = node.get("$ref")
        if isinstance(ref, str):
            converted["$ref"] = "#/$defs/" + self._name(self._target(name, ref)[0], unsent)
            if version == "3.0":  # siblings of a 3.0 `$ref` are ignored, but for `nullable`
                return _nullable(converted) if node.get("nullable") is True else converted
        for key, value in node.items():
            if key == "$ref" or key in _DROPPED or (isinstance(key, str) and key.startswith("x-")):
                continue
            if key == "format" and value not in VALIDATED:
                continue
            inner = unsent if key in _SAME_VALUE else frozenset()
            converted[key] = self._keyword(key, value, name, f"{at}/{escape(str(key))}", inner)
        if isinstance(converted.get("required"), list):
            converted["required"] = [field for field in converted["required"] if field not in unsent]
        if version == "3.0":
            _exclusive_bounds(converted, node)
        discriminator = node.get("discriminator")
        if isinstance(discriminator, Mapping):
            self._discriminate(converted, node, discriminator, (name, at), unsent)
        if node.get("nullable") is True:  # in a 3.1 document too, where its authors still write it
            return _nullable(converted)
        return converted

    def _keyword(self, key: str, value: Any, name: str, at: str, context: frozenset[str]) -> Any:
        if key in _SCHEMA_MAPS and isinstance(value, Mapping):
            return {
                inner: self._convert(schema, name, f"{at}/{escape(str(inner))}")
                for inner, schema in value.items()
            }
        if key in _SCHEMA_LISTS and isinstance(value, list):
            return [
                self._convert(schema, name, f"{at}/{index}", context) for index, schema in enumerate(value)
            ]
        if key in _SCHEMA_VALUES:
            if isinstance(value, list):  # `items` as a list, before 2020-12
                return [self._convert(schema, name, f"{at}/{index}") for index, schema in enumerate(value)]
            return self._convert(value, name, at, context)
        return value

    def _discriminate(
        self,
        converted: dict[str, Any],
        node: Mapping[str, Any],
        discriminator: Mapping[str, Any],
        place: Location,
        context: frozenset[str],
    ) -> None:
        """`oneOf`/`anyOf` with a discriminator (of the schema at `place`): the branch its property's
        value names must match."""
        name = place[0]
        branches_key = next((key for key in ("oneOf", "anyOf") if key in converted), None)
        field = discriminator.get("propertyName")
        if branches_key is None or not isinstance(field, str):
            return
        targets: dict[str, str] = {}
        for value, ref in (discriminator.get("mapping") or {}).items():
            written = ref if "/" in ref or "#" in ref else f"#/components/schemas/{ref}"
            targets[str(value)] = "#/$defs/" + self._name(self._target(name, written)[0], context)
        for branch, converted_branch in zip(node[branches_key], converted[branches_key], strict=False):
            ref = branch.get("$ref") if isinstance(branch, Mapping) else None
            if isinstance(ref, str) and isinstance(converted_branch, Mapping):
                targets.setdefault(ref.rsplit("/", 1)[-1], converted_branch["$ref"])
        if not targets:
            return
        del converted[branches_key]
        converted.setdefault("allOf", []).extend(
            {"if": {"properties": {field: {"const": value}}, "required": [field]}, "then": {"$ref": target}}
            for value, target in targets.items()
        )
        # The property's value must be one the discriminator names, checked in a `$def` of its own so a
        # value outside the mapping is said at the discriminator, not at an `enum` the spec lacks.
        label = f"d{len(self.discriminators)}"
        check = {"properties": {field: {"enum": list(targets)}}, "required": [field]}
        self.discriminators[label] = ((name, f"{place[1]}/discriminator"), check)
        converted["allOf"].append({"$ref": f"#/$defs/{label}"})


def _refuse_cycles(definitions: Mapping[str, Any], labels: Mapping[str, Location]) -> None:
    """`Unsupported` at a schema that is only a `$ref` in a cycle of such (`A: {$ref: B}`,
    `B: {$ref: A}`): it describes no value, and a validator would let every document through."""
    for start in definitions:
        seen: list[str] = []
        label = start
        while label not in seen:
            seen.append(label)
            schema = definitions.get(label)
            ref = schema.get("$ref") if isinstance(schema, Mapping) and len(schema) == 1 else None
            if not isinstance(ref, str) or not ref.startswith("#/$defs/"):
                break
            label = ref.removeprefix("#/$defs/")
        else:
            name, pointer = labels[label]
            raise Unsupported(labels[label], f"{name}#{pointer}: a cycle of $refs, which describes no value")


_COMPOSED = frozenset({"$ref", "allOf", "anyOf", "oneOf", "not", "if"})


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """A schema that also admits null: `null` among its types, or, when it is composed of others, the
    schema applied to whatever is not null (`if`/`else`, not `anyOf`: a value that breaks it is said at
    the keyword of the spec it breaks, never at an `anyOf` the spec does not write)."""
    kind = schema.get("type")
    if isinstance(kind, (str, list)) and _COMPOSED.isdisjoint(schema):
        types = [kind] if isinstance(kind, str) else list(kind)
        nullable = {**schema, "type": [*types, "null"] if "null" not in types else types}
        if isinstance(schema.get("enum"), list) and None not in schema["enum"]:
            nullable["enum"] = [*schema["enum"], None]
        return nullable
    return {"if": {"type": "null"}, "else": schema}


def _exclusive_bounds(converted: dict[str, Any], node: Mapping[str, Any]) -> None:
    for exclusive, bound in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
        flag = node.get(exclusive)
        if isinstance(flag, bool):
            del converted[exclusive]
            if flag and bound in converted:
                converted[exclusive] = converted.pop(bound)
