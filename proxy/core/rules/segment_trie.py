"""Which of many path templates a routed path can match at all, found by walking its segments once
rather than by trying every template's pattern (the endpoint index of the rules, the operations of
the published specs: a path the caches had not seen tried every one).

A template is its segments, each a literal or None (a segment holding a parameter, which matches any
one segment). Every pattern built from such a template matches only paths of as many segments, each
literal segment only itself: so the templates this gives are the only ones worth trying. Pure.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence


class _Node:
    __slots__ = ("ends", "literal", "wild")

    def __init__(self) -> None:
        self.literal: dict[str, _Node] = {}
        self.wild: _Node | None = None
        self.ends: list[int] = []


class SegmentTrie:
    """Templates by their segments; `candidates` gives the positions (in the order the templates were
    given) of those a path may match."""

    def __init__(self, templates: Iterable[Sequence[str | None]]) -> None:
        self._root = _Node()
        for position, segments in enumerate(templates):
            node = self._root
            for segment in segments:
                if segment is None:
                    node.wild = node.wild or _Node()
                    node = node.wild
                else:
                    node = node.literal.setdefault(segment, _Node())
            node.ends.append(position)

    def candidates(self, routed: str) -> list[int]:
        """The positions, in order, of the templates with as many segments as `routed` whose every
        literal segment is the path's own there."""
        frontier = [self._root]
        for segment in routed.split("/")[1:]:
            following = []
            for node in frontier:
                if (child := node.literal.get(segment)) is not None:
                    following.append(child)
                if node.wild is not None:
                    following.append(node.wild)
            if not following:
                return []
            frontier = following
        return sorted(position for node in frontier for position in node.ends)
