"""An exchange's text exactly as its cassette file holds it, for `cassette show`: a person who edited
a body by hand sees their own spelling, not the layout the tool would write. The file is read as YAML
events (PyYAML's safe parser, no objects built), so only the marks of each exchange are kept."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

import yaml

from proxy.core.cassette.safe_yaml import SafeLoader


def stored_exchange(path: Path, index: int) -> str | None:
    """Exchange `index` of the cassette at `path`: its lines as the file has them, less the list's
    indentation (so it reads as a mapping of its own); None when the file does not hold it as a block
    of its own (a recording's journal not yet folded in, a flow-style list)."""
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    for number, (first, last, column) in enumerate(exchange_spans(yaml.parse(text, Loader=SafeLoader))):
        if number == index:
            return _dedented(lines[first:last], column)
    return None


def _dedented(lines: list[str], column: int) -> str | None:
    """The item's lines with its `- ` and the indentation every line shares taken off."""
    while lines and not lines[-1].strip():  # the blank lines a block scalar's end takes in
        lines = lines[:-1]
    if not lines:
        return None
    rest = lines[1:]
    if any(line[:column].strip() for line in rest):  # a line to the left of the item: not a block
        return None
    return "".join(line + "\n" for line in [lines[0][column:], *(line[column:] for line in rest)])


def exchange_spans(events: Iterable[yaml.Event]) -> Iterator[tuple[int, int, int]]:
    """The lines (first, past the last) and the column of each item of the top-level `exchanges`
    list. An item ends where its last scalar or flow collection ends: a block collection's own end
    mark is where the next token starts, past comments and blank lines."""
    flows: list[bool] = []  # the open collections, whether each is in flow style
    expect_key = False  # in the top-level mapping: whether the next node is a key
    key: object = None
    in_exchanges = False
    start = column = 0
    last = None  # the mark past the item's last scalar or flow collection
    for event in events:
        depth = len(flows)
        if isinstance(event, yaml.CollectionStartEvent):
            if depth == 1:
                in_exchanges = key == "exchanges" and isinstance(event, yaml.SequenceStartEvent)
            if depth in (0, 1):
                expect_key = True  # the top-level mapping opens, or a value of it: a key comes next
            if in_exchanges and depth == 2 and event.start_mark is not None:
                start, column, last = event.start_mark.line, event.start_mark.column, None
            flows.append(bool(event.flow_style))
        elif isinstance(event, yaml.CollectionEndEvent):
            if flows.pop():
                last = event.end_mark
            if in_exchanges and depth == 3 and last is not None:
                yield start, last.line + (1 if last.column else 0), column
            if depth == 2:
                in_exchanges = False
        elif isinstance(event, (yaml.ScalarEvent, yaml.AliasEvent)):
            last = event.end_mark
            if depth == 1:
                if expect_key:
                    key = event.value if isinstance(event, yaml.ScalarEvent) else None
                expect_key = not expect_key
