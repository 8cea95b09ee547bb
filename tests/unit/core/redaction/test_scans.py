"""The secret search's fast scans find exactly what its regular expressions' `finditer` finds: every
escape of each escape pattern, every base64 run at each shortest length, on texts drawn from the
characters that start, end, break or join them (and non-ASCII ones, which take the pattern's way)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from proxy.core.redaction.decoding import base64_run, escape_pattern
from proxy.core.redaction.scans import cased_run_spans, escape_matches, run_spans

# Pieces that make escapes, partial escapes, base64 runs, line breaks (real and written), blanks.
PIECES = [
    "%", "%4", "%41", "%u0041", "%C3%A9", "&", "&#65;", "&#x41", "&amp;", "&amp", "&lt", "\\", "\\u0041",
    "\\u{41}", "\\x41", "\\n", "\\r\\n", "\\r", "\\t", "\\\\", "\n", "\r\n", "\r", " ", "\t", "\0",
    "\0\0", "a", "Z", "9", "+", "/", "_", "-", "=", "QUJDREVGR0g", "dG9rZW4tMTIzNDU2Nzg5MA",
    "abcdefghijklmnop", "ABCDEFGHIJKLMNOP", "\"", "'", ":", ",", "{", "}", "é", "€", "😀", "\x01",
]  # fmt: skip
texts = st.lists(st.sampled_from(PIECES), max_size=60).map("".join) | st.lists(
    st.sampled_from([piece for piece in PIECES if piece.isascii()]), max_size=60
).map("".join)  # ASCII only: the scans' own way, not the pattern's
PATTERNS = [
    (quotes, zeros, pairs)
    for quotes in ("", '"', "'", "\"'")
    for zeros in (True, False)
    for pairs in (True, False)
]


@settings(max_examples=300)
@given(texts, st.sampled_from(PATTERNS))
def test_escape_matches_are_finditers(text: str, which: tuple[str, bool, bool]) -> None:
    pattern = escape_pattern(*which)
    expected = [(match.span(), match.lastgroup) for match in pattern.finditer(text)]
    assert [(match.span(), match.lastgroup) for match in escape_matches(pattern, text)] == expected


@settings(max_examples=300)
@given(texts, st.integers(min_value=1, max_value=24))
def test_run_spans_are_finditers(text: str, shortest: int) -> None:
    pattern = base64_run(shortest)
    expected = [match.span() for match in pattern.finditer(text)]
    assert list(run_spans(pattern, text, shortest)) == expected


WORDS = [
    "description",
    "Product",
    "SKU-000010",
    "aBcDeFgH",
    "timestamps",
    "2026-01-01T00",
    "A",
    "xY",
    "Zz9+/",
]
cased_texts = texts | st.lists(st.sampled_from([*WORDS, " ", ":", '"', ",", "\n", "é"]), max_size=40).map(
    "".join
)


@settings(max_examples=500)
@given(cased_texts, st.integers(min_value=1, max_value=24))
def test_cased_run_spans_are_the_runs_holding_an_upper_case_letter(text: str, shortest: int) -> None:
    """The search with ASCII needles keeps only runs holding an upper-case letter (and a lower-case
    one): `cased_run_spans` finds those alone, and exactly those of `run_spans`, or declines."""
    found = cased_run_spans(text, shortest)
    spans = list(run_spans(base64_run(shortest), text, shortest))
    if found is None:
        assert not text.isascii() or "\\" in text or "\n" in text or "\r" in text
        return
    assert found == [(start, end) for start, end in spans if any(c.isupper() for c in text[start:end])]


@settings(max_examples=300)
@given(cased_texts, st.integers(min_value=1, max_value=24))
def test_base64_runs_with_ascii_needles_are_as_without_the_cased_scan(text: str, shortest: int) -> None:
    from proxy.core.redaction import decoding

    view = decoding.View(text)
    fast = list(decoding.base64_runs(view, shortest, ascii_needles=True))
    every = decoding.cased_run_spans
    try:
        decoding.cased_run_spans = lambda *_: None  # type: ignore[assignment]
        slow = list(decoding.base64_runs(view, shortest, ascii_needles=True))
    finally:
        decoding.cased_run_spans = every
    assert fast == slow


@pytest.mark.parametrize("shortest", [4, 8, 12, 16, 40])
@pytest.mark.parametrize(
    "joint",
    [
        "\n",
        "\r\n",
        "\n  ",
        "\r\n\t",
        "\\n",
        "\\r\\n",
        "\\r",
        " ",
        "\n\x01\n",
        "\r",
        "\r\r\n",
        ".",
        "",
        " \n",
        "\t\r",
        "\n\n",
        " \r \n ",
        "\n\r",
        " \\r",
        "\v",
        "\x85",
    ],
)
def test_runs_across_every_kind_of_line_end(shortest: int, joint: str) -> None:
    """Lines of base64 joined by each line end, at either end of the text and inside it."""
    line = "QUJDREVGR0hJSktMTU5PUFFS"
    for text in (line + joint + line, joint + line, line + joint, joint + line + joint + line + joint):
        pattern = base64_run(shortest)
        assert list(run_spans(pattern, text, shortest)) == [match.span() for match in pattern.finditer(text)]
