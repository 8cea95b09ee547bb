"""`check --propose-overlay`: for each disagreement between the traffic and the specs, the smallest change
at its place in the spec that would make the spec accept what the service did, as OpenAPI Overlay 1.0
actions (a JSONPath `target`, an `update` or `remove: true`, a `description` naming how many exchanges
and the first of them). The maintainer reviews them: the service or the spec may be the one in the wrong.

Pure, no I/O. What each disagreement needs (the statuses, types, values, property names the traffic had
at that place) is collected as the contract judges (`Observations`, bounded); the actions are made
from the report's grouped disagreements at the end, once per place of a spec: a shared schema that
several operations' traffic broke gets one action, with the values of all of them (each once).
Every action made selects a node, is one the overlay reader takes, and makes its disagreement go away
(`_changes` checks the node is the keyword its kind needs); a disagreement no action fixes surely
(`oneOf`, `anyOf`, `not`, a discriminator's value, a keyword the conversion added) is a comment of the
proposal and a line on stderr instead.

- an undocumented status: the status added to the operation's `responses`;
- an undocumented content type: the media type added to the `content`, documenting the schema the
  body was judged against (`media_types.judged_by`), so the body stays checked;
- a required header missing: the header's `required: false`;
- `type`: for a null, `nullable: true` (3.0) or `null` among the types (3.1); for a fraction where
  `integer` was, `number`; else the spec's types and those seen (3.1), or `anyOf` of them (3.0);
- `enum`: the values seen appended; `required`: the missing properties taken out of the list;
- `additionalProperties: false`: `additionalProperties: true`;
- `format`, `pattern`, a bound, `const`: the keyword removed.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from proxy.core.contract import media_types
from proxy.core.contract.documents import Spec
from proxy.core.contract.judge import Disagreement as Seen
from proxy.core.reports.disagreements import FIRST_SHOWN, Disagreement, key_of, operation_of
from proxy.core.reports.yaml_text import yaml_text

MAX_VALUES = 20  # distinct values kept per disagreement
OPERATIONS_SHOWN = 5  # operations a description names
Key = tuple[str, str, str]  # `proxy.core.reports.disagreements.key_of`
REMOVABLE = frozenset(
    {"format", "pattern", "minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum"}
    | {"exclusiveMaximum", "multipleOf", "minItems", "maxItems", "uniqueItems", "minProperties"}
    | {"maxProperties", "const"}
)


@dataclass(slots=True)
class Observed:
    """One disagreement's place in the spec, its kind, and the distinct values the traffic had there."""

    location: tuple[str, str]
    kind: str
    values: list[Any] = field(default_factory=list)

    def add(self, value: Any) -> None:
        """A value seen, or a tuple of them."""
        for one in value if isinstance(value, tuple) else (value,):
            if one not in self.values and len(self.values) < MAX_VALUES:
                self.values.append(one)


class Observations:
    """What the traffic had at each disagreement's place, by the key the report groups them by."""

    def __init__(self) -> None:
        self.by_key: dict[Key, Observed] = {}

    def add(self, key: Key, seen: Seen) -> None:
        one = self.by_key.get(key)
        if one is None:
            one = self.by_key[key] = Observed(seen.location, seen.kind)
        if seen.seen is not None:  # `enum`, `const`: a 1-tuple, so a null seen is a value
            one.add(seen.seen)

    def merge(self, other: Observations) -> None:
        for key, theirs in other.by_key.items():
            one = self.by_key.setdefault(key, Observed(theirs.location, theirs.kind))
            for value in theirs.values:
                one.add((value,))


@dataclass(frozen=True, slots=True)
class Proposal:
    """The Overlay actions for each spec document, the disagreements no change was proposed for (each a
    line), and those of them at a place of each spec (its proposal's comments)."""

    actions: dict[str, list[dict[str, Any]]]  # by spec document name
    skipped: list[str]
    comments: dict[str, list[str]] = field(default_factory=dict)  # by spec document name


@dataclass(slots=True)
class _Place:
    """Every disagreement at one place of a spec, of one kind: one action (or none) for them all."""

    observed: Observed
    groups: list[Disagreement] = field(default_factory=list)

    def described(self, scrub: Callable[[str], str]) -> str:
        """The rules, how many exchanges and the first of them, the operations, the first statement."""
        first = self.groups[0].first
        rules = ", ".join(dict.fromkeys(group.first.rule for group in self.groups))
        count = sum(group.count for group in self.groups)
        numbers = list(dict.fromkeys(number for group in self.groups for number in group.numbers))
        shown = numbers[:FIRST_SHOWN]
        more = ", ..." if count > len(shown) else ""
        operations = list(dict.fromkeys(operation_of(group.first) for group in self.groups))
        named = ", ".join(operations[:OPERATIONS_SHOWN])
        if len(operations) > OPERATIONS_SHOWN:
            named += f" and {len(operations) - OPERATIONS_SHOWN} more"
        return scrub(
            f"{rules}: {count} exchange(s) ({', '.join(shown)}{more}) of {named}: {first.where}: "
            f"expected {first.expected}, found {first.found}"
        )


def proposed(
    groups: Iterable[Disagreement],
    observations: Observations,
    specs: Mapping[str, Spec],
    correctable: Collection[str],
    scrub: Callable[[str], str] = lambda text: text,
) -> Proposal:
    """One action (or the few one change needs) per place of a spec and kind of disagreement, the values
    every operation's traffic had there merged, and no action twice; those at a place no overlay can
    reach (a file not named with `--spec`, a key a JSONPath cannot name) or with no change that surely
    makes the spec accept the traffic (`oneOf`, a discriminator...) are named in `skipped`. `scrub`
    keeps a secret out of the descriptions; a value it changes is not proposed."""
    places: dict[tuple[str, str, str], _Place] = {}
    for group in groups:
        observed = observations.by_key.get(key_of(group.first))
        if observed is None or group.first.rule == "contract.unsupported":
            continue
        place = places.get((*observed.location, observed.kind))
        if place is None:
            place = places[(*observed.location, observed.kind)] = _Place(
                Observed(observed.location, observed.kind)
            )
        place.groups.append(group)
        for value in observed.values:
            place.observed.add((value,))
    actions: dict[str, list[dict[str, Any]]] = {}
    skipped: list[str] = []
    comments: dict[str, list[str]] = {}
    for place in places.values():
        said = place.described(scrub)
        name, pointer = place.observed.location
        kind = place.observed.kind
        values = [
            value for value in place.observed.values if not isinstance(value, str) or scrub(value) == value
        ]
        made = _changes(specs[name], pointer, kind, values) if name in correctable and name in specs else None
        if not made:
            why = "not a spec named with --spec" if name not in correctable else "no smallest change"
            section = place.groups[0].first.section
            skipped.append(f"{section}: {why}: {said}")
            comments.setdefault(name, []).append(f"no correction proposed ({why}) for {section}: {said}")
            continue
        for target, change in made:
            _add(actions.setdefault(name, []), {"target": target, "description": said, **change})
    return Proposal(actions, skipped, comments)


def _add(actions: list[dict[str, Any]], action: dict[str, Any]) -> None:
    """One action per target: the same change again is dropped (a parent's `nullable: true` asked by its
    `type` and by its `enum`), and an update of a schema's other keywords joins the earlier update of the
    same target, moved last (after a `remove` of its `type` that a widening needs before it)."""
    for index, earlier in enumerate(actions):
        if earlier["target"] != action["target"]:
            continue
        if _change_of(earlier) == _change_of(action):
            return
        mine, theirs = action.get("update"), earlier.get("update")
        if isinstance(mine, Mapping) and isinstance(theirs, Mapping):
            if any(key in theirs and theirs[key] != value for key, value in mine.items()):
                continue  # two different values of one keyword: left to the reviewer, both said
            if set(mine) <= set(theirs):  # no key of it differs: already said
                return
            del actions[index]
            actions.append({**earlier, "update": {**theirs, **mine}})
            return
    actions.append(action)


def _change_of(action: Mapping[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in action.items() if key not in ("target", "description")}


def overlay_document(spec: str, actions: list[dict[str, Any]]) -> dict[str, Any]:
    """An Overlay 1.0 document of these actions, extending `spec` (its name as loaded)."""
    return {
        "overlay": "1.0.0",
        "info": {
            "title": f"Proposed corrections of {spec}: what the service did (review each)",
            "version": "1.0.0",
        },
        "extends": spec,
        "actions": actions,
    }


def overlay_text(spec: str, actions: list[dict[str, Any]], comments: Iterable[str] = ()) -> str:
    """The proposal's file: the disagreements of this spec no action was proposed for as comments
    (for the reviewer), then the Overlay document."""
    lines = [f"# {' '.join(comment.split())}" for comment in comments]
    return "".join(line + "\n" for line in lines) + yaml_text(overlay_document(spec, actions))


Change = tuple[str, dict[str, Any]]  # a target and its `update` or `remove`


def _changes(spec: Spec, pointer: str, kind: str, values: list[Any]) -> list[Change] | None:
    """The actions at `pointer` of `spec`; None when no target can name it, or when the node there is not
    the one a change of this kind needs (the keyword at the end of the pointer, of its type): each action
    then selects a node, is one the overlay reader accepts, and, applied, the disagreement is gone."""
    tokens = pointer.split("/")[1:]
    path = _jsonpath(spec.document, tokens)
    if path is None:
        return None
    parent = _jsonpath(spec.document, tokens[:-1])
    node = _node(spec.document, tokens)
    last = tokens[-1] if tokens else ""
    if kind == "status":
        statuses = [str(status) for status in values if isinstance(status, int)]
        if not isinstance(node, Mapping) or not statuses:
            return None
        return [(path, {"update": {status: {"description": "Seen in traffic"}}}) for status in statuses]
    if kind == "content-type":
        if not isinstance(node, Mapping):
            return None
        return [
            (path, {"update": {str(seen): _media_object(node, str(seen))}}) for seen in values if seen
        ] or None
    if kind == "header":
        return [(path, {"update": {"required": False}})] if isinstance(node, Mapping) else None
    if kind == "request-body":  # at the requestBody's `required`: the body made optional
        return (
            [(parent, {"update": {"required": False}})] if parent is not None and last == "required" else None
        )
    if parent is None or last != kind:
        return None  # a keyword the conversion added (a discriminator's...), not the spec's own
    if kind == "type":
        return _wider(spec.version, path, parent, node, _node(spec.document, tokens[:-1]), values)
    if kind == "enum":
        if not isinstance(node, list) or not values:
            return None
        update: dict[str, Any] = {}  # on the schema: an array merged onto `enum` is appended to it
        if None in values and spec.version == "3.0":
            update["nullable"] = True
        new = [
            value for value in values if value not in node and (value is not None or spec.version != "3.0")
        ]
        if new:
            update["enum"] = new
        return [(parent, {"update": update})] if update else None
    if kind == "required":
        names = [name for name in values if isinstance(name, str) and isinstance(node, list) and name in node]
        either = " || ".join(f"@ == {_quoted(name)}" for name in names)
        return [(f"{path}[?{either}]", {"remove": True})] if names else None
    if kind == "additionalProperties" and node is False:
        return [(parent, {"update": {"additionalProperties": True}})]
    if kind in REMOVABLE:
        return [(path, {"remove": True})]
    return None


def _media_object(content: Any, media: str) -> Any:
    """What a media type proposed for `content` documents: a copy of the entry whose schema the body of
    that type was judged against (`media_types.judged_by`), so the proposal keeps the body checked; `{}`
    when none fits it (a body that is not JSON, which no schema of the spec judges)."""
    if not isinstance(content, Mapping):
        return {}
    key = media_types.judged_by(content, media)
    return copy.deepcopy(content[key]) if key is not None else {}


def _wider(
    version: str, path: str, parent: str, node: Any, schema: Any, seen: list[Any]
) -> list[Change] | None:
    """The smallest widening of a `type` to the types seen."""
    written = [node] if isinstance(node, str) else list(node) if isinstance(node, list) else None
    if written is None:
        return None
    types = [kind for kind in seen if kind not in written and not (kind == "integer" and "number" in written)]
    changes: list[Change] = []
    if "null" in types and version == "3.0":
        changes.append((parent, {"update": {"nullable": True}}))
        types.remove("null")
    if not types:
        return changes
    if written == ["integer"] and types == ["number"]:  # a fraction where a whole number was
        return [*changes, (parent, {"update": {"type": "number"}})]
    if version == "3.0":
        if isinstance(schema, Mapping) and not {"anyOf", "oneOf"} & set(schema):
            either = [{"type": kind} for kind in [*written, *types]]
            return [*changes, (path, {"remove": True}), (parent, {"update": {"anyOf": either}})]
        return [*changes, (path, {"remove": True})]
    return [*changes, (path, {"remove": True}), (parent, {"update": {"type": [*written, *types]}})]


def _node(document: Any, tokens: list[str]) -> Any:
    node = document
    for token in tokens:
        token = token.replace("~1", "/").replace("~0", "~")
        node = (
            node[int(token)]
            if isinstance(node, list)
            else node.get(token)
            if isinstance(node, Mapping)
            else None
        )
    return node


def _jsonpath(document: Any, tokens: list[str]) -> str | None:
    """The RFC 9535 query of the node at these pointer tokens; None when a step is a key JSONPath cannot
    name (YAML's unquoted `200:` is an integer key)."""
    parts, node = ["$"], document
    for raw in tokens:
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, list) and token.isdigit():
            parts.append(f"[{token}]")
            node = node[int(token)]
        elif isinstance(node, Mapping) and token in node:
            parts.append(f"[{_quoted(token)}]")
            node = node[token]
        else:
            return None
    return "".join(parts)


def _quoted(text: str) -> str:
    """A string literal of RFC 9535, single-quoted."""
    escaped = []
    for char in text:
        if char in "\\'":
            escaped.append("\\" + char)
        elif ord(char) < 0x20:
            escaped.append(f"\\u{ord(char):04x}")
        else:
            escaped.append(char)
    return "'" + "".join(escaped) + "'"
