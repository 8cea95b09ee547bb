"""Endpoint patterns ("GET /v2/extensions/{slug}/{id}") and the lookup that finds which ones a request hits.

Rules name the endpoints they apply to by group; the project config names endpoints by pattern too.
Every path is matched in its routed spelling (`routed_path`), so every spelling the service answers as
one operation is judged as that operation.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from proxy.core.rules.segment_trie import SegmentTrie

METHODS = frozenset({"GET", "PUT", "POST", "PATCH", "DELETE", "HEAD", "OPTIONS", "*"})
PARAMETER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
SLASHES = re.compile(r"//+")
# RFC 3986 unreserved: ALPHA / DIGIT / "-" / "." / "_" / "~"; "/" and every other octet stay encoded
ENCODED_UNRESERVED = re.compile(
    r"%(4[1-9A-Fa-f]|5[0-9Aa]|6[1-9A-Fa-f]|7[0-9Aa]|3[0-9]|2[Dd]|2[Ee]|5[Ff]|7[Ee])"
)
VERSION = re.compile(r"/[vV][0-9]+(?=/|$)")  # the version prefix, `/v2`


def routed_path(path: str) -> str:
    """The one spelling of a request path that stands for every spelling the service routes alike: the
    query dropped, unreserved characters percent-encoded decoded (RFC 3986 6.2.2.2: `%2D` is `-`), runs of
    slashes made one, dot segments removed (`/v2/./accounts`), no trailing slash, the version prefix in
    lower case
    (`//V2/accounts/?page[limit]=25` is `/v2/accounts`). Every match of a path against an operation goes
    through it, so a request gets the same endpoint groups and path parameters whichever way it is spelled.
    """
    path = path.partition("?")[0]
    if "%" in path:
        path = ENCODED_UNRESERVED.sub(lambda match: chr(int(match[1], 16)), path)
    if "//" in path:
        path = SLASHES.sub("/", path)
    if "/." in path:
        path = _without_dot_segments(path)
    if path.endswith("/"):
        path = path[:-1]
    if not path.startswith("/"):
        path = "/" + path
    if path[1:2] == "V" and (version := VERSION.match(path)) is not None:
        path = version[0].lower() + path[version.end() :]
    return path


def _without_dot_segments(path: str) -> str:
    """RFC 3986 5.2.4 on a path of single slashes: `.` segments go, `..` takes the one before with it."""
    kept: list[str] = []
    parts = path.split("/")
    for part in parts[1:]:
        if part == "..":
            if kept:
                kept.pop()
        elif part != ".":
            kept.append(part)
    trailing = "/" if parts[-1] in (".", "..") else ""
    return "/" + "/".join(kept) + trailing


@dataclass(frozen=True, slots=True)
class EndpointPattern:
    """A method (or `*`) and a path template whose `{name}` parts match one path segment each."""

    method: str
    template: str
    regex: re.Pattern[str] = field(compare=False, repr=False)

    @classmethod
    def parse(cls, text: str) -> EndpointPattern:
        """Read "METHOD /path/{param}"; raises ValueError with what is wrong."""
        method, _, template = text.strip().partition(" ")
        method = method.upper()
        template = template.strip()
        if method not in METHODS:
            raise ValueError(f"expected 'METHOD /path' with METHOD one of {', '.join(sorted(METHODS))}")
        if not template.startswith("/") or " " in template:
            raise ValueError(f"expected a path starting with '/' after the method, found {template!r}")
        if "?" in template:
            raise ValueError(f"expected a path without a query, found {template!r}")
        template = routed_path(template)
        pieces = []
        position = 0
        for match in PARAMETER.finditer(template):
            pieces.append(re.escape(template[position : match.start()]))
            pieces.append(f"(?P<{match[1]}>[^/]+)")
            position = match.end()
        pieces.append(re.escape(template[position:]))
        try:
            regex = re.compile("".join(pieces))
        except re.error as error:  # the same {name} twice
            raise ValueError(f"path template {template!r}: {error}") from None
        return cls(method, template, regex)

    def match(self, method: str, path: str) -> dict[str, str] | None:
        """The path parameters when this pattern covers the request (in any spelling), else None."""
        if self.method != "*" and self.method != method:
            return None
        return self.match_routed(method, routed_path(path))

    def match_routed(self, method: str, routed: str) -> dict[str, str] | None:
        """`match` of a path already in its routed spelling (routed once for every pattern tried)."""
        if self.method != "*" and self.method != method:
            return None
        found = self.regex.fullmatch(routed)
        return None if found is None else found.groupdict()

    def __str__(self) -> str:
        return f"{self.method} {self.template}"


@dataclass(frozen=True, slots=True)
class EndpointHit:
    """The endpoint groups a request belongs to and the path parameters they captured."""

    groups: frozenset[str]
    params: dict[str, str]
    documented: bool


class EndpointIndex:
    """Finds the groups of a (method, path); results are memoised, since a session repeats paths."""

    def __init__(self, groups: Iterable[tuple[str, tuple[EndpointPattern, ...], bool]]) -> None:
        self.groups = [(name, patterns, documented) for name, patterns, documented in groups]
        self._memo: dict[tuple[str, str], EndpointHit] = {}
        places = itertools.count()  # each pattern by its place among them all
        self._numbered = [[(next(places), pattern) for pattern in patterns] for _, patterns, _ in self.groups]
        self._trie = SegmentTrie(
            [None if PARAMETER.search(part) else part for part in pattern.template.split("/")[1:]]
            for numbered in self._numbered
            for _, pattern in numbered
        )
        # The documented templates' segments, each a literal or a parameter's name as `{name}`.
        self._documented = tuple(
            dict.fromkeys(
                tuple(pattern.template.split("/"))
                for _, patterns, documented in self.groups
                if documented
                for pattern in patterns
            )
        )

    def parameters_at(self, segments: list[str]) -> dict[int, str]:
        """`{name}` at each position of a routed path's segments where a documented template has a
        parameter and every literal segment before it matches, of any method and however long the path:
        `/v2/extensions/reviews/x/y` has `{custom_api_slug}` at 3 and `{custom_api_entry_id}` at 4."""
        named: dict[int, str] = {}
        for template in self._documented:
            for position in range(1, min(len(template), len(segments))):
                part = template[position]
                if PARAMETER.fullmatch(part):
                    named.setdefault(position, part)
                elif part != segments[position]:
                    break
        return named

    def lookup(self, method: str, path: str) -> EndpointHit:
        """Every group whose patterns cover the request."""
        key = (method, path)
        hit = self._memo.get(key)
        if hit is None:
            hit = self._lookup(method, path)
            if len(self._memo) > 50_000:  # bounded: a live proxy sees unboundedly many entry paths
                self._memo.clear()
            self._memo[key] = hit
        return hit

    def label(self, method: str, path: str) -> str:
        """`METHOD /path/{param}`: the request's routed path with the values its endpoint captured named."""
        names = {value: name for name, value in self.lookup(method, path).params.items()}
        return f"{method} " + "/".join(
            f"{{{names[part]}}}" if part in names else part for part in routed_path(path).split("/")
        )

    def _lookup(self, method: str, path: str) -> EndpointHit:
        # Each pattern's `match` of the routed path, with the path spelled once for all of them (routing
        # a routed path again is not always a no-op: `.` is `/.`, then `/`).
        path = routed_path(routed_path(path))
        possible = set(self._trie.candidates(path))  # no other pattern can match it
        names = set()
        params: dict[str, str] = {}
        documented = False
        for (name, _, is_documented), patterns in zip(self.groups, self._numbered, strict=True):
            for place, pattern in patterns:
                if place not in possible:
                    continue
                captured = pattern.match_routed(method, path)
                if captured is not None:
                    names.add(name)
                    params.update(captured)
                    documented = documented or is_documented
                    break
        return EndpointHit(frozenset(names), params, documented)
