"""A base64 run made only of characters worth 32 or more (g-z, digits, `+/-_`, line breaks aside)
decodes, at every offset, to bytes one in three of which is 0x80 or more: it cannot hold an ASCII
needle of 3 characters or more, nor the stretch of text that would send the search deeper. So when
every needle is one, the search leaves such runs out (`base64_runs(ascii_needles=True)`), and what it
finds is what it finds without leaving them out."""

from __future__ import annotations

import base64
import urllib.parse

from hypothesis import given, settings
from hypothesis import strategies as st

from proxy.core.redaction import encodings
from proxy.core.redaction.decoding import HIGH_VALUE_CHARACTERS, View, at_every_offset, base64_runs
from proxy.core.redaction.encodings import TEXT_STRETCH

high_runs = st.text(alphabet=HIGH_VALUE_CHARACTERS, min_size=4, max_size=200)


@settings(max_examples=500)
@given(high_runs)
def test_a_run_of_high_characters_decodes_to_no_three_ascii_bytes_at_any_offset(run: str) -> None:
    for offset, data in at_every_offset(run.translate(str.maketrans("-_", "+/"))):
        assert all(byte >= 0x80 for byte in data[::3]), (run, offset)
        text = data.decode("latin-1")
        assert not any(all(ord(c) < 0x80 for c in text[at : at + 3]) for at in range(len(text) - 2))
        assert TEXT_STRETCH.search(text) is None


# Texts of ids and numbers that are such runs, beside secrets in encodings the search decodes.
SECRET = "tok3nAbCdEfGhIjKlMnOpQrStUv"
ENCODED = [
    SECRET,
    base64.b64encode(SECRET.encode()).decode(),
    base64.urlsafe_b64encode(b"x" + SECRET.encode()).decode(),
    base64.b64encode(urllib.parse.quote(SECRET, safe="").encode()).decode(),
    base64.b64encode(base64.b64encode(SECRET.encode())).decode(),
    urllib.parse.quote(base64.b64encode(SECRET.encode()).decode(), safe=""),
]
PIECES = [
    *ENCODED,
    "00000000-0000-4000-8000-000000000000",
    "1234567890123456789012345678901234",
    "zzzz0000yyyy1111xxxx2222wwww3333vvvv",
    "ghijklmnopqrstuvwxyz0123456789+/-_ghij",
    "9999\n9999\r\n8888 7777\\n6666",
    " ",
    '", "',
    "\n",
    "Benchmark catalogue ",
]
texts = st.lists(st.sampled_from(PIECES), min_size=1, max_size=12).map("".join)


def spans(text: str, values: frozenset[str], leave_out: bool) -> list[tuple[int, int]]:
    plan = encodings.search_plan(values)
    assert plan[-1] is True  # every needle of this secret is ASCII and long enough
    found: list[tuple[int, int]] = []
    encodings._search(View(text), (*plan[:-1], leave_out), encodings.DEPTH, found)
    return sorted(set(found))


@settings(max_examples=300, deadline=None)
@given(texts)
def test_leaving_high_runs_out_finds_the_same_spans(text: str) -> None:
    values = frozenset([SECRET])
    assert spans(text, values, True) == spans(text, values, False)


def test_a_high_run_is_left_out_only_when_asked() -> None:
    text = "1234567890123456789012345678901234"
    assert list(base64_runs(View(text), 8, ascii_needles=False))
    assert not list(base64_runs(View(text), 8, ascii_needles=True))


def test_a_needle_that_is_not_ascii_or_is_short_keeps_every_run() -> None:
    assert encodings.search_plan(frozenset(["clé-secrète-0123456789"]))[-1] is False
    assert encodings.search_plan(frozenset(["ab"]))[-1] is False
    assert encodings.search_plan(frozenset([SECRET]))[-1] is True
