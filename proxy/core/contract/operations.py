"""The operations of the specs, and which one a request is: by method and path template. No I/O.

A template's path is its spec's `servers` base path (`/v2` on the subscriptions spec, none on most;
its `{variables}` replaced by their default, and by each value of their `enum`) followed by the path
as written; both it and the request are compared in the spelling the service
routes alike (`routed_path`: a trailing slash, doubled slashes and the case of `/v2` do not matter).
A path parameter matches one segment, of the type its spec says (an `integer` parameter never matches
a word); among the templates that match, literal segments win over parameters, leftmost first
(`/v2/carts/items` before `/v2/carts/{cartID}`).

Several specs may know the same operation (shopper.yaml repeats cart_checkout.yaml's): `find_all` gives
every one of them, in a fixed order (by spec file, then place) that does not depend on the order the
specs were named.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any
from urllib.parse import urlsplit

from proxy.core.contract.documents import Spec, follow, pointer_of
from proxy.core.contract.structure import METHODS
from proxy.core.rules.endpoints import routed_path
from proxy.core.rules.segment_trie import SegmentTrie

_PARAMETER = re.compile(r"\{([^{}]+)\}")
MAX_SERVER_URLS = 64  # the combinations of server variable values a server is read as, at most
_TYPED = {
    "integer": r"[-+]?[0-9]+",
    "number": r"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?",
    "boolean": r"true|false",
}


@dataclass(frozen=True, slots=True)
class Operation:
    """One operation of a spec: its file, the JSON pointer of its operation object, its method and
    template (base path included), and its operation object."""

    spec: str
    pointer: str
    method: str
    template: str
    node: Mapping[str, Any]

    def __str__(self) -> str:
        return f"{self.method} {self.template}"


@dataclass(frozen=True, slots=True)
class _Template:
    operation: Operation
    pattern: re.Pattern[str]
    rank: tuple[int, ...]  # per segment, 0 literal, 1 parameter: the smallest wins


class OperationIndex:
    """Every operation of some specs, found by a request's method and path."""

    def __init__(self, specs: Iterable[Spec]) -> None:
        self._by_method: dict[str, list[_Template]] = {}
        every = {spec.name: spec for spec in specs}
        for spec in every.values():
            if not spec.entry:
                continue  # a file only a `$ref` reaches has no paths of its own
            for template in _templates(spec, every):
                self._by_method.setdefault(template.operation.method, []).append(template)
        for templates in self._by_method.values():
            templates.sort(key=lambda template: template.rank)
        # A request is tried only against the templates its literal segments allow (a spec of 600
        # operations, every one tried, cost about 100 us a request whose path the cache had not seen).
        self._tries = {
            method: SegmentTrie(
                [
                    [
                        None if rank else segment
                        for segment, rank in zip(_segments(one), one.rank, strict=True)
                    ]
                    for one in templates
                ]
            )
            for method, templates in self._by_method.items()
        }
        self.find_all = lru_cache(maxsize=4096)(self._find_all)

    def __len__(self) -> int:
        return sum(len(templates) for templates in self._by_method.values())

    def operations(self) -> list[Operation]:
        """Every operation, once per template (an operation under several base paths is several)."""
        return [template.operation for templates in self._by_method.values() for template in templates]

    def find(self, method: str, path: str) -> Operation | None:
        """The operation this request is (the first in the fixed order), or None when no spec knows it."""
        found = self.find_all(method, path)
        return found[0] if found else None

    def _find_all(self, method: str, path: str) -> tuple[Operation, ...]:
        """Every spec's operation this request is (the most specific template, as written in each spec
        that knows it), by spec file and place; empty when no spec knows it."""
        routed = routed_path(path)
        best: tuple[int, ...] | None = None
        found: dict[tuple[str, str], Operation] = {}
        method = method.upper()
        trie = self._tries.get(method)
        positions = trie.candidates(routed) if trie is not None else []
        for template in (self._by_method[method][position] for position in positions):
            if best is not None and template.rank != best:
                break  # sorted by rank: the rest are less specific
            if template.pattern.fullmatch(routed) is not None:
                best = template.rank
                operation = template.operation
                found.setdefault((operation.spec, operation.pointer), operation)
        return tuple(found[key] for key in sorted(found))


def _segments(template: _Template) -> list[str]:
    return template.operation.template.split("/")[1:]


def _base_paths(spec: Spec) -> list[str]:
    """The path part of each of the spec's servers, once each (`` when it has none), its variables
    replaced by their values (`server_urls`)."""
    servers = spec.document.get("servers")
    bases = []
    for server in servers if isinstance(servers, list) else []:
        for url in server_urls(server):
            bases.append(urlsplit(url).path.rstrip("/"))
    return list(dict.fromkeys(bases)) or [""]


def server_urls(server: Any) -> list[str]:
    """A Server Object's URL with each `{variable}` replaced by its `default` (OpenAPI: "the value to
    use"), and by each value of its `enum`, up to `MAX_SERVER_URLS` combinations; a variable the server
    does not define stays as written. Empty for a server with no URL."""
    url = server.get("url") if isinstance(server, Mapping) else None
    if not isinstance(url, str):
        return []
    declared = server.get("variables")
    declared = declared if isinstance(declared, Mapping) else {}
    names = list(dict.fromkeys(_PARAMETER.findall(url)))
    choices = [_values(declared.get(name), name) for name in names]
    urls: list[str] = []
    for values in itertools.islice(itertools.product(*choices), MAX_SERVER_URLS):
        urls.append(_substituted(url, dict(zip(names, values, strict=True))))
    return list(dict.fromkeys(urls))


def _values(variable: Any, name: str) -> list[str]:
    """A server variable's default first, then its enum's other values; `{name}` when it has neither."""
    given = variable if isinstance(variable, Mapping) else {}
    enum = given.get("enum")
    written = [given.get("default"), *(enum if isinstance(enum, list) else [])]
    values = [str(value) for value in written if isinstance(value, (str, int, float))]
    return list(dict.fromkeys(values)) or ["{" + name + "}"]


def _substituted(url: str, values: Mapping[str, str]) -> str:
    def value(match: re.Match[str]) -> str:
        return values[match[1]]

    return _PARAMETER.sub(value, url)


def _templates(spec: Spec, specs: Mapping[str, Spec]) -> Iterable[_Template]:
    """Each operation of the spec's paths, with its path item's `$ref` followed (in this file or
    another: the operation's file and pointer are then the ones the `$ref` leads to)."""

    def document_of(name: str) -> Mapping[str, Any]:
        return specs[name].document

    paths = spec.document.get("paths") or {}
    for written, item in paths.items():
        name, item_at, item = follow(document_of, spec.name, pointer_of("paths", str(written)), item)
        if not isinstance(item, Mapping):
            continue  # refused when loaded (`check_structure`)
        shared = item.get("parameters") or []
        for method in METHODS:
            node = item.get(method)
            if not isinstance(node, Mapping):
                continue
            types = _path_types(document_of, name, [*shared, *(node.get("parameters") or [])])
            for base in _base_paths(spec):
                template = routed_path(base + str(written))
                operation = Operation(name, f"{item_at}/{method}", method.upper(), template, node)
                pattern, rank = _compiled(template, types)
                yield _Template(operation, pattern, rank)


def _path_types(document_of: Callable[[str], Any], name: str, parameters: list[Any]) -> dict[str, str]:
    """Each path parameter's schema type (`string` when unsaid), looking through `$ref`s."""
    types: dict[str, str] = {}
    for parameter in parameters:
        _, _, parameter = follow(document_of, name, "", parameter)
        if not isinstance(parameter, Mapping) or parameter.get("in") != "path":
            continue
        schema = parameter.get("schema")
        kind = schema.get("type") if isinstance(schema, Mapping) else None
        types[str(parameter.get("name"))] = kind if isinstance(kind, str) else "string"
    return types


def _compiled(template: str, types: Mapping[str, str]) -> tuple[re.Pattern[str], tuple[int, ...]]:
    parts, rank = [], []
    for segment in template.split("/")[1:]:
        pieces, start = [], 0
        for match in _PARAMETER.finditer(segment):
            pieces.append(re.escape(segment[start : match.start()]))
            pieces.append(f"(?:{_TYPED.get(types.get(match[1], 'string'), '[^/]+')})")
            start = match.end()
        pieces.append(re.escape(segment[start:]))
        parts.append("".join(pieces))
        rank.append(1 if start else 0)
    return re.compile("/" + "/".join(parts)), tuple(rank)
