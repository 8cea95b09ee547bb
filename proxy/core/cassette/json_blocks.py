"""A cassette's JSON bodies lifted out of its YAML before the YAML parser reads it.

JSON bodies are block scalars (`json: |` and indented JSON text) and most of a cassette's bytes, and
PyYAML's C scanner reads them a character at a time: most of a cold load. `JSONBlocks` is the stream the
parser reads instead, with each such block cut to a one-line placeholder whose text it keeps;
`yaml_loading` puts the text back where it reads the placeholder. A block is lifted when its first line
is a lone `{` or `[`, no line up to its closer is indented less (YAML would end the block there, and
read the lines the cut removes), and it holds no character YAML reads otherwise than JSON. The
placeholder sits at the block's indentation, so the parser ends it where it would have ended the block,
and its value is the placeholder alone only where the block's value was the block alone: anything else
(the block went on, or the key's text sat inside another value) puts the placeholder's random nonce,
found nowhere else, into some other value, and the caller then reads the file the ordinary way. No I/O
but the stream it is given.
"""

from __future__ import annotations

import re
import secrets
import sys
from collections import deque
from typing import AnyStr, Protocol

KEY = b"json: |"
CHUNK_BYTES = 1 << 20
MOST_HELD = 64 << 20  # a block longer than this is left to the parser rather than held whole
LONGEST_HEADER = 4096  # a longer line without its end is handed on in part: it is no header

# Characters YAML does not read as JSON does: line breaks other than \n (they end a block's line),
# and characters a YAML stream may not hold at all, which JSON strings may.
OTHER_IN_YAML = re.compile(rb"[\r\x7f]|\xc2[\x80-\x9f]|\xe2\x80[\xa8\xa9]|\xef\xbb\xbf|\xef\xbf[\xbe\xbf]")
_NOT_SEARCHED = (sys.maxsize, -1)


def closed_block_end(text: AnyStr, first_end: int, limit: int, closer: AnyStr) -> int | None:
    """Where a pretty-printed JSON block whose first line ends at `first_end` ends: just after its
    closer (`closer`: a line of `}` or `]` at the block's depth, with the line breaks around it), the
    last one before `limit`, when every line up to it is indented at least that deep; None otherwise
    (YAML would end the block at the first line indented less). Bytes here, the text `plain_items` reads.
    """
    close = text.rfind(closer, first_end, limit)
    if close < 0:
        return None
    margin = closer[:-2]  # the line break and the depth's spaces
    if text.count(closer[:1], first_end, close + 1) != text.count(margin, first_end, close + len(margin)):
        return None
    return close + len(closer)


class Readable(Protocol):
    def read(self, size: int = -1, /) -> bytes: ...


class JSONBlocks:
    """`stream` as the YAML parser should read it: each liftable `json: |` block a placeholder line.

    The text kept for a block keeps its indentation, which JSON reads as whitespace: it is only ever
    parsed as JSON.
    """

    def __init__(self, stream: Readable) -> None:
        self._stream = stream
        self.nonce = secrets.token_hex(16)
        self._texts: deque[str] = deque()
        self._buffer = b""
        self._at = 0  # the first byte not yet handed on
        self._scan = 0  # where the next header may start
        self._key_search = _NOT_SEARCHED  # a search for the key done already: where from, what it found
        self._starts_line = True  # whether the buffer's first byte starts a line
        self._ended = False
        self.lifted = 0
        self.restored = 0

    def read(self, size: int = -1) -> bytes:
        """The next bytes for the parser, of any length (PyYAML keeps what it did not ask for)."""
        while True:
            piece = self._next_piece()
            if piece or (self._ended and self._at >= len(self._buffer)):
                return piece

    def text_of(self, placeholder: str) -> str | None:
        """The text of the block `placeholder` stands for when it is the next one to be read, else None
        (the placeholder was read where no block was lifted from)."""
        expected = f"{self.nonce}-{self.restored}"
        if placeholder not in (expected, expected + "\n") or not self._texts:
            return None
        self.restored += 1
        return self._texts.popleft()

    def _next_piece(self) -> bytes:
        """Hand on the bytes up to the next lifted block (its placeholder included), or read more; b""
        when nothing could be handed on yet."""
        buffer = self._buffer
        searched_from, found = self._key_search
        if searched_from > self._scan or 0 <= found < self._scan:
            found = self._find_key(self._scan)
        if found < 0:
            return self._hand_on_lines()
        lifted = self._lifted_at(found)
        if lifted is None:  # more bytes were read: look again
            return b""
        if isinstance(lifted, bool):
            self._scan = found + len(KEY)
            return b""
        start, end, indent, text = lifted
        self._texts.append(text)
        placeholder = f"{' ' * indent}{self.nonce}-{self.lifted}\n".encode()
        self.lifted += 1
        piece = buffer[self._at : start] + placeholder
        self._at = self._scan = end
        return piece

    def _hand_on_lines(self) -> bytes:
        """No header in the buffer: hand on its whole lines (the last may yet become one), then read."""
        buffer, at = self._buffer, self._at
        if self._ended:
            self._at = self._scan = len(buffer)
            return buffer[at:]
        cut = buffer.rfind(b"\n", at) + 1
        if cut <= at and len(buffer) - at > LONGEST_HEADER:  # too long to be spaces and the key
            cut = len(buffer) - len(KEY)
        self._at = self._scan = max(cut, at)
        piece = buffer[at : self._at]
        self._read_more()
        return piece

    def _lifted_at(self, found: int) -> tuple[int, int, int, str] | bool | None:
        """The block whose header has the key at `found`: (start, end, placeholder indent, text) when
        it can be lifted, False when not, None when more of the stream was read to tell."""
        buffer = self._buffer
        line = buffer.rfind(b"\n", 0, found) + 1
        indent = found - line
        if not self._starts_header(line, found):
            return False
        after = found + len(KEY)
        if after + 2 > len(buffer) and not self._ended:
            return self._read_more()
        start = after + (buffer[after : after + 1] == b"-")
        if buffer[start : start + 1] != b"\n":
            return False
        first_end = buffer.find(b"\n", start + 1)
        if first_end < 0:
            return self._read_more()
        first = buffer[start + 1 : first_end]
        depth = len(first) - len(first.lstrip(b" "))
        opener = first[depth:]
        if depth <= indent or opener not in (b"{", b"["):
            return False
        closer = b"\n" + b" " * depth + (b"}" if opener == b"{" else b"]") + b"\n"
        # The closer is looked for back from the next header (or the stream's end): it is close by, where
        # a search forward would read the whole block for a needle ending in a common byte.
        limit = self._find_key(first_end)
        if limit < 0 and not self._ended:
            return False if len(buffer) - self._at > MOST_HELD else self._read_more()
        self._key_search = (first_end, limit)  # where the next header is, once this block is done
        end = closed_block_end(buffer, first_end, len(buffer) if limit < 0 else limit, closer)
        if end is None:
            return False
        block = buffer[start + 1 : end]
        if not block.isascii() or b"\r" in block or b"\x7f" in block:
            if OTHER_IN_YAML.search(block):
                return False
            try:
                text = block.decode("utf-8")
            except UnicodeDecodeError:
                return False
        else:
            text = block.decode("ascii")
        return start + 1, end, depth, text

    def _find_key(self, start: int) -> int:
        """Where the key's text first is in the buffer from `start`, or -1. Its `|` is looked for with
        memchr: a search for the whole text skips slowly through JSON's many spaces (about 10 times)."""
        buffer, before = self._buffer, len(KEY) - 1
        bar = buffer.find(b"|", start + before)
        while bar >= 0 and not buffer.startswith(KEY, bar - before):
            bar = buffer.find(b"|", bar + 1)
        return bar - before if bar >= 0 else -1

    def _starts_header(self, line: int, found: int) -> bool:
        """Whether the key at `found` follows nothing but the spaces from the start of its line, at
        `line` (a placeholder read anywhere else is caught, but costs a whole parse)."""
        return (line > 0 or self._starts_line) and self._buffer.count(b" ", line, found) == found - line

    def _read_more(self) -> bool | None:
        """Keep what is not handed on yet and add the stream's next chunk: None, for "look again"; False
        when the stream had ended (what needed more bytes is not there)."""
        if self._ended:
            return False
        chunk = self._stream.read(CHUNK_BYTES)
        if not chunk:
            self._ended = True
            return None
        at = self._at
        if at:
            self._starts_line = self._buffer[at - 1 : at] == b"\n"
        self._buffer = self._buffer[at:] + chunk
        self._scan -= at
        self._key_search = _NOT_SEARCHED
        self._at = 0
        return None
