"""A cassette's exchanges read without the YAML parser where they are written the way commerce-proxy
writes them; the parser reads everything else. No I/O but the stream it is given.

PyYAML's C parser hands Python about 36 events an exchange, most of a cold load. The items the cassette
writer makes are a small, regular part of YAML: block mappings of one key a line, scalars on one line
(plain, single-quoted, or double-quoted without escapes), and `json: |` blocks of pretty-printed JSON.
`plain_item` reads exactly that part and gives up on anything else (a list, a comment after a value, a
multi-line scalar, a character outside printable ASCII outside a JSON block, a key written twice), and
the item's lines then go to the parser. Plain scalars are typed by the loader's own resolver and
constructors, so each value is the one the parser would build.

The exchanges are a block list at column 0, so a line starting with "- " starts an item and nothing
before it can reach into it (a block scalar ends at a less indented line; a quoted scalar left open
fails its own item's parse): each item is read on its own. Anything that is not plainly such a list
(directives, document markers, keys after the list, an item the parser fails on) raises, and the
caller reads the file the ordinary way, so a cassette loads the same either way.
"""

from __future__ import annotations

import re
from collections.abc import Generator
from typing import Any, Protocol

import yaml

from proxy.core.cassette.safe_yaml import STR_TAG, CassetteLoader, NotStreamable, load_yaml, stream_yaml

CHUNK_BYTES = 1 << 20
HEAD_BYTES = 64 * 1024  # where the keys before the list must end
MOST_HELD = 64 << 20  # characters held for one item; a longer one is left to the whole parse
JSON_KEY = "json"
BODY_OWNERS = ("request", "response")  # the mappings whose `json` is JSON text (format 2)
# One key line: its indentation, the key (plain, or single-quoted), and the value after ": " if any.
# A plain scalar may not start with an indicator; printable ASCII only (a class of all but ASCII would
# cost 5 ms to compile at every start).
_PLAIN_FIRST = r"(?![#'\"\-?:,\[\]{}&*!|>%@`])[\x21-\x7e]"
_KEY_LINE = re.compile(
    rf"( *)({_PLAIN_FIRST}[\x20-\x7e]*?|'(?:[\x20-\x26\x28-\x7e]|'')*'):(?: ([\x20-\x7e]*))?"
)
_SKIPPED_LINE = re.compile(r" *(?:#[\t\x20-\x7e]*)?")  # a blank line or a comment line
_PLAIN = re.compile(rf"{_PLAIN_FIRST}[\x20-\x7e]*")
_SINGLE_QUOTED = re.compile(r"'((?:[\x20-\x26\x28-\x7e]|'')*)'")
_DOUBLE_QUOTED = re.compile(r'"([\x20-\x21\x23-\x5b\x5d-\x7e]*)"')  # no escapes, no quote inside
_BLANK = re.compile(r"(?: *\n)*")
_HEADER_ENDS = ("\n", "-\n")  # after a block header's "|"
# A line at column 0 inside an item's text that is not a comment, a blank line or another item.
_COLUMN_ZERO = re.compile(r"\n(?:[^ #\n-]|-[^ \n])")
_REFUSED = object()
_OPENS = object()  # "key:" and nothing after: a mapping follows, indented deeper
_BLOCK = object()  # "key: |" (or "|-"): a literal block follows
_SKIPPED = (-1, "", None)
_LINE_TEXT_MOST = 120  # longer lines are not remembered: they hardly repeat
_LINES_REMEMBERED = 8192
# Characters YAML does not read as JSON does: line breaks other than \n (they end a block's line),
# and characters a YAML stream may not hold at all, which JSON strings may.
OTHER_IN_YAML = re.compile(rb"[\r\x7f]|\xc2[\x80-\x9f]|\xe2\x80[\xa8\xa9]|\xef\xbb\xbf|\xef\xbf[\xbe\xbf]")


class Readable(Protocol):
    def read(self, size: int = -1, /) -> bytes: ...


class PlainLines:
    """Lines of an item read the plain way, each text once: most repeat (header lines, methods,
    statuses, the keys of nested mappings), and a plain scalar is typed by the loader's resolver and
    constructors, as the parser types it."""

    def __init__(self) -> None:
        self._loader = CassetteLoader("")
        self._lines: dict[str, tuple[int, str, Any] | None] = {}
        self._scalars: dict[str, Any] = {}

    def parsed(self, line: str) -> tuple[int, str, Any] | None:
        """`(indent, key, value)` of a key line, the value being a scalar's, `_OPENS` or `_BLOCK`;
        `_SKIPPED` for a blank or comment line; None for anything else."""
        known = self._lines.get(line, _REFUSED)
        if known is not _REFUSED:
            return known  # type: ignore[return-value]
        parsed = self._parsed(line)
        if len(line) <= _LINE_TEXT_MOST:
            if len(self._lines) >= _LINES_REMEMBERED:
                self._lines.clear()
            self._lines[line] = parsed
        return parsed

    def _parsed(self, line: str) -> tuple[int, str, Any] | None:
        if _SKIPPED_LINE.fullmatch(line):
            return _SKIPPED
        match = _KEY_LINE.fullmatch(line)
        if match is None:
            return None
        key = self._key(match[2])
        written = match[3]
        if key is None:
            return None
        if written is None:
            return len(match[1]), key, _OPENS
        if written in ("|", "|-"):
            return len(match[1]), key, _BLOCK
        value = self._scalar(written)
        return None if value is _REFUSED else (len(match[1]), key, value)

    def _key(self, written: str) -> str | None:
        if written[0] == "'":
            return written[1:-1].replace("''", "'")
        if written[-1] in " :" or " #" in written:
            return None
        key = self._plain(written)
        return key if type(key) is str else None

    def _scalar(self, written: str) -> Any:
        first = written[:1]
        if first == "'":
            quoted = _SINGLE_QUOTED.fullmatch(written)
            return _REFUSED if quoted is None else quoted[1].replace("''", "'")
        if first == '"':
            quoted = _DOUBLE_QUOTED.fullmatch(written)
            return _REFUSED if quoted is None else quoted[1]
        if not _PLAIN.fullmatch(written) or written[-1] in " :" or ": " in written or " #" in written:
            return _REFUSED
        return self._plain(written)

    def _plain(self, text: str) -> Any:
        """The value of plain scalar `text`, or `_REFUSED` when it is not built here."""
        known = self._scalars.get(text, _REFUSED)
        if known is not _REFUSED or text in self._scalars:
            return known
        value: Any = _REFUSED
        tag = self._loader.resolve(yaml.ScalarNode, text, (True, False))
        if tag == STR_TAG:
            value = text
        else:  # a merge key or `=` has no constructor: refused here, the parser says what it is
            node = yaml.ScalarNode(tag, text)
            try:
                value = self._loader.construct_object(node, deep=True)
            except (ArithmeticError, LookupError, TypeError, ValueError, yaml.YAMLError):
                value = _REFUSED
            self._loader.constructed_objects.pop(node, None)  # the loader keeps each node's value
        if len(text) <= _LINE_TEXT_MOST:
            if len(self._scalars) >= _LINES_REMEMBERED:
                self._scalars.clear()
            self._scalars[text] = value
        return value

    def close(self) -> None:
        self._loader.dispose()


class _More:
    """The text ends before the item does: read more of the stream and try again."""


MORE = _More()


def plain_item(
    text: str, at: int, lines: PlainLines, complete: bool
) -> tuple[dict[str, Any], int] | _More | None:
    """The mapping of the list item whose "- " line starts at `at`, and where the next line at column
    0 starts; None when the item is not written the plain way (the YAML parser then reads it), MORE
    when `text` ends before the item can be read, unless it is `complete` (the stream's end)."""
    if not text.startswith("- ", at):
        return None
    root: dict[str, Any] = {}
    levels: list[tuple[int, dict[str, Any], str | None]] = [(2, root, None)]  # indent, mapping, its key
    opened: dict[str, Any] | None = None  # a mapping whose key line came last: its keys are deeper
    opened_key = ""
    first = True
    end = len(text)
    while True:
        if at >= end:
            if not complete:
                return MORE
            break
        if not first and text[at] == "-":
            break  # the next item (or something else at column 0: read as its own)
        line_end = text.find("\n", at)
        if line_end < 0:
            return None  # a last line without its end (the text is whole lines until the stream's end)
        parsed = lines.parsed("  " + text[at + 2 : line_end] if first else text[at:line_end])
        first = False
        if parsed is None:
            return None
        indent, key, value = parsed
        at = line_end + 1
        if indent < 0:
            continue
        if opened is not None:
            if indent <= levels[-1][0]:
                return None  # "key:" and nothing deeper: null, left to the parser
            levels.append((indent, opened, opened_key))
            opened = None
        else:
            while len(levels) > 1 and indent < levels[-1][0]:
                levels.pop()
            if indent != levels[-1][0]:
                return None
        mapping = levels[-1][1]
        if key in mapping:
            return None
        if value is _OPENS:
            mapping[key] = opened = {}
            opened_key = key
        elif value is _BLOCK:
            if key != JSON_KEY or len(levels) != 2 or levels[1][2] not in BODY_OWNERS:
                return None
            block = _json_block(text, at, indent)
            if block is None:
                return None
            mapping[key], at = block
        else:
            mapping[key] = value
    return None if opened is not None or not root else (root, at)  # `- # ...` alone is null


def _json_block(text: str, at: int, indent: int) -> tuple[str, int] | None:
    """A `json: |` block of pretty-printed JSON starting at `at` (its key at `indent`): its text (with
    the block's indentation, which JSON reads as whitespace) and where its lines end; None unless the
    block is a lone `{` or `[` line, the lines up to its closer at the same depth, all indented at least
    as deep (YAML would end the block at one indented less), and then no line indented as deep."""
    first_end = text.find("\n", at)
    if first_end < 0:
        return None
    first = text[at:first_end]
    depth = len(first) - len(first.lstrip(" "))
    opener = first[depth:]
    if depth <= indent or opener not in ("{", "["):
        return None
    closer = "\n" + " " * depth + ("}" if opener == "{" else "]") + "\n"
    # The closer is looked for back from the next block's header (found by its "|", with memchr; JSON
    # text has no line ending in ": |"), or the stream's end: it is close by, where a search forward skips
    # slowly through JSON's many spaces.
    limit = text.find("|", first_end)
    while limit >= 0 and not (text.startswith(": ", limit - 2) and text.startswith(_HEADER_ENDS, limit + 1)):
        limit = text.find("|", limit + 1)
    block_end = closed_block_end(text, first_end, len(text) if limit < 0 else limit, closer)
    if block_end is None:
        return None
    after = _BLANK.match(text, block_end).end()  # type: ignore[union-attr]  # matches the empty string
    if after < len(text) and text.startswith(" " * depth, after):
        return None  # the block goes on past the blank lines
    return text[at:block_end], block_end


def closed_block_end(text: str, first_end: int, limit: int, closer: str) -> int | None:
    """Where a pretty-printed JSON block whose first line ends at `first_end` ends: just after its
    closer (`closer`: a line of `}` or `]` at the block's depth, with the line breaks around it), the
    last one before `limit`, when every line up to it is indented at least that deep; None otherwise
    (YAML would end the block at the first line indented less)."""
    close = text.rfind(closer, first_end, limit)
    if close < 0:
        return None
    margin = closer[:-2]  # the line break and the depth's spaces
    if text.count(closer[:1], first_end, close + 1) != text.count(margin, first_end, close + len(margin)):
        return None
    return close + len(closer)


def cassette_items(stream: Readable, size: int, key: str) -> Generator[tuple[dict[Any, Any], Any], None, Any]:
    """`stream_yaml(stream, size, key)`, reading each item written the plain way
    without the parser: yields `(top, item)` for each item of the list under `key` and returns the
    top-level mapping with the list left empty. Raises as `stream_yaml` does, or `NotStreamable`
    when the file is not plainly one such list (the caller then reads it whole)."""
    marker = f"\n{key}:\n".encode()
    buffer = b""
    while True:  # to the first item's "- " (a stream may give less than it is asked for)
        listed = buffer.find(marker, 0, HEAD_BYTES)
        if (listed >= 0 and len(buffer) >= listed + len(marker) + 2) or len(buffer) >= HEAD_BYTES:
            break
        more = stream.read(CHUNK_BYTES)
        if not more:
            break
        buffer += more
    head_end = listed + len(marker)
    if (
        listed < 0
        or buffer.startswith((b"%", b"---", b"\xef\xbb\xbf"))
        or b"\n%" in buffer[:head_end]
        or b"\n---" in buffer[:head_end]
        or not buffer.startswith(b"- ", head_end)
    ):
        # Not plainly the writer's list (a hand-written head, a directive): the parser's events, item by
        # item, 2,000 bench exchanges (16 MB) in 0.21 s (lifting JSON blocks out first paid 1.1x: dropped).
        replayed: Any = _Replayed(buffer, stream)  # read as the stream it stands for
        return (yield from stream_yaml(replayed, size, key))
    top = load_yaml(buffer[:head_end].decode("utf-8"))
    if not isinstance(top, dict) or list(top)[-1:] != [key]:
        raise NotStreamable
    del top[key]
    lines = PlainLines()
    try:
        yield from _items(_Text(stream, buffer[head_end:]), top, lines)
    finally:
        lines.close()
    top[key] = []
    return top


def _items(
    text: _Text, top: dict[Any, Any], lines: PlainLines
) -> Generator[tuple[dict[Any, Any], Any], None, None]:
    """Each item of the list, read the plain way when it can be, else by the parser on its own."""
    while text.at < len(text.text) or text.read_more():
        read = plain_item(text.text, text.at, lines, text.ended) if text.plain else None
        if read is MORE:
            text.read_more()
            continue
        if read is not None:
            item, text.at = read  # type: ignore[misc]
            yield top, item
            continue
        start = text.at
        end = text.text.find("\n- ", start)
        if end < 0 and not text.ended:
            text.read_more()
            continue
        end = len(text.text) if end < 0 else end + 1
        stretch = text.text[start:end]
        if not stretch.startswith(("- ", "-\n")) or _COLUMN_ZERO.search(stretch):
            raise NotStreamable  # a document marker, a key after the list: only the whole file tells
        items = load_yaml(stretch)
        if not isinstance(items, list):
            raise NotStreamable
        text.at = end
        for each in items:
            yield top, each


class _Text:
    """The stream's text from the first item on, decoded a chunk of whole lines at a time; `at` is where
    the next item starts. `plain` is False for a chunk holding a character that YAML reads otherwise
    than as the same character (a carriage return, a character YAML refuses): its items go to the
    parser."""

    def __init__(self, stream: Readable, first: bytes) -> None:
        self._stream = stream
        self._pending = first
        self.text = ""
        self.at = 0
        self.ended = False
        self.plain = True

    def read_more(self) -> bool:
        """Add the next chunk's whole lines to the text (all of it at the stream's end); False when
        there was nothing more."""
        if self.ended:
            return False
        more = self._stream.read(CHUNK_BYTES)
        pending = self._pending + more
        if not more:
            self.ended = True
            cut = len(pending)
        else:
            cut = pending.rfind(b"\n") + 1
        piece, self._pending = pending[:cut], pending[cut:]
        if len(self.text) - self.at + len(piece) > MOST_HELD:
            raise NotStreamable  # one item this long: the whole parse reads it
        if piece.isascii():
            decoded = piece.decode("ascii")
            clean = b"\r" not in piece and b"\x7f" not in piece
        else:
            decoded = piece.decode("utf-8")  # UnicodeDecodeError is a ValueError: the whole parse says
            clean = not OTHER_IN_YAML.search(piece)
        held_plain = self.plain or self.at >= len(self.text)  # what is left of the text before
        self.text = self.text[self.at :] + decoded
        self.at = 0
        self.plain = clean and held_plain
        return bool(piece) or not self.ended


class _Replayed:
    """`head` (bytes already read from `stream`), then the rest of `stream`."""

    def __init__(self, head: bytes, stream: Readable) -> None:
        self._head = head
        self._stream = stream

    def read(self, size: int = -1) -> bytes:
        if self._head:
            chunk, self._head = self._head, b""
            return chunk
        return self._stream.read(size)


class CassetteItems:
    """`cassette_items` as an iterable of `(top, item)`; `top` holds the top-level mapping once every
    item has been read."""

    def __init__(self, stream: Readable, size: int, key: str) -> None:
        self._arguments = (stream, size, key)
        self.top: Any = None

    def __iter__(self) -> Generator[tuple[dict[Any, Any], Any], None, None]:
        self.top = yield from cassette_items(*self._arguments)
