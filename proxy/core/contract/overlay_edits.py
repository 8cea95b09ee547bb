"""How an overlay changes a spec document: the SDK's merge (lodash `_.merge`), and Overlay 1.0's update and
remove. Pure: the spec document given is never changed; the result is a copy of each container an edit
goes through, sharing every untouched part with it (a published spec is megabytes, an edit a few lines).

Every change is written to a provenance map (a location, as the tuple of its keys and indexes, to the
overlay's name), so a finding can name the overlay that shaped what it judged.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

from proxy.errors import ContractError

Location = tuple[str | int, ...]
Provenance = dict[Location, str]


def pointer(location: Location) -> str:
    """The JSON pointer (RFC 6901) of a location: `("paths", "/a", "get")` is `/paths/~1a/get`."""
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in location)


def shown(location: Location) -> str:
    """A location as messages write it: its pointer as a URI fragment, so the root is `#`, not ``."""
    return "#" + pointer(location)


def kind_of(value: Any) -> str:
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    return "null" if value is None else "primitive"


class Draft:
    """A spec document being edited: the containers on the way to each edit are copied once, on first
    write; the rest is the caller's, read only. Copies are kept referenced, so their ids stay unique."""

    def __init__(self, root: Any, name: str, provenance: Provenance) -> None:
        self.root = root
        self.name = name  # the overlay applied now, as provenance records it
        self.provenance = provenance
        self._own: dict[int, Any] = {}

    def _owned(self, value: Any) -> Any:
        if id(value) in self._own:
            return value
        fresh = copy.copy(value)
        self._own[id(fresh)] = fresh
        return fresh

    def container(self, location: Location) -> Any:
        """The container at `location`, writable: it and every container above it are the draft's own."""
        self.root = node = self._owned(self.root)
        for part in location:
            child = self._owned(node[part])
            node[part] = child
            node = child
        return node

    def value_at(self, location: Location) -> Any:
        """The value at `location` now, or `_MISSING` when an earlier edit took it away."""
        node = self.root
        for part in location:
            held = (isinstance(node, dict) and isinstance(part, str) and part in node) or (
                isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node)
            )
            if not held:
                return _MISSING
            node = node[part]
        return node

    def put(self, location: Location, value: Any) -> None:
        """Set (or append, at a list's length) a copy of `value`: the overlay's own document stays apart."""
        parent = self.container(location[:-1])
        key = location[-1]
        if isinstance(parent, list) and key == len(parent):
            parent.append(copy.deepcopy(value))
        else:
            parent[key] = copy.deepcopy(value)
        self._mark(location)

    def remove(self, location: Location) -> None:
        """Take the node at `location` out of its map or array; a later array item moves up one."""
        parent = self.container(location[:-1])
        key = location[-1]
        del parent[key]
        self._forget(location)
        if isinstance(parent, list):
            assert isinstance(key, int)
            self._shift(location[:-1], key)
            # The array is what changed (its old index now names a sibling); what was set inside it stays.
            self.provenance[location[:-1]] = self.name
        else:
            self.provenance[location] = self.name

    def _mark(self, location: Location) -> None:
        self._forget(location)
        self.provenance[location] = self.name

    def _forget(self, location: Location) -> None:
        depth = len(location)
        for known in [known for known in self.provenance if known[:depth] == location]:
            del self.provenance[known]

    def _shift(self, array: Location, removed: int) -> None:
        depth = len(array)
        moved = {
            known: name
            for known, name in self.provenance.items()
            if len(known) > depth
            and known[:depth] == array
            and isinstance(known[depth], int)
            and known[depth] > removed  # type: ignore[operator]
        }
        for known in moved:
            del self.provenance[known]
        for known, name in moved.items():
            index = known[depth]
            assert isinstance(index, int)
            self.provenance[(*array, index - 1, *known[depth + 1 :])] = name


_MISSING: Any = object()


def lodash_merge(draft: Draft, location: Location, patch: Mapping[str, Any]) -> None:
    """The SDK's component merge (`_.merge(spec, corrections)`): maps merge key by key, lists merge by
    position (a shorter list leaves the spec's later items), anything else (null too) replaces.

    A map merged onto a list is refused: lodash would set the list's numbered keys and drop the others.
    """
    target = draft.container(location)
    for key, value in patch.items():
        _lodash_value(draft, (*location, key), target.get(key, _MISSING), value)


def _lodash_value(draft: Draft, here: Location, current: Any, value: Any) -> None:
    if isinstance(value, dict) and isinstance(current, dict):
        lodash_merge(draft, here, value)
    elif isinstance(value, list) and isinstance(current, list):
        for index, item in enumerate(value):
            existing = current[index] if index < len(current) else _MISSING
            _lodash_value(draft, (*here, index), existing, item)
            current = draft.value_at(here)
    elif isinstance(value, dict) and isinstance(current, list):
        raise ContractError(
            f"{draft.name}: {shown(here)}: a mapping cannot merge into the list the spec has there"
            " (lists merge by position: restate it as a list)"
        )
    elif not _same_primitive(current, value):
        draft.put(here, value)


def _same_primitive(current: Any, value: Any) -> bool:
    """A value restated as it was is no change (lodash skips it too): nothing to credit an overlay with.
    The types must match as well: `1 == True` in Python, not in JSON."""
    return not isinstance(value, dict | list) and type(current) is type(value) and current == value


Refuse = Callable[[Location, str], ContractError]


def overlay_update(draft: Draft, location: Location, update: Any, refuse: Refuse) -> None:
    """Overlay 1.0's update of the object or array at `location`: an object merges recursively into an
    object (a primitive replaces a primitive, an array is appended to an array, an object merges into an
    object; any other pair is refused, as Overlay 1.1 says), and an array gets `update` appended as one
    entry. `refuse(sub, problem)` is the error for the part of `update` at `sub`."""
    current = draft.value_at(location)
    if isinstance(current, dict):
        if not isinstance(update, dict):
            raise refuse((), f"the target is an object at {shown(location)}: update must be an object")
        _overlay_merge(draft, location, update, (), refuse)
    elif isinstance(current, list):
        if isinstance(update, list):
            raise refuse(
                (),
                f"the target is an array at {shown(location)}: Overlay 1.0 appends update as one entry,"
                " and an array as that entry is read differently by Overlay 1.1 (which concatenates):"
                " append one entry per action, or update the object that holds the array",
            )
        draft.put((*location, len(current)), update)
    else:
        raise refuse(
            (),
            f"the target is a {kind_of(current)} at {shown(location)}: Overlay 1.0 targets objects and"
            " arrays: target the object that holds it",
        )


def _primitive(value: Any) -> bool:
    return not isinstance(value, dict | list)


def _overlay_merge(
    draft: Draft, location: Location, update: dict[str, Any], sub: Location, refuse: Refuse
) -> None:
    target = draft.container(location)
    for key, value in update.items():
        here, part = (*location, key), (*sub, key)
        current = target.get(key, _MISSING)
        if current is _MISSING or (_primitive(current) and _primitive(value)):
            if not _same_primitive(current, value):
                draft.put(here, value)
        elif isinstance(current, dict) and isinstance(value, dict):
            _overlay_merge(draft, here, value, part, refuse)
        elif isinstance(current, list) and isinstance(value, list):
            for item in value:
                draft.put((*here, len(draft.value_at(here))), item)
        else:
            raise refuse(
                part,
                f"{'an' if kind_of(value)[0] in 'aeiou' else 'a'} {kind_of(value)} cannot merge with the"
                f" {kind_of(current)} at {shown(here)}: remove it in an action before, then update",
            )
