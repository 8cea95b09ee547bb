"""Overlays: the corrections layer on top of the published specs, where the service wins over its spec.

Two kinds. A merge correction is a piece of an OpenAPI document merged into the spec the way the SDK's
`*_service_corrections.yaml` files are (its component-merge decorator: lodash `_.merge`). An Overlay
document (OpenAPI Overlay 1.0) lists actions, each an RFC 9535 JSONPath `target` with an `update` or
`remove: true`. `overlay_of` validates one (a malformed one is a one-line `ContractError` naming its file
and the JSON pointer of the problem) and pairs it with the spec it applies to; `overlaid` applies them.
Pure: no I/O (`proxy/store/overlay_files.py` reads the files).
"""

from __future__ import annotations

import logging
import posixpath
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import jsonpath_rfc9535

from proxy.core.contract.overlay_edits import (
    Draft,
    Location,
    Provenance,
    lodash_merge,
    overlay_update,
    pointer,
    shown,
)
from proxy.errors import ContractError

logger = logging.getLogger(__name__)

APPLIES_TO = "x-applies-to"  # a merge correction's explicit pairing: a spec's file name, or a list of them
OVERLAY_VERSION = re.compile(r"1\.0\.\d+")
# The fields of an OpenAPI document's root (3.0 and 3.1): a merge correction is a piece of one.
OPENAPI_ROOT = frozenset(
    {"openapi", "info", "jsonSchemaDialect", "servers", "paths", "webhooks", "components", "security", "tags"}
    | {"externalDocs"}
)
_EXTENSIONS = ".overlay.yaml", ".overlay.yml", ".overlay.json", ".yaml", ".yml", ".json"


@dataclass(frozen=True)
class Action:
    """One Overlay action, its target compiled; `index` is its place in `actions`, for messages."""

    index: int
    target: str
    query: jsonpath_rfc9535.JSONPathQuery
    update: Any
    has_update: bool
    remove: bool


@dataclass(frozen=True)
class Overlay:
    """A correction of one or more spec documents: `name` is its file, `kind` "merge" (a piece of an
    OpenAPI document, `x-applies-to` taken out) or "overlay" (an Overlay 1.0 document), and `applies_to`
    the names of the spec documents (as `overlay_of` was given them) it applies to."""

    name: str
    kind: Literal["merge", "overlay"]
    document: Mapping[str, Any]
    applies_to: tuple[str, ...]
    actions: tuple[Action, ...] = ()
    fragments: tuple[str, ...] = ()  # named explicitly, fitting no spec: a file only a `$ref` reaches

    def corrects(self, name: str) -> bool:
        """Whether this overlay applies to the document `name` (a spec, or a fragment it names)."""
        return name in self.applies_to or any(_fits_fragment(name, wanted) for wanted in self.fragments)

    @property
    def pairing_key(self) -> Location:
        return ("extends",) if self.kind == "overlay" else (APPLIES_TO,)


def overlay_of(name: str, document: object, specs: Collection[str]) -> Overlay:
    """The overlay in file `name`, checked, and paired with the spec documents among `specs` (their file
    names or paths) it applies to: by `extends` (Overlay) or `x-applies-to` (merge) when given, else by
    its file name (`cart_checkout_service_corrections.yaml` applies to `cart_checkout.yaml`, `-` and `_`
    alike; the longest spec name that fits wins). A pairing that fits no spec, or more than one of that
    longest name, is an error: never silently ignored."""
    if not isinstance(document, dict):
        raise _malformed(
            name,
            (),
            f"expected a mapping (a merge correction or an Overlay document), found {_type(document)}",
        )
    checked: dict[str, Any] = _string_keys(name, document, ())
    if "overlay" in checked:
        actions = _actions(name, checked)
        extends = checked.get("extends")
        named = (extends,) if isinstance(extends, str) else None
        applies_to, fragments = _paired(name, named, ("extends",), specs)
        return Overlay(name, "overlay", checked, applies_to, actions, fragments)
    patch = dict(checked)
    explicit = patch.pop(APPLIES_TO, None)
    if explicit is not None:
        if isinstance(explicit, str):
            explicit = [explicit]
        if (
            not isinstance(explicit, list)
            or not explicit
            or not all(isinstance(item, str) for item in explicit)
        ):
            raise _malformed(name, (APPLIES_TO,), "expected a spec's file name or a list of them")
    applies_to, fragments = _paired(name, tuple(explicit) if explicit else None, (APPLIES_TO,), specs)
    for key in patch if applies_to else ():  # a fragment's root is its own (a schema, `components`...)
        if key not in OPENAPI_ROOT and not key.startswith("x-"):
            hint = " (an Overlay document starts with 'overlay: 1.0.0')" if key == "actions" else ""
            raise _malformed(name, (key,), f"not a field of an OpenAPI document's root{hint}")
    return Overlay(name, "merge", patch, applies_to, fragments=fragments)


def overlaid(
    spec_name: str,
    document: dict[str, Any],
    overlays: Sequence[Overlay],
    warn: Callable[[str], None] | None = None,
) -> tuple[dict[str, Any], dict[str, str]]:
    """The spec document `spec_name` with each overlay that applies to it applied, in the order given, and
    the JSON pointer of every node an overlay set or removed mapped to that overlay's name (the last one
    to touch it). `document` is not changed: the result shares its untouched parts, so treat both as read
    only. A target that selects nothing goes to `warn` (default: this module's logger)."""
    said = warn if warn is not None else logger.warning
    provenance: Provenance = {}
    result: Any = document
    for overlay in overlays:
        if not overlay.corrects(spec_name):
            continue
        draft = Draft(result, overlay.name, provenance)
        try:
            if overlay.kind == "merge":
                lodash_merge(draft, (), overlay.document)
            else:
                for action in overlay.actions:
                    _act(draft, spec_name, action, said)
        except RecursionError:  # the edits recurse once or twice per level of the overlay's nesting
            raise ContractError(f"{overlay.name}: nested too deeply to apply to {spec_name}") from None
        result = draft.root
    return result, {pointer(location): name for location, name in provenance.items()}


def overlays_shaping(provenance: Mapping[str, str], at: str) -> tuple[str, ...]:
    """The overlays (by name, each once) that set or removed the node at pointer `at`, a node above it,
    or one inside it: those that shaped the schema or operation there."""
    names: dict[str, None] = {}
    for changed, name in provenance.items():
        if _within(changed, at) or _within(at, changed):
            names[name] = None
    return tuple(names)


def _within(inner: str, outer: str) -> bool:
    return inner == outer or inner.startswith(outer + "/")


def _act(draft: Draft, spec_name: str, action: Action, warn: Callable[[str], None]) -> None:
    try:
        nodes = action.query.find(draft.root)
    except jsonpath_rfc9535.JSONPathError as error:
        raise _malformed(
            draft.name, ("actions", action.index, "target"), f"cannot be applied: {error}"
        ) from None
    if not nodes:
        where = shown(("actions", action.index, "target"))
        warn(f"{draft.name}: {where}: {action.target} selects nothing in {spec_name}")
        return
    locations: list[Location] = [tuple(node.location) for node in nodes]
    if action.remove:
        if () in locations:
            raise _malformed(
                draft.name, ("actions", action.index, "target"), "cannot remove the document's root"
            )
        # Later items and deeper nodes first, so each location still names its node when its turn comes.
        for location in sorted(set(locations), key=_order, reverse=True):
            draft.remove(location)
        return

    def refuse(sub: Location, problem: str) -> ContractError:
        return _malformed(
            draft.name, ("actions", action.index, "update", *sub), f"{problem} (in {spec_name})"
        )

    for location in locations:
        overlay_update(draft, location, action.update, refuse)


def _order(location: Location) -> tuple[tuple[int, int, str], ...]:
    return tuple((1, part, "") if isinstance(part, int) else (0, 0, part) for part in location)


def _actions(name: str, document: dict[str, Any]) -> tuple[Action, ...]:
    version = document["overlay"]
    if not isinstance(version, str) or not OVERLAY_VERSION.fullmatch(version):
        raise _malformed(
            name, ("overlay",), f"version {version!r} is not supported: expected 1.0.x (Overlay 1.0)"
        )
    _fields(name, document, (), {"overlay", "info", "extends", "actions"})
    info = document.get("info")
    if not isinstance(info, dict):
        raise _malformed(
            name,
            ("info",),
            "missing: expected a mapping with 'title' and 'version'"
            if info is None
            else f"expected a mapping, found {_type(info)}",
        )
    _fields(name, info, ("info",), {"title", "version", "description"})
    for key in ("title", "version"):
        if not isinstance(info.get(key), str):
            raise _malformed(name, ("info", key), _expected_string(info.get(key), key in info))
    if "extends" in document and not isinstance(document["extends"], str):
        raise _malformed(name, ("extends",), f"expected a URL (a string), found {_type(document['extends'])}")
    listed = document.get("actions")
    if not isinstance(listed, list) or not listed:
        problem = (
            "missing"
            if listed is None
            else f"found {_type(listed)}"
            if not isinstance(listed, list)
            else "empty"
        )
        raise _malformed(name, ("actions",), f"{problem}: expected a list of at least one action")
    return tuple(_action(name, index, item) for index, item in enumerate(listed))


def _action(name: str, index: int, item: Any) -> Action:
    at: Location = ("actions", index)
    if not isinstance(item, dict):
        raise _malformed(name, at, f"expected an action (a mapping with 'target'), found {_type(item)}")
    _fields(name, item, at, {"target", "description", "update", "remove"})
    target = item.get("target")
    if not isinstance(target, str):
        raise _malformed(
            name, (*at, "target"), _expected_string(target, "target" in item, "a JSONPath query")
        )
    try:
        query = jsonpath_rfc9535.compile(target)
    except jsonpath_rfc9535.JSONPathError as error:
        raise _malformed(name, (*at, "target"), f"not an RFC 9535 JSONPath query: {error}") from None
    if "description" in item and not isinstance(item["description"], str):
        raise _malformed(name, (*at, "description"), f"expected a string, found {_type(item['description'])}")
    remove = item.get("remove", False)
    if not isinstance(remove, bool):
        raise _malformed(name, (*at, "remove"), f"expected true or false, found {_type(remove)}")
    if not remove and "update" not in item:
        raise _malformed(name, at, "does nothing: expected 'update' or 'remove: true'")
    return Action(index, target, query, item.get("update"), "update" in item, remove)


def _paired(
    name: str, named: tuple[str, ...] | None, key: Location, specs: Collection[str]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The specs an overlay applies to, and the names it gives that fit none: files only a `$ref`
    reaches, known once the specs are read (`check_fragments` then says when one fits no file)."""
    known = ", ".join(sorted(specs)) or "none"
    if named is not None:
        paired: list[str] = []
        fragments: list[str] = []
        for wanted in named:
            fits = [spec for spec in specs if spec == wanted] or [
                spec for spec in specs if _stem(spec) == _stem(wanted)
            ]
            if len(fits) > 1:
                problem = f"fits more than one spec ({', '.join(sorted(fits))})"
                raise _malformed(name, key, f"{wanted!r} {problem} (specs: {known})")
            if not fits:
                fragments.append(wanted)
            paired.extend(spec for spec in fits if spec not in paired)
        return tuple(paired), tuple(fragments)
    own = _stem(name)
    fitting = [spec for spec in specs if own == _stem(spec) or own.startswith(_stem(spec) + "_")]
    # The longest name that fits wins: `authentication_realms_corrections` is authentication-realms',
    # not authentication's; only specs of that one longest name are a tie.
    longest = max((len(_stem(spec)) for spec in fitting), default=0)
    fits = sorted(spec for spec in fitting if len(_stem(spec)) == longest)
    if len(fits) == 1:
        return (fits[0],), ()
    how = "name it after its spec (<spec>_<what>.yaml) or say which with"
    say = "extends" if key == ("extends",) else APPLIES_TO
    if not fits:
        raise ContractError(f"{name}: its name fits no spec loaded (specs: {known}): {how} {say}")
    raise ContractError(f"{name}: its name fits more than one spec ({', '.join(fits)}): say which with {say}")


def check_fragments(overlays: Sequence[Overlay], specs: Collection[str], fragments: Collection[str]) -> None:
    """Once the specs are read: each file an overlay names that is no spec must be exactly one of the
    `fragments` (the files only a `$ref` reached), or the overlay would silently change nothing."""
    for overlay in overlays:
        for wanted in overlay.fragments:
            fits = sorted(fragment for fragment in fragments if _fits_fragment(fragment, wanted))
            if len(fits) == 1:
                continue
            known = f"specs: {', '.join(sorted(specs)) or 'none'}"
            if fragments:
                known += f"; files a $ref reaches: {', '.join(sorted(fragments))}"
            problem = (
                f"names no spec loaded ({known})"
                if not fits
                else f"fits more than one file a $ref reaches ({', '.join(fits)}): name it by its path"
            )
            raise _malformed(overlay.name, overlay.pairing_key, f"{wanted!r} {problem}")


def _fits_fragment(name: str, wanted: str) -> bool:
    """Whether the file `name` (as the loader names it) is the one an overlay names: by its path, or
    the end of it (`schemas/cart.yaml`), when the name has a folder; else by file name, as specs are."""
    path = posixpath.normpath(wanted.replace("\\", "/"))
    if "/" in path:
        return name == path or name.endswith("/" + path)
    return _stem(name) == _stem(path)


def _stem(name: str) -> str:
    """A file name or URL reduced for pairing: no folder, query or extension; lower case, `-` as `_`."""
    base = name.split("#", 1)[0].split("?", 1)[0].replace("\\", "/").rsplit("/", 1)[-1].lower()
    for extension in _EXTENSIONS:
        if base.endswith(extension):
            base = base[: -len(extension)]
            break
    return base.replace("-", "_")


def _string_keys(name: str, value: Any, at: Location) -> Any:
    """The document with YAML's integer keys (`200:` under `responses`) as the strings JSON has; any
    other key that is not a string is refused. Walks without recursion: a document may nest deeply."""
    root: dict[str, Any] = {}
    pending: list[tuple[Any, Any, Location]] = [(value, root, at)]
    while pending:
        source, built, where = pending.pop()
        items = source.items() if isinstance(source, dict) else enumerate(source)
        for key, child in items:
            if isinstance(source, dict):
                if isinstance(key, bool) or not isinstance(key, str | int):
                    raise _malformed(name, (*where, str(key)), f"a key must be a string, found {_type(key)}")
                key = str(key)
            if isinstance(child, dict | list):
                copied: Any = {} if isinstance(child, dict) else []
                pending.append((child, copied, (*where, key)))
                child = copied
            if isinstance(built, dict):
                built[key] = child
            else:
                built.append(child)
    return root


def _fields(name: str, mapping: dict[str, Any], at: Location, allowed: set[str]) -> None:
    for key in mapping:
        if key not in allowed and not key.startswith("x-"):
            raise _malformed(
                name, (*at, key), f"unknown field (expected {', '.join(sorted(allowed))} or x-...)"
            )


def _expected_string(value: Any, present: bool, what: str = "a string") -> str:
    return f"expected {what}, found {_type(value)}" if present else f"missing: expected {what}"


def _type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    return {dict: "a mapping", list: "a list", str: "a string", int: "a number", float: "a number"}.get(
        type(value), type(value).__name__
    )


def _malformed(name: str, at: Location, problem: str) -> ContractError:
    return ContractError(f"{name}: {shown(at)}: {problem}")
