"""Which properties of an object one direction never carries: `readOnly` ones in a request, `writeOnly`
ones in a response, so a `required` list does not ask for them. No I/O.

The published specs say it in many shapes, and each is the same object: the flag on the property, or on
the schema its `$ref` or its `allOf` names; the `required` list beside `properties`, beside an `allOf`
with no `properties`, or in an `allOf` branch while the property is in another branch. So the properties
are looked for over the whole object: the schema and every schema that applies to the same value
(`$ref`, `allOf`, `anyOf`, `oneOf`, `then`, `else`), across files.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from proxy.core.contract.documents import Spec, ref_target, resolve_pointer

_SAME_VALUE_LISTS = ("allOf", "anyOf", "oneOf")
_SAME_VALUE = ("then", "else")


def same_value(
    specs: Mapping[str, Spec], node: Any, name: str, lists: tuple[str, ...] = _SAME_VALUE_LISTS
) -> Iterator[tuple[Mapping[str, Any], str]]:
    """The schema and every schema that applies to the same value through `$ref` and `lists` (and
    `then`/`else` when `lists` is all of them), each once, with the file it is in."""
    waiting: list[tuple[Any, str]] = [(node, name)]
    seen: set[int] = set()
    while waiting:
        schema, at = waiting.pop()
        if not isinstance(schema, Mapping) or id(schema) in seen:
            continue
        seen.add(id(schema))
        yield schema, at
        ref = schema.get("$ref")
        if isinstance(ref, str):
            target, pointer = ref_target(at, ref)
            waiting.append((resolve_pointer(specs[target].document, pointer), target))
        for key in lists:
            branches = schema.get(key)
            if isinstance(branches, list):
                waiting.extend((branch, at) for branch in branches)
        if lists == _SAME_VALUE_LISTS:
            waiting.extend((schema[key], at) for key in _SAME_VALUE if key in schema)


def hidden(specs: Mapping[str, Spec], node: Any, name: str, flag: str) -> frozenset[str]:
    """The property names of this object whose schema carries `flag` (`readOnly` or `writeOnly`)."""
    names: set[str] = set()
    for schema, at in same_value(specs, node, name):
        properties = schema.get("properties")
        for field, written in properties.items() if isinstance(properties, Mapping) else ():
            if any(part.get(flag) is True for part, _ in same_value(specs, written, at, ("allOf",))):
                names.add(str(field))
    return frozenset(names)
