"""Safe, bounded YAML loading for cassettes and rule files: text in, plain values out, no I/O.

Values are built straight from the parser's events with an explicit stack, never by recursion:
PyYAML's C composer recurses once per nesting level on the C stack, and about 40,000 nested `[`
(an 80 KB file) crash the process. Building from events is also about twice as fast as composing a
node tree and constructing from it. Only safe tags are built; timestamps stay strings; a key written
twice is an error.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import IO, Any

import yaml

MAX_DEPTH = 500  # levels of nesting; JSON parsers stop near here too (orjson at 1,024)

SafeLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # C when PyYAML has it

STR_TAG = "tag:yaml.org,2002:str"
_MAP_TAG = "tag:yaml.org,2002:map"
_SEQ_TAG = "tag:yaml.org,2002:seq"
_MERGE_TAGS = ("tag:yaml.org,2002:merge", "tag:yaml.org,2002:value")


class CassetteLoader(SafeLoader):  # type: ignore[misc,valid-type]
    """Safe loader that keeps timestamps as strings and refuses duplicate keys."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._plain_tags: dict[str, str] = {}

    def resolve(self, kind: type[yaml.Node], value: str, implicit: tuple[bool, bool]) -> str:
        """PyYAML's resolver, remembering the tag of each short plain scalar (header names and values,
        keys, methods repeat thousands of times in a cassette and each costs several regex tries)."""
        if kind is not yaml.ScalarNode or self.yaml_path_resolvers:
            return super().resolve(kind, value, implicit)  # type: ignore[no-any-return]
        if not implicit[0]:
            return self.DEFAULT_SCALAR_TAG  # type: ignore[no-any-return]
        tag = self._plain_tags.get(value)
        if tag is None:
            tag = super().resolve(kind, value, implicit)
            if len(value) <= 80:
                self._plain_tags[value] = tag
        return tag

    def new_mapping(self, line: int) -> dict[Any, Any]:
        """The empty mapping a block or flow mapping starting on 1-based `line` fills (rule files keep
        the line)."""
        return {}

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        if not isinstance(node, yaml.MappingNode):  # `!!map [..]`: PyYAML's own message, not a TypeError
            return super().construct_mapping(node, deep=deep)
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = key_node.value
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key!r}", key_node.start_mark
                )
            seen.add(key)
        return super().construct_mapping(node, deep=deep)  # type: ignore[no-any-return]


CassetteLoader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in SafeLoader.yaml_implicit_resolvers.items()
}
CassetteLoader.add_constructor(_MAP_TAG, CassetteLoader.construct_mapping)


def yaml_problem(error: yaml.YAMLError, text: str) -> tuple[int | None, str]:
    """The 1-based line (when known) and the problem of a YAML error, on one line, for messages shaped
    `file:line: not valid YAML: problem`."""
    line: int | None = None
    if isinstance(error, yaml.MarkedYAMLError):
        mark = error.problem_mark or error.context_mark
        line = mark.line + 1 if mark is not None else None
        problem = error.problem or error.context or "malformed YAML"
    elif isinstance(error, yaml.reader.ReaderError) and isinstance(error.character, int):
        if SafeLoader is yaml.SafeLoader:  # the Python reader counts characters, the C one bytes
            line = text.count("\n", 0, error.position) + 1
        else:
            line = text.encode("utf-8").count(b"\n", 0, error.position) + 1
        problem = f"unacceptable character #x{error.character:04x}: {error.reason}"
    else:
        problem = str(error)
    return line, " ".join(problem.split())


# PyYAML's constructors raise these, not a YAMLError, for some values under an explicit tag
# (`!!timestamp x`, `!!bool x`, `!!int x`) and for unhashable keys: an error in the text all the same.
_CONSTRUCTOR_SLIPS = (ArithmeticError, AttributeError, LookupError, TypeError, ValueError)


class _NotPlain(Exception):
    """YAML that only PyYAML's own constructor builds right (merge keys, tags, collections as keys).

    `depth` counts the collections open where the event pass stopped, the one whose start event it
    stopped at (`opening`) included.
    """

    def __init__(self, stack: list[_Frame], opening: Any = None) -> None:
        super().__init__()
        self.depth = len(stack) + (opening is not None)


def load_yaml(text: str, loader_class: type[CassetteLoader] = CassetteLoader) -> Any:
    """The single document in `text` (None when empty), as `yaml.load(text, Loader=loader_class)` gives it.

    Any problem is a `yaml.YAMLError` with a mark, and so are nesting past `MAX_DEPTH`, a collection
    holding itself, and aliases that stand for more than ten values per character of text (a "billion
    laughs": callers walk the document as a tree and must not meet a cycle or an explosion). Plain maps,
    lists and scalars (all a cassette is) are built from events; anything else (merge keys, explicit
    collection tags, collections as keys) goes to PyYAML's constructor, once the depth is known to be safe.
    """
    most_values = 10 * len(text) + 10_000
    loader = loader_class(text)
    try:
        try:
            return _finished(_built_from_events(loader, most_values, None))
        except _NotPlain as stop:
            _drain_within_depth(loader, stop.depth)
        document = _constructed_by_pyyaml(text, loader_class)
    except yaml.MarkedYAMLError as error:
        raise _as_too_deep(error) from None
    finally:
        loader.dispose()
    _check_expanded_size(document, most_values)
    return document


def _as_too_deep(error: yaml.MarkedYAMLError) -> yaml.MarkedYAMLError:
    """PyYAML from 6.0.4 refuses deep nesting itself while it scans ahead (its own limit, 1,000 flow
    levels): the same problem as ours, so it reads as ours. Any other error is given back as it is."""
    if "maximum nesting depth" in str(error.problem or "") and error.problem_mark is not None:
        return _too_deep(error.problem_mark)
    return error


class NotStreamable(Exception):
    """YAML that `stream_yaml` leaves to `load_yaml`: merge keys, tags, collections as keys, or the
    streamed list somewhere else than a key of the top-level mapping."""


def stream_yaml(
    stream: IO[bytes],
    size: int,
    key: str,
    loader_class: type[CassetteLoader] = CassetteLoader,
) -> Generator[tuple[dict[Any, Any], Any], None, Any]:
    """Read a document whose top-level mapping holds a long list under `key`, one item at a time.

    Yields `(top, item)` for each item of that list as soon as it is complete: `top` is the top-level
    mapping as read so far (the keys before the list), and the item is not kept, so memory holds one
    item, not the document. Returns the top-level mapping, with the list left empty. `size` is the
    stream's length in bytes, for the same alias bound as `load_yaml`. YAML problems raise
    `yaml.YAMLError` as there; YAML it does not build raises `NotStreamable` (use `load_yaml`).
    """
    loader = loader_class(stream)  # type: ignore[arg-type]  # PyYAML reads a binary stream in chunks
    try:
        return (yield from _built_from_events(loader, 10 * size + 10_000, key))
    except _NotPlain:
        raise NotStreamable from None
    finally:
        loader.dispose()


def _finished(generator: Generator[Any, None, Any]) -> Any:
    """The value of a generator that yields nothing (`_built_from_events` with no list streamed)."""
    try:
        next(generator)
    except StopIteration as done:
        return done.value
    raise AssertionError("nothing is streamed without a key")  # pragma: no cover


class _Frame:
    """A collection being built: its value, and for a mapping the key waiting for its value."""

    __slots__ = ("anchor", "has_key", "is_mapping", "key", "size", "streamed", "value", "written")

    def __init__(self, value: Any, is_mapping: bool, anchor: str | None) -> None:
        self.value = value
        self.is_mapping = is_mapping
        self.key: Any = None
        self.has_key = False
        self.written: set[str] = set()  # keys as written: the duplicate test of `construct_mapping`
        self.anchor = anchor
        self.size = 1  # values in it, aliases counted as what they stand for
        self.streamed = False  # a list whose items are yielded, not kept


_Anchored = tuple[Any, "str | None", int]  # the value, the text of a scalar, its size


def _built_from_events(
    loader: CassetteLoader, most_values: int, streamed_key: str | None
) -> Generator[tuple[dict[Any, Any], Any], None, Any]:
    """One pass over the parser's events; raises `_NotPlain` at the first thing it does not build.

    With `streamed_key`, the items of the list under that key of the top-level mapping are yielded
    (with the top-level mapping) instead of kept.
    """
    get_event = loader.get_event
    get_event()  # StreamStart
    event = get_event()
    if event.__class__ is yaml.StreamEndEvent:
        return None
    document_start = event
    resolve = loader.resolve
    # The tags CassetteLoader.resolve remembers, read here without a method call per scalar.
    plain_tags: dict[str, str] = (
        loader._plain_tags
        if type(loader).resolve is CassetteLoader.resolve and not loader.yaml_path_resolvers
        else {}
    )
    scalar_values: dict[tuple[str, str], Any] = {}
    anchors: dict[str, tuple[_Anchored, Any]] = {}  # name: value, mark
    building: set[str] = set()
    new_mapping: Callable[[int], dict[Any, Any]] | None = (
        loader.new_mapping if type(loader).new_mapping is not CassetteLoader.new_mapping else None
    )
    stack: list[_Frame] = []
    scalar, start_map, end_map = yaml.ScalarEvent, yaml.MappingStartEvent, yaml.MappingEndEvent
    start_seq, end_seq, alias = yaml.SequenceStartEvent, yaml.SequenceEndEvent, yaml.AliasEvent
    while True:
        event = get_event()
        kind = event.__class__
        written: str | None = None
        if kind is scalar:
            written = event.value
            size = 1
            tag = event.tag
            if tag is None or tag == "!":
                implicit = event.implicit
                tag = (implicit[0] and plain_tags.get(written)) or resolve(yaml.ScalarNode, written, implicit)
            if tag == STR_TAG:
                value: Any = written
            else:
                if stack and stack[-1].is_mapping and not stack[-1].has_key and tag in _MERGE_TAGS:
                    raise _NotPlain(stack)
                value = _scalar_value(loader, scalar_values, tag, event)
            if event.anchor is not None:
                _remember(anchors, event.anchor, (value, written, 1), event.start_mark)
        elif kind is start_map or kind is start_seq:
            tag = event.tag
            if tag is not None and tag != "!" and tag != (_MAP_TAG if kind is start_map else _SEQ_TAG):
                raise _NotPlain(stack, opening=event)
            if stack and stack[-1].is_mapping and not stack[-1].has_key:
                raise _NotPlain(stack, opening=event)  # a collection as a key
            if len(stack) >= MAX_DEPTH:
                raise _too_deep(event.start_mark)
            if kind is start_seq:
                value = []
            elif new_mapping is None:
                value = {}
            else:
                value = new_mapping(event.start_mark.line + 1)
            if event.anchor is not None:
                _remember(anchors, event.anchor, (value, None, 0), event.start_mark)
                building.add(event.anchor)
            frame = _Frame(value, kind is start_map, event.anchor)
            if streamed_key is not None and len(stack) == 1 and stack[0].key == streamed_key:
                if kind is not start_seq or event.anchor is not None or not stack[0].is_mapping:
                    raise _NotPlain(stack, opening=event)
                frame.streamed = True
            stack.append(frame)
            continue
        elif kind is end_map or kind is end_seq:
            frame = stack.pop()
            value, size = frame.value, frame.size
            if frame.anchor is not None:
                building.discard(frame.anchor)
                anchors[frame.anchor] = ((value, None, size), anchors[frame.anchor][1])
        elif kind is alias:
            if event.anchor not in anchors:
                raise yaml.composer.ComposerError(
                    None, None, f"found undefined alias {event.anchor!r}", event.start_mark
                )
            if event.anchor in building:
                raise _holds_itself(event)
            (value, written, size), _ = anchors[event.anchor]
            if written is None and stack and stack[-1].is_mapping and not stack[-1].has_key:
                raise _NotPlain(stack)  # a collection as a key
            if len(stack) == 1 and stack[0].has_key and stack[0].key == streamed_key is not None:
                raise _NotPlain(stack)  # the streamed list as an alias
        else:  # pragma: no cover - the parser yields nothing else inside a document
            raise _NotPlain(stack)
        if not stack:
            _expect_single_document(get_event, document_start)
            return value
        frame = stack[-1]
        frame.size += size
        if frame.size > most_values:
            raise _too_many(most_values, event.start_mark)
        if not frame.is_mapping:
            if frame.streamed:
                yield stack[0].value, value
            else:
                frame.value.append(value)
        elif not frame.has_key:
            if written in frame.written:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {written!r}", event.start_mark
                )
            frame.written.add(written)  # type: ignore[arg-type]
            frame.key = value
            frame.has_key = True
        else:
            frame.value[frame.key] = value
            frame.has_key = False


def _scalar_value(loader: CassetteLoader, seen: dict[tuple[str, str], Any], tag: str, event: Any) -> Any:
    """A non-string scalar through the loader's own constructors (they refuse unsafe tags); the values
    they build (numbers, booleans, null, bytes) are immutable, so each text is built once."""
    key = (tag, event.value)
    if key in seen:
        return seen[key]
    node = yaml.ScalarNode(tag, event.value, event.start_mark, event.end_mark, style=event.style)
    try:
        value = seen[key] = loader.construct_object(node, deep=True)
    except _CONSTRUCTOR_SLIPS:
        raise yaml.constructor.ConstructorError(
            None, None, f"{event.value!r} is not a valid {tag.rsplit(':', 1)[-1]}", event.start_mark
        ) from None
    return value


def _remember(anchors: dict[str, tuple[_Anchored, Any]], name: str, anchored: _Anchored, mark: Any) -> None:
    if name in anchors:  # PyYAML's composer refuses a second anchor of the same name
        raise yaml.composer.ComposerError(
            "found duplicate anchor; first occurrence", anchors[name][1], "second occurrence", mark
        )
    anchors[name] = (anchored, mark)


def _expect_single_document(get_event: Callable[[], Any], document_start: Any) -> None:
    get_event()  # DocumentEnd
    event = get_event()
    if event.__class__ is not yaml.StreamEndEvent:
        raise yaml.composer.ComposerError(
            "expected a single document in the stream",
            document_start.start_mark,
            "but found another document",
            event.start_mark,
        )


def _too_deep(mark: Any) -> yaml.composer.ComposerError:
    """Marks come from the C parser (`yaml._yaml.Mark`) or the Python one: both carry a line."""
    return yaml.composer.ComposerError(None, None, f"nested more than {MAX_DEPTH} levels deep", mark)


def _holds_itself(alias: Any) -> yaml.composer.ComposerError:
    return yaml.composer.ComposerError(
        None, None, f"alias *{alias.anchor} is inside the collection it names", alias.start_mark
    )


def _too_many(most_values: int, mark: Any) -> yaml.constructor.ConstructorError:
    return yaml.constructor.ConstructorError(
        None, None, f"aliases stand for more than {most_values} values in all", mark
    )


def _check_expanded_size(document: Any, most_values: int) -> None:
    """Refuse a document built by PyYAML that holds itself or expands past `most_values` (shared
    collections counted each time they appear, each counted once in time)."""
    sizes: dict[int, int] = {}
    in_progress: set[int] = set()
    pending: list[tuple[Any, bool]] = [(document, False)]
    while pending:
        value, children_done = pending.pop()
        if not isinstance(value, dict | list | set | tuple):  # tuples: `!!omap` and `!!pairs` entries
            continue
        identity = id(value)
        children = list(value.values() if isinstance(value, dict) else value)
        if children_done:
            in_progress.discard(identity)
            size = 1 + sum(sizes.get(id(child), 1) for child in children)
            if size > most_values:
                raise _too_many(most_values, None)
            sizes[identity] = size
        elif identity in in_progress:  # the event pass refuses the plain case first, with a line
            raise yaml.constructor.ConstructorError(
                None, None, "an alias is inside the collection it names", None
            )
        elif identity not in sizes:
            in_progress.add(identity)
            pending.append((value, True))
            pending.extend((child, False) for child in children)


def _drain_within_depth(loader: CassetteLoader, depth: int) -> None:
    """Read the rest of the events, refusing nesting past `MAX_DEPTH` before PyYAML's recursive
    composer sees it."""
    starts = (yaml.MappingStartEvent, yaml.SequenceStartEvent)
    ends = (yaml.MappingEndEvent, yaml.SequenceEndEvent)
    get_event, check_event = loader.get_event, loader.check_event
    while check_event():
        event = get_event()
        if isinstance(event, starts):
            depth += 1
            if depth > MAX_DEPTH:
                raise _too_deep(event.start_mark)
        elif isinstance(event, ends):
            depth -= 1


def _constructed_by_pyyaml(text: str, loader_class: type[CassetteLoader]) -> Any:
    """PyYAML's own composer and constructor, for the YAML the event pass leaves to it."""
    loader = loader_class(text)
    try:
        return loader.get_single_data()
    except RecursionError:
        raise yaml.composer.ComposerError(None, None, "nested too deeply", None) from None
    except _CONSTRUCTOR_SLIPS as error:
        raise yaml.constructor.ConstructorError(None, None, f"cannot build: {error}", None) from None
    finally:
        loader.dispose()
