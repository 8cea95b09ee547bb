"""The shape of a request path: how the not-judged summary and the per-endpoint tables name a path no
endpoint group covers, bounded and with no value from traffic in it.

Two lines of defence. `path_shape` takes the routed spelling (`routed_path`: `//V2/settings/` is
`/v2/settings`), names by its parameter each segment where a documented pattern has one
(`/v2/extensions/reviews` is `/v2/extensions/{custom_api_slug}`), and makes `{id}` of every other
segment that is not a word the API's paths use (lower-case letters, perhaps joined by underscores, or
a version `v2`): a number, a UUID, a slug (`shirt-aa`, `Blue_Shirt`), a token. Then `Folding` watches
the names as they come: once one parent path has more than a few distinct literal children
(`/v2/products/shirt`, `/v2/products/trousers`...), they are ids too and fold into
`/v2/products/{id}`. Its memory is bounded. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import TypeVar

from proxy.core.rules.endpoints import EndpointIndex, routed_path

ID = "{id}"
LONGEST_WORD = 40
WORD = re.compile(r"[a-z]+(?:_[a-z]+)*|v[0-9]{1,3}")  # `products`, `access_token`, `v2`
FEW = 8  # distinct literal children of a parent path before they fold into {id}
RESOURCES = 32  # the same under the root and a version prefix, whose children are the API's resources
TRACKED = 4096  # parent paths watched at most: a live proxy sees unboundedly many
VERSION_PARENT = re.compile(r"/v[0-9]{1,3}")
C = TypeVar("C")


def is_word(segment: str) -> bool:
    """Whether a path segment is a word of the API's paths, kept in a shape (else it is an id)."""
    return len(segment) <= LONGEST_WORD and WORD.fullmatch(segment) is not None


def path_shape(method: str, path: str, index: EndpointIndex | None = None) -> str:
    """`METHOD /path/{id}`: the routed path with each segment that is not a word made `{id}`, and each
    segment where a documented pattern of `index` has a parameter (its literal segments before it
    matching) named by it: `GET /v2/extensions/reviews` is `GET /v2/extensions/{custom_api_slug}`, as
    `/v2/extensions/{custom_api_slug}/{custom_api_entry_id}` is documented. No value seen in traffic
    is kept but the words of its path."""
    segments = routed_path(path).split("/")
    named = index.parameters_at(segments) if index is not None else {}
    return f"{method} " + "/".join(
        named.get(position) or (segment if not segment or is_word(segment) else ID)
        for position, segment in enumerate(segments)
    )


def endpoint_label(index: EndpointIndex, method: str, path: str) -> str:
    """How the per-endpoint tables name a request: its endpoint's pattern with the parameters named
    (`index.label`) when an endpoint group covers it, else its path shape."""
    if index.lookup(method, path).groups:
        return index.label(method, path)
    return path_shape(method, path, index)


class Folding:
    """Which parent paths have gathered more than a few distinct literal children, learnt from the
    names (`METHOD /path`) given to `fold`; a name that is not a path is left as it is."""

    def __init__(self, few: int = FEW, resources: int = RESOURCES, tracked: int = TRACKED) -> None:
        self.few = few
        self.resources = resources
        self.tracked = tracked
        self.children: dict[str, set[str]] = {}  # parent path: its literal children seen (few at most)
        self.folded: set[str] = set()  # parent paths whose children are ids

    def fold(self, name: str) -> tuple[str, bool]:
        """The name with the children of folded parents made `{id}`, once its literal segments are
        counted; and whether counting it folded a parent (names given before may fold now: `refold`)."""
        return self._walk(name, learn=True)

    def refold(self, name: str) -> str:
        """The name with the children of folded parents made `{id}`, learning nothing."""
        return self._walk(name, learn=False)[0]

    def _walk(self, name: str, learn: bool) -> tuple[str, bool]:
        method, _, path = name.partition(" ")
        if not path.startswith("/") or " " in path:
            return name, False
        segments = path.split("/")
        changed = False
        for position in range(1, len(segments)):
            segment = segments[position]
            if not is_word(segment):
                continue
            parent = "/".join(segments[:position])
            if parent in self.folded:
                segments[position] = ID
            elif learn:
                changed = self._learn(parent, segment) or changed
                if changed and parent in self.folded:
                    segments[position] = ID
        return f"{method} {'/'.join(segments)}", changed

    def _learn(self, parent: str, child: str) -> bool:
        seen = self.children.get(parent)
        if seen is None:
            if len(self.children) + len(self.folded) >= self.tracked:
                return False
            seen = self.children[parent] = set()
        seen.add(child)
        limit = self.resources if not parent or VERSION_PARENT.fullmatch(parent) else self.few
        if len(seen) <= limit:
            return False
        del self.children[parent]
        self.folded.add(parent)
        return True


def folded_counts(counts: Mapping[str, C], add: Callable[[C, C], C]) -> dict[str, C]:
    """Counts by name with the names folded (see `Folding`), those that fold alike added together."""
    folding = Folding()
    for name in sorted(counts):
        folding.fold(name)
    together: dict[str, C] = {}
    for name, count in counts.items():
        key = folding.refold(name)
        together[key] = add(together[key], count) if key in together else count
    return together


def folded_names(names: Iterable[str]) -> Callable[[str], str]:
    """The name each of these names folds to (see `Folding`), as a function."""
    folding = Folding()
    for name in sorted(set(names)):
        folding.fold(name)
    return folding.refold
