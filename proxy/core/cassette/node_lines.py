"""The line a cassette's error names: where the node at a document path starts.

Found from the parser's events, up to that node and no further, never from a composed tree: composing a
57 MB cassette to name the line of an error near its end took 14 s and 800 MB, with the document
already loaded beside it. Pure: text in, a line number out.
"""

from __future__ import annotations

from collections.abc import Iterator

import yaml

from proxy.core.cassette.safe_yaml import SafeLoader

Anchors = dict[
    str, tuple[int, str | None, int]
]  # an anchor's node: its line, its value when a scalar, its count
STARTS = (yaml.MappingStartEvent, yaml.SequenceStartEvent)
ENDS = (yaml.MappingEndEvent, yaml.SequenceEndEvent)


def line_of(text: str, path: tuple[str | int, ...]) -> int | None:
    """The 1-based line of the node at `path` (a mapping's first key of that name, a list's item of
    that index), or of the deepest node on the way that has no such key or item; None when the text
    does not parse as far as that node. An alias stands for its anchor's node, as in the composed
    document: its line, and its keys or items further down the path."""
    try:
        return _walked(text, path)
    except (yaml.YAMLError, RecursionError):
        return None


def _walked(text: str, path: tuple[str | int, ...]) -> int:
    anchors: Anchors = {}
    events = _Counted(text)
    node = next(events)
    while isinstance(node, (yaml.StreamStartEvent, yaml.DocumentStartEvent)):
        node = next(events)
    if isinstance(node, (yaml.StreamEndEvent, yaml.DocumentEndEvent)):
        return 1  # an empty document
    for part in path:
        _note(node, anchors, events.count)
        if isinstance(node, yaml.AliasEvent) and node.anchor in anchors:
            # Down through an alias: the events again, from its anchor's node (rare: a cassette has none).
            events = _Counted(text)
            for _ in range(anchors[node.anchor][2]):
                node = next(events)
        if isinstance(node, yaml.MappingStartEvent):
            child = _value_of(events, part, anchors)
        elif isinstance(node, yaml.SequenceStartEvent) and isinstance(part, int):
            child = _item_of(events, part, anchors)
        else:
            break
        if child is None:
            break
        node = child
    if isinstance(node, yaml.AliasEvent) and node.anchor in anchors:
        return anchors[node.anchor][0] + 1
    return _line(node) + 1


class _Counted:
    """The parser's events of `text`, counted as they are read (an anchor is found again by its count)."""

    def __init__(self, text: str) -> None:
        self._events = yaml.parse(text, Loader=SafeLoader)
        self.count = 0

    def __iter__(self) -> Iterator[yaml.Event]:
        return self

    def __next__(self) -> yaml.Event:
        self.count += 1
        return next(self._events)


def _value_of(events: _Counted, key: str | int, anchors: Anchors) -> yaml.Event | None:
    """The start of the value of the mapping's first `key`, the events before it read."""
    while True:
        found = next(events)
        if isinstance(found, yaml.MappingEndEvent):
            return None
        _skip(events, found, anchors)
        value = next(events)
        if _scalar(found, anchors) == key:
            return value
        _skip(events, value, anchors)


def _item_of(events: _Counted, index: int, anchors: Anchors) -> yaml.Event | None:
    """The start of the list's item `index`, the items before it read."""
    for _ in range(index):
        item = next(events)
        if isinstance(item, yaml.SequenceEndEvent):
            return None
        _skip(events, item, anchors)
    item = next(events)
    return None if isinstance(item, yaml.SequenceEndEvent) else item


def _skip(events: _Counted, start: yaml.Event, anchors: Anchors) -> None:
    """Read the rest of the node `start` begins, noting its anchors (an alias later may name one)."""
    _note(start, anchors, events.count)
    depth = 1 if isinstance(start, STARTS) else 0
    while depth:
        event = next(events)
        _note(event, anchors, events.count)
        if isinstance(event, STARTS):
            depth += 1
        elif isinstance(event, ENDS):
            depth -= 1


def _note(event: yaml.Event, anchors: Anchors, count: int) -> None:
    """Remember where an anchored node starts (`count`: the events read up to and with it)."""
    anchor = getattr(event, "anchor", None)
    if anchor is not None and not isinstance(event, yaml.AliasEvent):
        value = event.value if isinstance(event, yaml.ScalarEvent) else None
        anchors[anchor] = (_line(event), value, count)


def _line(event: yaml.Event) -> int:
    """The 0-based line an event starts on (the parser marks every event it hands out)."""
    return 0 if event.start_mark is None else int(event.start_mark.line)


def _scalar(event: yaml.Event, anchors: Anchors) -> str | None:
    """A key's text: a scalar's, or an alias's to a scalar; None for a mapping or list key."""
    if isinstance(event, yaml.ScalarEvent):
        return str(event.value)
    if isinstance(event, yaml.AliasEvent) and event.anchor in anchors:
        return anchors[event.anchor][1]
    return None
