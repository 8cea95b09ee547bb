"""A secret in base64 broken into lines is found whatever ends its lines (real or written line ends, a
lone CR, blanks before or after, blank lines) and whatever other escape a character of the run wears
(an entity, a percent escape, a JSON escape): decoding a written `\\r` makes a lone CR of it, which
once cut the run in two, so neither view held the whole token."""

from __future__ import annotations

import base64
import itertools

import pytest

from proxy.core.redaction.book import scrub_text

TOKEN = "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"
LINE_ENDS = [
    "\n", "\r\n", "\r", " \n", "\t\r\n ", "\n\n", "\r\r\n", "\n  ",
    "\\n", "\\r\\n", "\\r", " \\n", "\\r\\n  ", "\\n\\n",
]  # fmt: skip
ESCAPES = {
    "none": lambda character: character,
    "entity": lambda character: f"&#{ord(character)};",
    "hex entity": lambda character: f"&#x{ord(character):x};",
    "percent": lambda character: f"%{ord(character):02X}",
    "json": lambda character: f"\\u{ord(character):04x}",
}


def cases() -> list[tuple[str, str, str, int, bool]]:
    return [
        (end, name, alphabet, width, at)
        for end, name, alphabet, width, at in itertools.product(
            LINE_ENDS, ESCAPES, ("standard", "url-safe"), (8, 30, 76), (True, False)
        )
    ]


@pytest.mark.parametrize(("end", "escape", "alphabet", "width", "early"), cases())
def test_a_token_in_base64_lines_is_scrubbed(
    end: str, escape: str, alphabet: str, width: int, early: bool
) -> None:
    encoded = base64.b64encode(("x" + TOKEN + "y").encode()).decode()
    if alphabet == "url-safe":
        encoded = encoded.translate(str.maketrans("+/", "-_"))
    place = 12 if early else 30  # a character inside the token's part of the run wears an escape
    lines = [encoded[start : start + width] for start in range(0, len(encoded), width)]
    line, column = divmod(place, width)
    lines[line] = lines[line][:column] + ESCAPES[escape](lines[line][column]) + lines[line][column + 1 :]
    text = "before " + end.join(lines) + " after"
    scrubbed = scrub_text(text, frozenset([TOKEN]))
    assert scrubbed != text, (end, escape, alphabet, width)
    assert scrubbed.startswith("before ") and scrubbed.endswith(" after")
