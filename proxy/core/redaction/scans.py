"""Where the secret search's two regular expressions match, found without running them over every
character when the text allows: what `finditer` would give, exactly, at a fraction of its cost.

Python's regular expressions try each pattern at every position of a text, about 35 ns a character
for the escape family's alternation and 25 for a base64 run: 150 and 100 us of a 4 KB JSON answer,
searched on every exchange once a secret is known. Both patterns can only start at a few characters,
so the text is searched for those with `str.find` and `bytes.find` (C loops over memory) and the
pattern is tried only there. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

# Every alternative of `decoding.escape_pattern` starts with one of these.
ESCAPE_STARTS = ("%", "&", "\\", "\0")

BASE64_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-"


def _marks() -> bytes:
    """An ASCII text's characters as what a base64 run's pattern sees of them: `a` in the alphabet,
    `n` and `r` the line breaks, `b` a backslash (the start of a written `\\n`), `s` a blank, `.` the
    rest."""
    table = bytearray(b"." * 256)
    for character in BASE64_ALPHABET:
        table[ord(character)] = ord("a")
    for character, mark in (("\n", "n"), ("\r", "r"), ("\\", "b"), (" ", "s"), ("\t", "s")):
        table[ord(character)] = ord(mark)
    return bytes(table)


_MARKS = _marks()
_LETTERS = re.compile(rb"a*")
_LINE_ENDS = re.compile(rb"n+")
_LETTER = ord("a")


def escape_matches(pattern: re.Pattern[str], text: str) -> Iterator[re.Match[str]]:
    """`pattern.finditer(text)` for a pattern whose every match starts with one of ESCAPE_STARTS: the
    pattern is tried where one stands, in order, past the end of the last match, as finditer does."""
    places: list[int] = []
    for start in ESCAPE_STARTS:
        at = text.find(start)
        while at != -1:
            places.append(at)
            at = text.find(start, at + 1)
    end = 0
    for at in sorted(places):
        if at < end:
            continue
        match = pattern.match(text, at)
        if match is not None:
            end = match.end()
            yield match


def run_spans(pattern: re.Pattern[str], text: str, shortest: int) -> Iterator[tuple[int, int]]:
    """The spans of `pattern.finditer(text)` for `decoding.base64_run(shortest)`. In an ASCII text
    where no line end stands between two characters of the alphabet, blanks aside (and no backslash,
    which may write one), its matches are the runs of the alphabet at least `shortest` long, each whole; they
    are found with `bytes.find` on the text's marks. Any other text goes to the pattern."""
    plain = _plain_runs(text)
    if plain is not None:
        marks = plain[1]
        least = b"a" * shortest
        at = marks.find(least)
        while at != -1:
            letters = _LETTERS.match(marks, at)
            end = letters.end() if letters is not None else at + shortest  # `a*` always matches
            yield at, end
            at = marks.find(least, end)
        return
    for match in pattern.finditer(text):
        yield match.span()


def _plain_runs(text: str) -> tuple[bytes, bytes] | None:
    """The text's ASCII bytes and marks when its runs are the alphabet's runs, whole (ASCII, no
    backslash, no line end between two of the alphabet's characters); else None: the pattern's way."""
    if not text.isascii():
        return None
    data = text.encode("ascii")
    marks = data.translate(_MARKS)
    if b"b" in marks or _joins_lines(marks):
        return None
    return data, marks


def _upper_marks() -> bytes:
    """`_marks` with the upper-case letters marked `U`, and every other character that is no letter of
    the alphabet `.`: what ends a run is then one mark, found with `bytes.rfind` and `bytes.find`."""
    table = bytearray(b"." * 256)
    for character in BASE64_ALPHABET:
        table[ord(character)] = ord("U" if character.isupper() else "a")
    return bytes(table)


_UPPER_MARKS = _upper_marks()


def cased_run_spans(text: str, shortest: int) -> list[tuple[int, int]] | None:
    """Of `run_spans`' spans, the ones holding an upper-case letter, found from those letters rather
    than from every run: in an English or JSON text most runs are lower-case words (`description`,
    `timestamps`), which a short secret's low `shortest` makes runs, and the search drops each.
    None when `run_spans` would take the pattern's way (the text is not ASCII, or may join lines)."""
    plain = _plain_runs(text)
    if plain is None:
        return None
    upper = plain[0].translate(_UPPER_MARKS)
    spans: list[tuple[int, int]] = []
    at = upper.find(b"U")
    while at != -1:
        start = upper.rfind(b".", 0, at) + 1
        end = upper.find(b".", at)
        end = len(upper) if end == -1 else end
        if end - start >= shortest:
            spans.append((start, end))
        at = upper.find(b"U", end)
    return spans


def _joins_lines(marks: bytes) -> bool:
    """Whether blanks and line ends (`\\n` or `\\r`), at least one line end, stand between two
    alphabet characters: where `decoding._BREAK` joins two lines of a run. Without the blanks and with
    one mark for both line ends, that is a run of `n` between two `a`; each run is found with
    `bytes.find` from the end of the last, so the text is read once however many lines it has."""
    if b"n" not in marks and b"r" not in marks:  # most answers: compact JSON, one line
        return False
    squeezed = marks.replace(b"s", b"").replace(b"r", b"n")
    at = squeezed.find(b"n")
    while at != -1:
        run = _LINE_ENDS.match(squeezed, at)
        end = run.end() if run is not None else at + 1  # `n+` matches where an `n` stands
        if at > 0 and squeezed[at - 1] == _LETTER and squeezed[end : end + 1] == b"a":
            return True
        at = squeezed.find(b"n", end)
    return False
