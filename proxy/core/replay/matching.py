"""Which recorded request answers an incoming one: request keys, and the closest ones on a miss.

A key holds only what decides a match (method, path, query as a sorted multiset after percent-decoding,
body by meaning, and the headers a policy names with `header:NAME`), so lookup is one dict access. No
other header counts (Authorization never does unless named), nor do the query parameters and JSON body
fields a policy ignores (a client's generated id or timestamp).
"""

from __future__ import annotations

import json
import re
from collections.abc import Hashable, Iterable
from dataclasses import dataclass, replace
from itertools import islice
from typing import Any
from urllib.parse import parse_qsl, unquote

from proxy.core.model.bodies import is_form_type
from proxy.core.model.exchange import JSONValue, Request, header_value
from proxy.core.redaction.policy import name_lists
from proxy.errors import RuleFileError, SettingError

MATCH_FIELDS = ("method", "path", "query", "body")
RequestKey = tuple[Hashable, ...]
JSONPath = tuple[str, ...]
ABSENT = "(absent)"
MATCH_SETTINGS = ("ignore_json", "ignore_query")  # the config's `match` table
HEADER_PREFIX = "header:"  # `header:If-None-Match` in a match_on list: that header's value decides too
HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")  # an HTTP token (RFC 9110, 5.1)


@dataclass(frozen=True, slots=True)
class MatchPolicy:
    """What a match compares (like vcrpy's `match_on`), and the query parameters and JSON body paths
    it ignores. A path is dotted keys (`data.meta.request_id`); lists are passed through, so it names
    the field in every item, as the redaction's JSON paths do."""

    on: frozenset[str] = frozenset(MATCH_FIELDS)
    ignore_query: frozenset[str] = frozenset()
    ignore_json: frozenset[JSONPath] = frozenset()
    headers: tuple[str, ...] = ()  # header names that decide too, as written (compared lower-case)

    @classmethod
    def parse(
        cls,
        match_on: str | None,
        ignore_query: Iterable[str] = (),
        ignore_json: Iterable[str] = (),
    ) -> MatchPolicy:
        """Build from `method,path,header:If-None-Match` style text. The fields it names replace the
        default (as vcrpy's match_on does), but a `header:NAME` entry only adds to the fields in force:
        `header:If-None-Match` alone is the four fields and that header, never a match on the header
        alone (which would answer any request with any recording). Unknown fields, nameless headers and
        malformed JSON paths are a `SettingError` of `match_on` or `match_ignore_json`."""
        fields = frozenset(MATCH_FIELDS)
        headers: tuple[str, ...] = ()
        if match_on:
            parts = [part.strip() for part in match_on.split(",") if part.strip()]
            named = [part for part in parts if part[: len(HEADER_PREFIX)].lower() == HEADER_PREFIX]
            headers = _header_names(named)
            fields = frozenset(parts) - set(named) or fields
            unknown = sorted(fields - set(MATCH_FIELDS))
            if unknown:
                raise SettingError(
                    "match_on",
                    f"unknown field {unknown[0]!r}; expected some of {', '.join(MATCH_FIELDS)} "
                    "or header:NAME",
                )
        paths = frozenset(_ignored_json_path(written) for written in ignore_json)
        return cls(on=fields, ignore_query=frozenset(ignore_query), ignore_json=paths, headers=headers)

    def joined(self, other: MatchPolicy) -> MatchPolicy:
        """This policy ignoring what `other` ignores too (the config's `match` table plus the flags)."""
        return replace(
            self,
            ignore_query=self.ignore_query | other.ignore_query,
            ignore_json=self.ignore_json | other.ignore_json,
        )


def _header_names(written: list[str]) -> tuple[str, ...]:
    """The names of `header:NAME` entries, each once whatever its case; a nameless one is refused."""
    names: dict[str, str] = {}
    for part in written:
        name = part[len(HEADER_PREFIX) :].strip()
        if not HEADER_NAME.fullmatch(name):
            raise SettingError(
                "match_on", f"{part!r} names no header; write header:NAME, e.g. header:If-None-Match"
            )
        names.setdefault(name.lower(), name)
    return tuple(names.values())


def json_path(written: str) -> JSONPath | None:
    """`data.meta.request_id` as its keys; None when a key anywhere is empty (see `NOT_A_PATH`)."""
    keys = tuple(written.split(".")) if isinstance(written, str) else ()
    return keys if keys and all(keys) else None


NOT_A_PATH = "{!r} is not a dotted JSON path, e.g. data.meta.request_id"


def _ignored_json_path(written: str) -> JSONPath:
    keys = json_path(written)
    if keys is None:
        raise SettingError("match_ignore_json", NOT_A_PATH.format(written))
    return keys


def configured_matching(document: Any, source: str) -> MatchPolicy:
    """The project config's `match` table: `ignore_json` and `ignore_query`, lists of paths and names."""
    if document is None:
        return MatchPolicy()
    lists = name_lists(document, "match", MATCH_SETTINGS, source)
    paths = set()
    for written in lists["ignore_json"]:
        keys = json_path(written)
        if keys is None:
            raise RuleFileError(f"{source}: match.ignore_json: {NOT_A_PATH.format(written)}")
        paths.add(keys)
    return MatchPolicy(ignore_query=frozenset(lists["ignore_query"]), ignore_json=frozenset(paths))


@dataclass(frozen=True, slots=True)
class Difference:
    """One way a recorded request differs from the incoming one."""

    where: str
    expected: str
    found: str


MAX_FORM_PAIRS = 10_000  # form fields compared as pairs; a request's work stays bounded past that


def query_pairs(query: str, ignore: frozenset[str] = frozenset()) -> tuple[tuple[str, str], ...]:
    """The query as a sorted multiset of percent-decoded (name, value) pairs."""
    pairs = parse_qsl(query, keep_blank_values=True)
    return tuple(sorted((name, value) for name, value in pairs if name not in ignore))


def body_meaning(request: Request, ignore_json: frozenset[JSONPath] = frozenset()) -> Hashable:
    """The body reduced to its meaning: JSON regardless of key order and spacing and without the
    ignored paths, forms as pairs."""
    body = request.body
    if body.kind == "json":
        value = without_paths(body.value, ignore_json) if ignore_json else body.value
        return ("json", json.dumps(value, sort_keys=True, separators=(",", ":")))
    if body.kind == "text" and is_form_type(header_value(request.headers, "Content-Type")):
        text = str(body.value)
        if text.count("&") < MAX_FORM_PAIRS:  # counted in C; a bigger form is matched as its text
            return ("form", query_pairs(text))
    if body.kind == "empty":
        return ("empty",)
    return (body.kind, body.value)


def without_paths(value: JSONValue, paths: frozenset[JSONPath], at: JSONPath = ()) -> JSONValue:
    """The document without the fields at these paths (lists passed through)."""
    if isinstance(value, dict):
        kept: dict[str, JSONValue] = {}
        for key, child in value.items():
            here = (*at, key)
            if here not in paths:
                kept[key] = without_paths(child, paths, here)
        return kept
    if isinstance(value, list):
        return [without_paths(item, paths, at) for item in value]
    return value


def header_meaning(request: Request, name: str) -> str | None:
    """A header's value as a match compares it: every occurrence, in order, joined as HTTP joins them
    (the name without regard to case); None when the request has no such header, which is not ""."""
    wanted = name.lower()
    values = [value.strip() for key, value in request.headers if key.lower() == wanted]
    return ", ".join(values) if values else None


def _header_differences(recorded: Request, incoming: Request, policy: MatchPolicy) -> list[Difference]:
    found = []
    for name in policy.headers:
        expected, sent = header_meaning(recorded, name), header_meaning(incoming, name)
        if expected != sent:
            found.append(Difference(f"header.{name}", _shown(expected), _shown(sent)))
    return found


def _shown(value: str | None) -> str:
    return ABSENT if value is None else repr(value) if value == "" else value


def request_key(request: Request, policy: MatchPolicy) -> RequestKey:
    """Reduce a request to the parts that decide which recording answers it."""
    parts: list[Hashable] = [header_meaning(request, name) for name in policy.headers]
    if "method" in policy.on:
        parts.append(request.method.upper())
    if "path" in policy.on:
        parts.append(unquote(request.path))
    if "query" in policy.on:
        parts.append(query_pairs(request.query, policy.ignore_query))
    if "body" in policy.on:
        parts.append(body_meaning(request, policy.ignore_json))
    return tuple(parts)


def differences(recorded: Request, incoming: Request, policy: MatchPolicy) -> list[Difference]:
    """Every difference that matters under the policy, in a stable order: method, path, query, body,
    then the named headers."""
    found: list[Difference] = []
    if "method" in policy.on and recorded.method.upper() != incoming.method.upper():
        found.append(Difference("method", recorded.method, incoming.method))
    if "path" in policy.on and unquote(recorded.path) != unquote(incoming.path):
        found.append(Difference("path", recorded.path, incoming.path))
    if "query" in policy.on:
        found.extend(_query_differences(recorded.query, incoming.query, policy.ignore_query))
    if "body" in policy.on and body_meaning(recorded, policy.ignore_json) != body_meaning(
        incoming, policy.ignore_json
    ):
        found.extend(_body_differences(recorded, incoming, policy.ignore_json))
    found.extend(_header_differences(recorded, incoming, policy))
    return found


EXPLAIN_BUDGET = 100_000  # query parameters and body leaves one miss's explanation may compare, in all
NAMED_PER_RECORDING = 50  # query differences named for one near miss; the rest are counted


@dataclass(frozen=True, slots=True)
class Compared:
    """How one recording differs from the request: the differences named, and how many more there are."""

    differences: list[Difference]
    unnamed: int = 0

    @property
    def distance(self) -> int:
        return closeness(self.differences) + self.unnamed


class Explainer:
    """How recordings differ from one unmatched request, within a budget of work.

    `differences` compares each recording with the request anew; explaining a miss that way costs
    recordings times parameters (a 6,000-parameter query against 3,000 recordings held the event loop
    53 s). Here the request is reduced once, every comparison is charged what it compares, and a
    comparison that would overspend `budget` is not made: `compare` gives None, the scan stops. At most
    NAMED_PER_RECORDING query differences are named; the rest are only counted.
    """

    def __init__(self, incoming: Request, policy: MatchPolicy, budget: int = EXPLAIN_BUDGET) -> None:
        self.incoming = incoming
        self.policy = policy
        self.budget = budget
        self.spent = 0
        asked = query_pairs(incoming.query, policy.ignore_query) if "query" in policy.on else ()
        self._query = _grouped(asked)
        self._body: Hashable | None = None
        self._leaves: dict[str, str] | None = None

    def compare(self, recorded: Request, bodies: bool) -> Compared | None:
        """What differs (bodies too when `bodies`), or None when the budget cannot pay for it."""
        policy = self.policy
        cost = 1 + (len(self._query) + recorded.query.count("&") + 1 if "query" in policy.on else 0)
        cost += len(policy.headers) * (len(recorded.headers) + len(self.incoming.headers))
        # Scanning for the nearest may spend half the budget; naming their differences gets the rest.
        if self.spent + cost > (self.budget if bodies else self.budget // 2):
            return None
        self.spent += cost
        found: list[Difference] = []
        unnamed = 0
        incoming = self.incoming
        if "method" in policy.on and recorded.method.upper() != incoming.method.upper():
            found.append(Difference("method", recorded.method, incoming.method))
        if "path" in policy.on and unquote(recorded.path) != unquote(incoming.path):
            found.append(Difference("path", recorded.path, incoming.path))
        if "query" in policy.on:
            expected = _grouped(query_pairs(recorded.query, policy.ignore_query))
            names = {name for name, _ in expected.items() ^ self._query.items()}
            named = sorted(names)[:NAMED_PER_RECORDING] if bodies else []
            unnamed = len(names) - len(named)
            found.extend(
                Difference(f"query.{name}", expected.get(name, ABSENT), self._query.get(name, ABSENT))
                for name in named
            )
        body_cost = 2 * MAX_LEAVES
        if bodies and "body" in policy.on and self.spent + body_cost <= self.budget:
            self.spent += body_cost
            found.extend(self._body_differences(recorded))
        found.extend(_header_differences(recorded, incoming, policy))
        return Compared(found, unnamed)

    def _body_differences(self, recorded: Request) -> list[Difference]:
        """The body's differences, the request's side reduced once (its meaning, its first leaves)."""
        ignore = self.policy.ignore_json
        if self._body is None:
            self._body = body_meaning(self.incoming, ignore)
        if body_meaning(recorded, ignore) == self._body:
            return []
        if recorded.body.kind != "json" or self.incoming.body.kind != "json":
            return _body_differences(recorded, self.incoming, ignore)
        if self._leaves is None:
            self._leaves = dict(
                islice(_leaves(without_paths(self.incoming.body.value, ignore), "body"), MAX_LEAVES)
            )
        expected = dict(islice(_leaves(without_paths(recorded.body.value, ignore), "body"), MAX_LEAVES))
        found = self._leaves
        return [
            Difference(where, expected.get(where, ABSENT), found.get(where, ABSENT))
            for where in sorted(expected.keys() | found.keys())
            if expected.get(where) != found.get(where)
        ]


def _grouped(pairs: Iterable[tuple[str, str]]) -> dict[str, str]:
    grouped: dict[str, list[str]] = {}
    for name, value in pairs:
        grouped.setdefault(name, []).append(value)
    return {name: ",".join(values) for name, values in grouped.items()}


def _query_differences(recorded: str, incoming: str, ignore: frozenset[str]) -> list[Difference]:
    expected = _grouped(query_pairs(recorded, ignore))
    found = _grouped(query_pairs(incoming, ignore))
    return [
        Difference(f"query.{name}", expected.get(name, ABSENT), found.get(name, ABSENT))
        for name in sorted(expected.keys() | found.keys())
        if expected.get(name) != found.get(name)
    ]


def _body_differences(
    recorded: Request, incoming: Request, ignore_json: frozenset[JSONPath]
) -> list[Difference]:
    if recorded.body.kind == "json" and incoming.body.kind == "json":
        expected = dict(islice(_leaves(without_paths(recorded.body.value, ignore_json), "body"), MAX_LEAVES))
        found = dict(islice(_leaves(without_paths(incoming.body.value, ignore_json), "body"), MAX_LEAVES))
        return [
            Difference(where, expected.get(where, ABSENT), found.get(where, ABSENT))
            for where in sorted(expected.keys() | found.keys())
            if expected.get(where) != found.get(where)
        ]
    recorded_meaning, incoming_meaning = body_meaning(recorded), body_meaning(incoming)
    if (
        isinstance(recorded_meaning, tuple)
        and isinstance(incoming_meaning, tuple)
        and recorded_meaning[0] == incoming_meaning[0] == "form"
    ):
        expected = _grouped(recorded_meaning[1])
        found = _grouped(incoming_meaning[1])
        return [
            Difference(f"body.{name}", expected.get(name, ABSENT), found.get(name, ABSENT))
            for name in sorted(expected.keys() | found.keys())
            if expected.get(name) != found.get(name)
        ]
    return [Difference("body", _short(recorded.body.value), _short(incoming.body.value))]


MAX_LEAVES = 2000  # of a body, compared to explain a miss: the first differences are what helps


def _leaves(value: JSONValue, where: str) -> Iterable[tuple[str, str]]:
    if isinstance(value, dict) and value:
        for key, child in value.items():
            yield from _leaves(child, f"{where}.{key}")
    elif isinstance(value, list) and value:
        for position, item in enumerate(value):
            yield from _leaves(item, f"{where}[{position}]")
    else:
        yield where, json.dumps(value, ensure_ascii=False)


def _short(value: JSONValue, limit: int = 80) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = "(empty)" if value is None else text
    return text if len(text) <= limit else text[: limit - 3] + "..."


# A near miss is ranked by meaning: another path is another resource, farther than the same path with
# another method (another operation on it), which is farther than any number of parameters, headers or
# body leaves (each 1; fewer than METHOD_WEIGHT fit in a miss's budget). Ties keep recording order.
METHOD_WEIGHT = 10 * (EXPLAIN_BUDGET + MAX_LEAVES)
PATH_WEIGHT = 10 * METHOD_WEIGHT


def closeness(found: list[Difference]) -> int:
    """A distance for ranking near misses: the path first, then the method, then the rest counted."""
    weights = {"method": METHOD_WEIGHT, "path": PATH_WEIGHT}
    return sum(weights.get(difference.where, 1) for difference in found)
