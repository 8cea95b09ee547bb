"""A difference between two answers tiered by the published specs where they decide it (`verify` and
`cassette diff` with `--spec`). No I/O.

Comparing two answers alone says a missing field breaks and a changed value is data. The spec knows
more: the live (newer) answer is judged by its operation's documented response, and a difference the
spec decides gets the spec's tier and its source (`file#pointer`, and the overlay that shaped that
place). Every kind of difference the comparison names (`proxy.core.drift.compare.Kind`) is met by
name in `SpecTiers._tiered`, so none passes by unjudged:
- the status, a header, a body that is not JSON: breaking where the judge says the newer answer breaks
  the operation there (a status it does not document, a content type it does not list, a required
  header gone, a body that is not the JSON documented); a header declared, not required, gone: data.
  The heads the spec documents are compared first (`drift_heads`), so the comparison's few are not
  all the spec judges;
- a JSON value changed, of the same type or another (the whole body too): breaking where the newer
  value breaks the schema at its place (a type it refuses, null where it is not nullable, a value
  outside the enum...); a change of type the schema takes (`anyOf`, `type: [...]`, `nullable`) is
  `data`, its source the keyword that takes both values;
- a field removed: breaking where a schema of its object requires it, `data` where the spec declares
  it and none requires it; a field added: breaking where `additionalProperties: false` refuses it;
- a list's length (items on one side only): breaking where the newer list breaks its own keywords
  (`minItems`...) or an item the recorded list lacks breaks the items' schema (a required field);
- the exchange's own recording time and duration: no spec speaks of them.
Everything else keeps the comparison's tier.

The schema at a difference's place is found through `$ref`s, `allOf` branches, `items` and
`prefixItems`, and the branch of a `oneOf`/`anyOf` the recorded value takes (when it takes exactly
one; else the spec does not decide there). A difference is breaking only where the newer answer
breaks the spec at its place (or under a `oneOf`/`anyOf` above it it no longer fits): a value moved to
another branch the spec allows is no breaking change, but data said by the keyword that composes the
branches (`_Places._moved`: the validator judges the newer value at the nearest such place).
The documented rules win: an operation they describe is not tiered by the spec.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any, NamedTuple, assert_never

from proxy.core.contract.documents import escape, ref_target, resolve_pointer
from proxy.core.contract.drift_heads import declared, head_differences
from proxy.core.contract.findings import located
from proxy.core.contract.judge import UNSUPPORTED, Contract, DeclaredHeader
from proxy.core.contract.schemas import Location, Problem, Unsupported
from proxy.core.drift.compare import ABSENT, Difference
from proxy.core.model.exchange import Exchange

Token = str | int  # a key of an object, or an index of an array
PROBLEMS = 200  # a value's problems read to find those at its own place (bounded: a list may be long)
TYPING = ("type", "anyOf", "oneOf", "nullable", "enum", "const")  # keywords that say a place's types
# picks a problem at or under a place, given its place below it (`""`: the place itself, `.0.sku`)
Wanted = Callable[[str, Problem], bool]


def _nothing_documented(method: str, path: str) -> bool:
    return False


class SpecTiers:
    """The `Tiering` of `proxy.core.drift.compare`: one exchange's differences, tiered by the spec.
    `documented(method, path)`: whether the documented rules describe the operation (they win)."""

    def __init__(
        self, contract: Contract, documented: Callable[[str, str], bool] = _nothing_documented
    ) -> None:
        self.contract = contract
        self.documented = documented

    def __call__(self, recorded: Exchange, live: Exchange, found: list[Difference]) -> list[Difference]:
        request = live.request
        if self.documented(request.method, request.path):
            return found
        operations = self.contract.operations(request.method, request.path)
        if not operations:
            return found
        found = _with_heads(
            found, head_differences(self.contract, operations, recorded.response, live.response, found)
        )
        if all(item.kind == "recording" for item in found):
            return found
        operation, disagreements = self.contract.judge_all(live, operations)
        said: dict[str, Location] = {}  # the judge's places (`status`, `headers.etag`, `body`)
        for disagreement in disagreements:
            if disagreement.rule != UNSUPPORTED:
                said.setdefault(disagreement.where.lower(), disagreement.location)
        heads = declared(self.contract, operation, live.response.status)
        schema = self.contract.response_schema(live.response, operation)
        places = _Places(self, schema, recorded, live) if schema is not None else None
        return [self._tiered(item, said, heads, places) for item in found]

    def _tiered(
        self,
        item: Difference,
        said: Mapping[str, Location],
        heads: Mapping[str, DeclaredHeader],
        places: _Places | None,
    ) -> Difference:
        """Every kind of difference meets the spec here, each by name (none passes by unjudged): the
        answer's status, headers and a body that is not JSON by what the judge said at that place (a
        head the response declares and does not require gone is data); a JSON body's by the schema at
        the difference's place."""
        match item.kind:
            case "status" | "header" | "body":
                location = said.get(item.where.lower())
                if location is not None:
                    return self.decided(item, "breaking", location)
                head = heads.get(item.where.lower())
                if head is not None and item.live is ABSENT and item.tier == "breaking":
                    return self.decided(item, "data", head.location)
                return item
            case "removed" | "added" | "changed" | "retyped" | "length":
                return item if places is None else places.tiered(item)
            case "recording":
                return item  # the exchange's own recording time and duration: no spec speaks of them
            case _:  # pragma: no cover - mypy proves every kind is named above
                assert_never(item.kind)

    def decided(self, item: Difference, tier: Any, location: Location) -> Difference:
        return replace(item, tier=tier, source=located(self.contract, location))

    def problems(self, location: Location, value: Any, limit: int = PROBLEMS) -> list[Problem] | None:
        """The value's problems with the schema at `location`; None when it cannot be compiled."""
        try:
            compiled = self.contract.schemas.compiled(location, "response")
        except Unsupported:
            return None
        return compiled.problems(value, self.contract.specs, limit)

    def node(self, location: Location) -> Any:
        return resolve_pointer(self.contract.specs[location[0]].document, location[1])


class _Places:
    """The schemas of one answer's places, walked from its response schema; the answers' JSON bodies
    (the recorded one decides branches, the newer one is judged)."""

    def __init__(self, tiers: SpecTiers, schema: Location, recorded: Exchange, live: Exchange) -> None:
        self.tiers = tiers
        self.schema = schema
        self.recorded = _json(recorded)
        self.live = _json(live)
        self._problems: list[Problem] | None = None

    def problems(self) -> list[Problem]:
        """The newer answer's problems with its response schema (asked once)."""
        if self._problems is None:
            found = self.tiers.problems(self.schema, self.live) if self.live is not ABSENT else None
            self._problems = found or []
        return self._problems

    def tiered(self, item: Difference) -> Difference:
        place = item.where.removeprefix("json")
        tokens = _tokens(
            place.removesuffix(".length") if item.kind == "length" else place, self.recorded, self.live
        )
        if tokens is None:
            return item  # no place of the two bodies: a comparison never says one
        judged = self._judged_at(item, tokens)
        return self._moved(judged, tokens) if judged.tier == "breaking" else judged

    def _judged_at(self, item: Difference, tokens: list[Token]) -> Difference:
        if item.kind == "changed":
            return self._judged(item, tokens, _here)
        if item.kind == "retyped":
            judged = self._judged(item, tokens, _here)
            return judged if judged is not item else self._accepted(item, tokens)
        if item.kind == "length":  # the list's own keywords (minItems...), and the items B alone holds
            return self._judged(item, tokens, _unpaired(item.recorded))
        key = tokens[-1] if tokens else None
        if not isinstance(key, str):
            return item  # a field added or removed is a key of an object: a comparison says no other
        if item.kind == "added":  # breaking where the schema refuses it
            return self._judged(
                item,
                tokens[:-1],
                lambda rest, p: rest == "" and p.keyword == "additionalProperties" and key in (p.seen or ()),
            )
        judged = self._judged(
            item, tokens[:-1], lambda rest, p: rest == "" and p.keyword == "required" and p.seen == key
        )
        return judged if judged is not item else self._optional(item, tokens[:-1], key)

    def _judged(self, item: Difference, tokens: list[Token], wanted: Wanted) -> Difference:
        """Breaking, with its source, when the newer answer breaks the spec at or under the place
        `tokens` (the value's, a list's, or a removed or added field's object) as `wanted` picks: said
        there by the validator, or, under a `oneOf`/`anyOf` the value no longer fits, by the branch the
        recorded value took."""
        place = "body" + "".join(f".{token}" for token in tokens)
        problems = self.problems()
        hit = next((p for p in problems if _picked(wanted, p, place)), None)
        if hit is None and any(
            p.keyword in ("oneOf", "anyOf") and (place + ".").startswith(p.where + ".") for p in problems
        ):
            hit = self._first(self._at(tokens).roots, _at_value(self.live, tokens), wanted)
        return item if hit is None else self.tiers.decided(item, "breaking", hit.location)

    def _accepted(self, item: Difference, tokens: list[Token]) -> Difference:
        """A change of type the spec allows at its place (both values fit the schemas there, which say
        what types it takes: `type`, `anyOf`, `oneOf`, `nullable`...): data, its source the keyword
        that takes both. A change to or from null is data already."""
        if item.tier != "breaking":
            return item
        schemas = self._at(tokens)
        deciding = next(
            (
                (name, f"{pointer}/{keyword}")
                for name, pointer in schemas.nodes
                for keyword in TYPING
                if keyword in self.tiers.node((name, pointer))
            ),
            None,
        )
        if deciding is None:
            return item
        for value in (item.recorded, item.live):
            if any(self.tiers.problems(entry, value, 1) != [] for entry in schemas.entries):
                return item
        return self.tiers.decided(item, "data", deciding)

    def _optional(self, item: Difference, parent: list[Token], key: str) -> Difference:
        """A removed field the spec declares and no schema of its object requires: `data`."""
        nodes = self._at(parent).nodes
        declared = None
        for name, pointer in nodes:
            node = self.tiers.node((name, pointer))
            required = node.get("required")
            if isinstance(required, list) and key in required:
                return item
            properties = node.get("properties")
            if declared is None and isinstance(properties, Mapping) and key in properties:
                declared = (name, f"{pointer}/properties/{escape(key)}")
        return item if declared is None else self.tiers.decided(item, "data", declared)

    def _first(self, roots: list[Location], value: Any, wanted: Wanted) -> Problem | None:
        """The first problem at or under the value's own place that `wanted` picks, the deepest
        branch first."""
        if value is ABSENT:
            return None
        for root in reversed(roots):
            for problem in self.tiers.problems(root, value) or ():
                if _picked(wanted, problem, "body"):
                    return problem
        return None

    def _moved(self, item: Difference, tokens: list[Token]) -> Difference:
        """A breaking difference under a place that composes branches (`oneOf`/`anyOf`, with or
        without a discriminator) whose newer value took another branch and fits the schema there,
        the whole of it, as the validator says: data, its source the keyword that composes them (the
        discriminator where one picks). The nearest such place above the difference decides."""
        for depth, schemas in reversed(list(enumerate(self._path(tokens)))):
            live = _at_value(self.live, tokens[:depth])
            composing = [
                (location, keyword)
                for location in schemas.nodes
                for keyword in ("oneOf", "anyOf")
                if isinstance(self.tiers.node(location).get(keyword), list)
            ]
            if live is ABSENT or not composing:
                continue
            recorded = _at_value(self.recorded, tokens[:depth])
            moved = next(
                (
                    (location, keyword)
                    for location, keyword in composing
                    if self._taken(location, keyword, recorded) != self._taken(location, keyword, live)
                ),
                None,
            )
            fits = all(self.tiers.problems(entry, live, 1) == [] for entry in schemas.entries)
            if moved is None or not fits:
                continue
            (name, pointer), keyword = moved
            if isinstance(self.tiers.node(moved[0]).get("discriminator"), Mapping):
                keyword = "discriminator"
            return self.tiers.decided(item, "data", (name, f"{pointer}/{keyword}"))
        return item

    def _taken(self, location: Location, keyword: str, value: Any) -> frozenset[int]:
        """The branches of the `keyword` at `location` a value fits, each alone."""
        if value is ABSENT:
            return frozenset()
        name, pointer = location
        branches = self.tiers.node(location)[keyword]
        return frozenset(
            index
            for index in range(len(branches))
            if self.tiers.problems((name, f"{pointer}/{keyword}/{index}"), value, 1) == []
        )

    def _at(self, tokens: list[Token]) -> _Schemas:
        """The schemas of the place at `tokens`: its own, those to judge its value against (they and
        each branch its value takes) and every schema describing it ($refs followed, `allOf`)."""
        return self._path(tokens)[-1]

    def _path(self, tokens: list[Token]) -> list[_Schemas]:
        """The schemas of each place from the body down to `tokens` (the body's first)."""
        entries = [self.schema]
        found = []
        for depth in range(len(tokens) + 1):
            value = self._deciding(tokens[:depth])
            roots, nodes = _judging(self.tiers, entries, value)
            found.append(_Schemas(entries, roots, nodes))
            if depth < len(tokens):
                entries = _step(self.tiers, nodes, tokens[depth])
        return found

    def _deciding(self, tokens: list[Token]) -> Any:
        """The value that picks a `oneOf`/`anyOf` branch at a place: the recorded one, else the newer."""
        value = _at_value(self.recorded, tokens)
        return value if value is not ABSENT else _at_value(self.live, tokens)


class _Schemas(NamedTuple):
    """The schemas of one place: its own (`entries`), those its value is judged against (`roots`: they
    and the branches it takes) and every schema describing it (`nodes`)."""

    entries: list[Location]
    roots: list[Location]
    nodes: list[Location]


def _picked(wanted: Wanted, problem: Problem, place: str) -> bool:
    """Whether `wanted` picks a problem at or under `place` (given its place below: `""`, `.3.sku`)."""
    if problem.where == place:
        return wanted("", problem)
    return problem.where.startswith(place + ".") and wanted(problem.where[len(place) :], problem)


def _here(rest: str, problem: Problem) -> bool:
    """Any problem at the place itself."""
    return rest == ""


def _unpaired(paired: int) -> Wanted:
    """A list's problems at its own place, and under its items from index `paired` on (those the
    recorded list lacks)."""

    def wanted(rest: str, problem: Problem) -> bool:
        index = rest[1:].split(".", 1)[0]
        return rest == "" or (index.isdigit() and int(index) >= paired)

    return wanted


def _judging(tiers: SpecTiers, entries: list[Location], value: Any) -> tuple[list[Location], list[Location]]:
    """From the schemas at a place: the ones to validate its value against (the entries and each
    `oneOf`/`anyOf` branch the value takes, when it takes exactly one), and every schema that describes
    it ($refs followed, `allOf` branches, the branches taken)."""
    roots = list(entries)
    nodes: list[Location] = []
    waiting = list(entries)
    seen: set[Location] = set()
    while waiting:
        location = waiting.pop(0)
        if location in seen:
            continue
        seen.add(location)
        name, pointer = location
        node = tiers.node(location)
        if not isinstance(node, Mapping):
            continue
        ref = node.get("$ref")
        if isinstance(ref, str):
            waiting.append(ref_target(name, ref))
            if tiers.contract.specs[name].version == "3.0":
                continue  # a 3.0 `$ref`'s siblings are ignored
        nodes.append(location)
        branches = node.get("allOf")
        if isinstance(branches, list):
            waiting.extend((name, f"{pointer}/allOf/{index}") for index in range(len(branches)))
        for keyword in ("oneOf", "anyOf"):
            branches = node.get(keyword)
            if not isinstance(branches, list) or value is ABSENT:
                continue
            taken = [
                (name, f"{pointer}/{keyword}/{index}")
                for index in range(len(branches))
                if tiers.problems((name, f"{pointer}/{keyword}/{index}"), value, 1) == []
            ]
            if len(taken) == 1:
                roots.append(taken[0])
                waiting.append(taken[0])
    return roots, nodes


def _step(tiers: SpecTiers, nodes: list[Location], token: Token) -> list[Location]:
    """The schemas of a field or an item of a value these schemas describe."""
    found: list[Location] = []
    for name, pointer in nodes:
        node = tiers.node((name, pointer))
        if isinstance(token, str):
            properties = node.get("properties")
            if isinstance(properties, Mapping) and token in properties:
                found.append((name, f"{pointer}/properties/{escape(token)}"))
            elif isinstance(node.get("additionalProperties"), Mapping):
                found.append((name, f"{pointer}/additionalProperties"))
            continue
        prefix = node.get("prefixItems")
        if isinstance(prefix, list) and token < len(prefix):
            found.append((name, f"{pointer}/prefixItems/{token}"))
        elif isinstance(node.get("items"), Mapping):
            found.append((name, f"{pointer}/items"))
    return found


def _with_heads(found: list[Difference], heads: list[Difference]) -> list[Difference]:
    """The comparison's differences with the heads the spec adds, after the status and heads."""
    if not heads:
        return found
    at = next(
        (index for index, item in enumerate(found) if item.kind not in ("status", "header")), len(found)
    )
    return [*found[:at], *heads, *found[at:]]


def _json(exchange: Exchange) -> Any:
    body = exchange.response.body
    return body.value if body.kind == "json" else ABSENT


def _at_value(document: Any, tokens: list[Token]) -> Any:
    for token in tokens:
        listed = isinstance(token, int) and isinstance(document, list) and token < len(document)
        if listed or (isinstance(token, str) and isinstance(document, dict) and token in document):
            document = document[token]
        else:
            return ABSENT
    return document


def _tokens(rest: str, recorded: Any, live: Any) -> list[Token] | None:
    """A difference's dotted place (`.data[0].attributes.name`, after `json`) as keys and indexes,
    read against the two documents (a key may hold a dot); None when it is no place of theirs (a
    list's `.length`)."""
    tokens: list[Token] = []
    documents = [recorded, live]
    while rest:
        if rest.startswith("["):
            end = rest.find("]")
            if end < 0 or not rest[1:end].isdigit():
                return None
            token: Token = int(rest[1:end])
            rest = rest[end + 1 :]
        elif rest.startswith("."):
            keys = [key for document in documents if isinstance(document, dict) for key in document]
            fitting = [
                key
                for key in keys
                if rest[1:].startswith(key) and rest[1 + len(key) : 2 + len(key)] in ("", ".", "[")
            ]
            if not fitting:
                return None
            key = max(fitting, key=len)
            rest = rest[1 + len(key) :]
            token = key
        else:
            return None
        tokens.append(token)
        documents = [_at_value(document, [token]) for document in documents]
    return tokens
