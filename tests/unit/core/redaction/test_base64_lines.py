"""A secret in base64 broken into lines is found whatever ends its lines (real or written line ends, a
lone CR, blanks before or after, blank lines) and whatever other escape a character of the run wears
(an entity, a percent escape, a JSON escape): decoding a written `\\r` makes a lone CR of it, which
once cut the run in two, so neither view held the whole token."""

from __future__ import annotations

import base64
import itertools

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


CASES = list(itertools.product(LINE_ENDS, ESCAPES, ("standard", "url-safe"), (8, 30, 76), (True, False)))


def lines_of_a_token(end: str, escape: str, alphabet: str, width: int, early: bool) -> str:
    """The token in base64 lines ended by `end`, one character of its part of the run escaped."""
    encoded = base64.b64encode(("x" + TOKEN + "y").encode()).decode()
    if alphabet == "url-safe":
        encoded = encoded.translate(str.maketrans("+/", "-_"))
    place = 12 if early else 30
    lines = [encoded[start : start + width] for start in range(0, len(encoded), width)]
    line, column = divmod(place, width)
    lines[line] = lines[line][:column] + ESCAPES[escape](lines[line][column]) + lines[line][column + 1 :]
    return "before " + end.join(lines) + " after"


def test_a_token_in_base64_lines_is_scrubbed_in_every_case() -> None:
    # One test over the whole table (840 cases): as many parametrized tests cost seconds of collection
    # and reporting for microseconds of work each. Every failing case is named.
    missed = []
    for case in CASES:
        text = lines_of_a_token(*case)
        scrubbed = scrub_text(text, frozenset([TOKEN]))
        if scrubbed == text or not (scrubbed.startswith("before ") and scrubbed.endswith(" after")):
            missed.append(case)
    assert len(CASES) == 840
    assert not missed, f"{len(missed)} of {len(CASES)} cases kept the token, e.g. {missed[:5]}"
