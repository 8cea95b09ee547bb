"""Lenient decoding views of a text, each character mapped back to the span of the original it came
from, so a secret found in a decoded view is replaced where it stands in the original.

One left-to-right pass decodes every escape of the family wherever it stands, each character on its
own (a text may mix them, or escape only some characters): percent `%hh` (any case) and `%uXXXX`, HTML
numeric entities (decimal or hex, any zero padding, with or without `;`) and HTML5 named ones, JSON/JS
escapes (`\\uXXXX`, `\\u{...}`, `\\xHH`, `\\/`, `\\n`...), and zero bytes (UTF-16/32 read one character a
byte) dropped. Base64 runs (line breaks inside allowed, real or written `\\n`) are found for decoding
at each offset. Pure.
"""

from __future__ import annotations

import binascii
import bisect
import functools
import html.entities
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from proxy.core.redaction.scans import cased_run_spans, escape_matches, run_spans


@functools.lru_cache(maxsize=16)
def escape_pattern(quotes: str, zeros: bool, pairs: bool = True) -> re.Pattern[str]:
    """The escapes decoded: `\\"` and `\\'` only when a secret holds that quote (JSON text escapes
    every quote, and decoding each would cost a step for nothing), never `\\%`, `\\&` or a backslash
    before a zero byte (what follows the backslash is decoded instead), zero bytes unless the text is
    wide (`wide_views`); `pairs`: whether `\\\\` is one backslash (else each stands for itself, for a
    text that left a backslash bare before a `\\u` escape)."""
    skipped = "%&\\0" + "".join(quote for quote in "\"'" if quote not in quotes) + ("" if pairs else "\\\\")
    return re.compile(
        r"%u(?P<pctu>[0-9A-Fa-f]{4})"
        r"|%(?P<pct>[0-9A-Fa-f]{2})"
        r"|&#[xX](?P<hex>[0-9A-Fa-f]{1,8});?"
        r"|&#(?P<dec>[0-9]{1,10});?"
        r"|&(?P<named>[A-Za-z][A-Za-z0-9]{1,31};?)"
        r"|\\u\{(?P<ubrace>[0-9A-Fa-f]{1,6})\}"
        r"|\\[uU](?P<u>[0-9A-Fa-f]{4})"
        r"|\\[xX](?P<x>[0-9A-Fa-f]{2})"
        rf"|\\(?P<char>[^uUxX{skipped}])" + (r"|(?P<zero>\x00+)" if zeros else "")
    )


# A wide text this short has its zeros dropped as escapes too (a character in two bytes of UTF-8 in
# UTF-16 needs that); a longer one is read by `wide_views` alone: each zero dropped costs a step.
SHORT = 4096
_NUMERIC = {"pctu": 16, "pct": 16, "hex": 16, "dec": 10, "ubrace": 16, "u": 16, "x": 16}
_BACKSLASHED = {"n": "\n", "r": "\r", "t": "\t", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}
_ENTITIES = html.entities.html5


def has_escape(text: str) -> bool:
    """Whether `text` may hold an escape of the family (the cheap test before any decoding)."""
    return "%" in text or "&" in text or "\\" in text or "\0" in text


@dataclass(frozen=True, slots=True)
class View:
    """A text and where each of its characters came from in its parent view (the original when none).

    `starts[i]` is where segment `i` begins in this text; `sources[i]` is (start, length, literal) in
    the parent: a literal segment maps character for character, an escape as a whole."""

    text: str
    parent: View | None = None
    starts: list[int] = field(default_factory=list)
    sources: list[tuple[int, int, bool]] = field(default_factory=list)
    stride: int = 0  # a wide view: character i came from the `stride` bytes at offset + i * stride
    offset: int = 0
    run: str = ""  # a base64 view: the run (at `offset` in the parent) its bytes were decoded from
    skip: int = 0  # ... from its characters after the first `skip` (breaks left out)

    def original(self, start: int, stop: int) -> tuple[int, int]:
        """The span of the original text that the span [start, stop) of this view came from."""
        view: View | None = self
        while view is not None and view.parent is not None:
            start, stop = view._local(start, stop)
            view = view.parent
        return start, stop

    def _local(self, start: int, stop: int) -> tuple[int, int]:
        if self.stride:  # each character's whole code unit, whichever its byte order
            return max(
                self.offset + start * self.stride - self.stride + 1, 0
            ), self.offset + stop * self.stride
        if self.run:
            return self._in_run(start, stop)
        first = max(bisect.bisect_right(self.starts, start) - 1, 0)
        last = max(bisect.bisect_right(self.starts, stop - 1) - 1, 0)
        begin, length, literal = self.sources[first]
        mapped_start = begin + (start - self.starts[first]) if literal else begin
        begin, length, literal = self.sources[last]
        mapped_stop = begin + (stop - self.starts[last]) if literal else begin + length
        return mapped_start, mapped_stop

    def _in_run(self, start: int, stop: int) -> tuple[int, int]:
        """The characters of the run that the decoded bytes [start, stop) came from: whole quanta of
        four, so the secret is covered however it is aligned."""
        kept = [index for index, _ in enumerate(self.run)]
        if not self.run.isalnum():
            broken = {index for match in _BREAKS.finditer(self.run) for index in range(*match.span())}
            kept = [index for index in kept if index not in broken]
        kept = kept[self.skip :]
        first = min(start // 3 * 4, len(kept) - 1)
        last = min((stop + 2) // 3 * 4, len(kept)) - 1
        return self.offset + kept[first], self.offset + kept[last] + 1


BARE_BACKSLASH = re.compile(r"\\\\[uUxX][0-9A-Fa-f]{2}")


def decoded_views(view: View, quotes: str = "") -> list[View]:
    """The view with every escape decoded once (none when it holds none); and when `\\\\u0041` stands
    in it, also read as a bare backslash before `\\u0041`, as a text escaping some characters may
    mean it."""
    text = view.text
    if not has_escape(text):
        return []
    views = [decoded_view(view, quotes)]
    if "\\" in text and BARE_BACKSLASH.search(text):
        views.append(decoded_view(view, quotes, pairs=False))
    return [found for found in views if found is not None]


def decoded_view(view: View, quotes: str = "", pairs: bool = True) -> View | None:
    """The view with every escape decoded once, or None when it holds none (`quotes`: the quotes a
    secret holds, whose backslash escapes are decoded too)."""
    text = view.text
    if not has_escape(text):
        return None
    pieces: list[str] = []
    starts: list[int] = []
    sources: list[tuple[int, int, bool]] = []
    out = 0
    end = 0
    pattern = escape_pattern(quotes, len(text) <= SHORT or not is_wide(text), pairs)
    for start, stop, character in _escapes(pattern, text):
        if start > end:
            starts.append(out)
            sources.append((end, start - end, True))
            pieces.append(text[end:start])
            out += start - end
        if character:
            starts.append(out)
            sources.append((start, stop - start, False))
            pieces.append(character)
            out += len(character)
        end = stop
    if not sources:
        return None
    if end < len(text):
        starts.append(out)
        sources.append((end, len(text) - end, True))
        pieces.append(text[end:])
    return View("".join(pieces), view, starts, sources)


Decoded = tuple[int, int, str]  # the span of an escape (or of several) and what it stands for


def _escapes(pattern: re.Pattern[str], text: str) -> Iterator[Decoded]:
    """Each escape's span and character; adjacent byte escapes (`%C3%A9`, `\\xc3\\xa9`) that form
    UTF-8 are one character, so a text mixing them with entities or `\\u` still reads as one."""
    pending: list[tuple[int, int, int]] = []  # adjacent byte escapes above ASCII: (start, stop, byte)
    for match in escape_matches(pattern, text):
        kind = match.lastgroup
        if kind in ("pct", "x") and int(match.group(kind), 16) >= 0x80:
            if pending and pending[-1][1] != match.start():
                yield from _utf8(pending)
                pending = []
            pending.append((match.start(), match.end(), int(match.group(kind), 16)))
            continue
        if pending:
            yield from _utf8(pending)
            pending = []
        character = _decoded(match)
        if character is not None:
            yield match.start(), match.end(), character
    yield from _utf8(pending)


def _utf8(escapes: list[tuple[int, int, int]]) -> Iterator[Decoded]:
    """Byte escapes as UTF-8 characters where they form one, else one Latin-1 character a byte."""
    index = 0
    while index < len(escapes):
        lead = escapes[index][2]
        size = 2 if 0xC2 <= lead <= 0xDF else 3 if 0xE0 <= lead <= 0xEF else 4 if 0xF0 <= lead <= 0xF4 else 1
        group = escapes[index : index + size]
        try:
            character = bytes(byte for _, _, byte in group).decode("utf-8") if size > 1 else chr(lead)
        except UnicodeDecodeError:
            group, character = group[:1], chr(lead)
        if len(group) < size and size > 1:
            group, character = group[:1], chr(lead)
        yield group[0][0], group[-1][1], character
        index += len(group)


def _decoded(match: re.Match[str]) -> str | None:
    kind = match.lastgroup
    value = match.group(kind) if kind else None
    if kind is None or value is None:
        return None
    if kind == "zero":
        return ""
    if kind == "char":
        return _BACKSLASHED.get(value, value)
    if kind == "named":
        return _ENTITIES.get(value if value.endswith(";") else value + ";") or _ENTITIES.get(value)
    code = int(value, _NUMERIC[kind])
    return chr(code) if code <= 0x10FFFF else None


_ALPHABET = "[A-Za-z0-9+/_-]"
# Line ends, real or written, each perhaps after blanks, then blanks: a lone CR too, which decoding a
# written `\r` (JSON's way of writing one) makes of it.
_BREAK = r"(?:[ \t]*+(?:\r\n?|\n|\\r\\n|\\n|\\r))++[ \t]*+"


@functools.lru_cache(maxsize=16)
def base64_run(shortest: int) -> re.Pattern[str]:
    """Base64 runs: lines joined by line breaks, or one run at least `shortest` long. Each starts where
    a run does, and takes it whole (no backtracking), so a long text costs one pass."""
    return re.compile(
        rf"(?<!{_ALPHABET})(?:{_ALPHABET}++(?:{_BREAK}{_ALPHABET}++)+|{_ALPHABET}{{{shortest},}})"
    )


_BREAKS = re.compile(r"\\[rn]|\s")
_URL_SAFE = str.maketrans("-_", "+/")


RunBytes = tuple[str, str, int, int]  # a base64 run's bytes (one a character), the run, where, and skip


def base64_run_view(view: View, decoded: RunBytes) -> View:
    """A run's decoded bytes as a view whose bytes map to the quanta of the run they came from."""
    text, run, offset, skip = decoded
    return View(text, view, run=run, offset=offset, skip=skip)


# The characters of both alphabets worth 32 or more: the first byte of each three a run of them decodes
# to is worth 128 or more, at whatever offset the run is read. Deleted with them, what may break a run
# into lines (blanks, line ends, a written `\n`): a run of nothing else is left out.
HIGH_VALUE_CHARACTERS = "ghijklmnopqrstuvwxyz0123456789+/-_"
_HIGH_VALUES = str.maketrans("", "", HIGH_VALUE_CHARACTERS + " \t\r\n\\")


def base64_runs(view: View, shortest: int, ascii_needles: bool = False) -> Iterator[RunBytes]:
    """Each base64 run of at least `shortest` characters in the view, decoded at each of the four
    offsets (both alphabets): its bytes, one a character, with the run, where it is in the view and
    the characters skipped (`base64_run_view` makes it a view: most runs are words, searched once
    and dropped, so none is made for them). With `ascii_needles` (every needle ASCII and 3 characters
    or more) a run of only characters worth 32 or more is left out: at every offset one byte in three
    of what it decodes to is 0x80 or more, so it holds no needle and no stretch of text (long digit
    strings, ids of digits and hyphens)."""
    text = view.text
    # With ASCII needles a run with no upper-case letter is left out below (single-case, or only
    # characters worth 32 or more): only runs holding one are looked for.
    spans = cased_run_spans(text, shortest) if ascii_needles else None
    for start, end in run_spans(base64_run(shortest), text, shortest) if spans is None else spans:
        if end - start < shortest:
            continue
        run = text[start:end]
        if run.islower() or run.isupper():  # base64 this long has both cases: a word, a UUID, hex
            continue
        if ascii_needles and not run.translate(_HIGH_VALUES):
            continue
        clean = _BREAKS.sub("", run).translate(_URL_SAFE) if not run.isalnum() else run
        if len(clean) < shortest:
            continue
        for offset, data in at_every_offset(clean):
            yield data.decode("latin-1"), run, start, offset


def at_every_offset(clean: str) -> Iterator[tuple[int, bytes]]:
    """A run of the standard alphabet (line breaks taken out) decoded from each of its first four
    characters on, a last lone character dropped and padding added: each offset and its bytes (none
    for an offset that does not decode to any)."""
    for offset in range(4):
        piece = clean[offset:]
        piece = piece[: len(piece) - 1] if len(piece) % 4 == 1 else piece + "=" * (-len(piece) % 4)
        try:
            data = binascii.a2b_base64(piece)
        except binascii.Error:
            continue
        if data:
            yield offset, data


def is_wide(text: str) -> bool:
    """Whether a text is UTF-16 or UTF-32 read one character a byte (a zero every few characters)."""
    return "\0" in text and text.count("\0") * 4 >= len(text)


def wide_views(view: View) -> Iterator[View]:
    """A wide text read one byte in two (UTF-16) or four (UTF-32) at each offset: the low bytes of
    Latin-1 characters, so the text's letters come back, each mapped to its bytes."""
    text = view.text
    if not is_wide(text):
        return
    for stride in (2, 4):
        for offset in range(stride):
            yield View(text[offset::stride], view, stride=stride, offset=offset)
