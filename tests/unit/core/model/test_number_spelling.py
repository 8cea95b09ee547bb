"""Every JSON number keeps the text it was sent as, whatever path the body takes: stored and read back,
written to a cassette and loaded, redacted, its links moved, journaled, edited, served.

Documents are drawn with their numbers as raw texts (`-0`, `1E2`, `0.10`, 30-digit integers...) nested
in objects and arrays in any key order; the expected writing is built from the same drawing, so the
whole document (keys, order, strings) is compared, not only the numbers.
"""

from __future__ import annotations

import pickle
import textwrap
from copy import deepcopy
from dataclasses import replace
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from proxy.core.cassette.document import Cassette, dump_cassette, parse_cassette
from proxy.core.cassette.journal_line import journal_line, parse_json_line
from proxy.core.editing.edits import parse_value, set_field
from proxy.core.model.bodies import body_from_bytes, body_to_bytes, dump_json, pretty_json
from proxy.core.model.exchange import Exchange, Request, Response, fresh_value
from proxy.core.model.json_text import SpelledFloat, SpelledInt
from proxy.core.model.links import OriginRewriter
from proxy.core.redaction.policy import RedactionPolicy
from proxy.core.redaction.redact import redact_exchange

# Many drawn cases over the same code: run, asserted, not traced (scripts/test's coverage
# step); other tests measure these lines.
pytestmark = pytest.mark.no_cover

JSON = (("Content-Type", "application/json"),)
UPSTREAM = "http://127.0.0.1:9000"
PROXY = "http://127.0.0.1:8080"

# Spellings a parser and writer pair changes: negative zero, exponents of every form, trailing zeros,
# more digits than a double holds, integers past 64 bits, tiny and huge magnitudes a double still holds.
NOTED = [
    "-0", "-0.0", "0.0", "-0.000", "1E2", "1e+02", "1E-2", "1e2", "2.5E+300", "1.0", "1.50", "100.0e0",
    "0.1000000000000000055511151231257827", "123456789012345678901234567890", "-98765432109876543210",
    "18446744073709551616", "9223372036854775807", "-9223372036854775809", "5e-324", "1.7976931348623157e308",
    "12345678.9", "0.000001", "1e-7", "-1E-0007", "3.14159265358979323846264338327950288",
]  # fmt: skip


class Number:
    """A number drawn as its text."""

    def __init__(self, text: str) -> None:
        self.text = text


def number_texts() -> st.SearchStrategy[str]:
    sign = st.sampled_from(["", "-"])
    whole = st.one_of(st.just("0"), st.from_regex(r"[1-9][0-9]{0,30}", fullmatch=True))
    fraction = st.one_of(st.just(""), st.from_regex(r"\.[0-9]{1,25}", fullmatch=True))
    exponent = st.one_of(st.just(""), st.from_regex(r"[eE][+-]?[0-9]{1,3}", fullmatch=True))
    built = st.tuples(sign, whole, fraction, exponent).map("".join)
    return st.one_of(st.sampled_from(NOTED), built).filter(_a_double_holds)


def _a_double_holds(text: str) -> bool:
    """Magnitudes past a double's range are kept as text bodies (tested elsewhere), not as JSON."""
    number = float(text)
    mantissa = text.lower().partition("e")[0]
    return number not in (float("inf"), float("-inf")) and not (number == 0.0 and mantissa.strip("-+0."))


KEYS = st.sampled_from(["id", "price", "zeta", "alpha", "total", "é", "n\\u", "links", "self", "x y"])
LEAVES = st.one_of(
    number_texts().map(Number),
    st.sampled_from([True, False, None, "text", "2026-01-01T00:00:00.000Z", "1.50", f"{UPSTREAM}/v2/x"]),
)
DOCUMENTS = st.recursive(
    LEAVES,
    lambda children: st.one_of(
        st.lists(children, max_size=5),
        st.lists(st.tuples(KEYS, children), max_size=5, unique_by=lambda pair: pair[0]),
    ),
    max_leaves=25,
)
CONTAINERS = st.one_of(
    st.lists(DOCUMENTS, min_size=1, max_size=4),
    st.lists(st.tuples(KEYS, DOCUMENTS), min_size=1, max_size=4, unique_by=lambda pair: pair[0]),
)


def written(drawn: Any, indent: int | None = None, level: int = 0) -> str:
    """The JSON text of a drawing: numbers as drawn, strings as orjson writes them."""
    if isinstance(drawn, Number):
        return drawn.text
    if isinstance(drawn, list):
        is_object = bool(drawn) and all(isinstance(item, tuple) for item in drawn)
        parts = [
            (f"{orjson.dumps(item[0]).decode()}:{' ' if indent else ''}" if is_object else "")
            + written(item[1] if is_object else item, indent, level + 1)
            for item in drawn
        ]
        opener, closer = ("{", "}") if is_object else ("[", "]")
        if not parts:
            return opener + closer
        if indent is None:
            return opener + ",".join(parts) + closer
        inner, outer = "\n" + "  " * (level + 1), "\n" + "  " * level
        return opener + inner + ("," + inner).join(parts) + outer + closer
    return orjson.dumps(drawn).decode()


def spaced(drawn: Any) -> bytes:
    """The text as an upstream may send it: spaces after separators, as Python's json does."""
    return written(drawn, indent=2).replace("\n", " ").encode()


def with_extras(drawn: list[Any], secret: bool, link: bool) -> list[Any]:
    """The drawing (an object) with a secret to redact and a link to move, before and after its keys."""
    pairs = [pair for pair in drawn if pair[0] not in ("access_token", "next")]
    if secret:
        pairs.insert(len(pairs) // 2, ("access_token", "s3cr3t-t0ken"))
    if link:
        pairs.append(("next", f"{UPSTREAM}/v2/products?page[offset]=1"))
    return pairs


def links_moved(drawn: Any, old: str = UPSTREAM, new: str = PROXY) -> Any:
    """The drawing with every string at the origin `old` moved to `new`."""
    if isinstance(drawn, str):
        return new + drawn[len(old) :] if drawn.startswith(old) else drawn
    if isinstance(drawn, tuple):
        return (drawn[0], links_moved(drawn[1], old, new))
    if isinstance(drawn, list):
        return [links_moved(item, old, new) for item in drawn]
    return drawn


def exchange_with(raw: bytes) -> Exchange:
    request = Request("POST", "/v2/things", "", JSON, body_from_bytes(raw, JSON))
    return Exchange(request, Response(200, JSON, body_from_bytes(raw, JSON)))


@settings(max_examples=200, deadline=None)
@given(CONTAINERS, st.booleans())
def test_a_stored_body_writes_back_every_number_as_sent(drawn: Any, compact: bool) -> None:
    """Parsed from the wire, written compact (replay's wire), indented (the cassette), journaled and read
    back, copied, pickled: the same text each time."""
    raw = written(drawn).encode() if compact else spaced(drawn)
    body = body_from_bytes(raw, JSON)
    assert body.kind == "json", raw
    expected = written(drawn)
    assert dump_json(body.value).decode() == expected
    assert body_to_bytes(body).decode() == expected
    assert pretty_json(body.value) == written(drawn, indent=2)
    assert dump_json(fresh_value(body)).decode() == expected
    assert dump_json(deepcopy(body.value)).decode() == expected
    assert dump_json(pickle.loads(pickle.dumps(body.value))).decode() == expected
    exchange = exchange_with(raw)
    line = journal_line(7, exchange)
    again = parse_json_line(line)["exchange"]["response"]["json"]
    assert dump_json(again).decode() == expected


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(KEYS, DOCUMENTS), min_size=1, max_size=4, unique_by=lambda p: p[0]),
    st.booleans(),
    st.booleans(),
)
def test_redacted_moved_saved_loaded_and_edited_bodies_keep_their_numbers(
    drawn: list[Any], secret: bool, link: bool
) -> None:
    """Redaction, link moving, the cassette's text and reading it back, and an edit elsewhere in the
    exchange re-write the document: every number is still spelled as sent."""
    document = with_extras(drawn, secret, link)
    raw = spaced(document)
    redacted = redact_exchange(exchange_with(raw), RedactionPolicy())
    text = dump_cassette(Cassette(upstream=UPSTREAM, exchanges=(redacted,)))
    expected_stored = [
        (key, "<redacted>") if key == "access_token" else (key, value) for key, value in document
    ]
    assert textwrap.indent(written(expected_stored, indent=2), " " * 6) in text
    loaded = parse_cassette(text, "spelling.yaml").exchanges[0]
    assert dump_json(loaded.response.body.value).decode() == written(expected_stored)
    moved = OriginRewriter(UPSTREAM, PROXY).json(loaded.response.body.value)
    served = links_moved(expected_stored)
    assert dump_json(moved).decode() == written(served)
    edited = set_field(loaded, "resp.json.added", parse_value("1.50E+1"))
    assert dump_json(edited.response.body.value).decode() == written(
        [*expected_stored, ("added", Number("1.50E+1"))]
    )


def test_a_respelled_number_is_still_the_number_to_checks() -> None:
    """Checks, arithmetic and comparisons see plain numbers: only the writing keeps the text."""
    body = body_from_bytes(b'{"offset": -0, "limit": 1E1, "big": 123456789012345678901234567890}', JSON)
    value = body.value
    assert isinstance(value, dict)
    assert value == {"offset": 0, "limit": 10.0, "big": 123456789012345678901234567890}
    assert isinstance(value["offset"], SpelledInt) and isinstance(value["limit"], SpelledFloat)
    assert value["offset"] + value["limit"] == 10.0 and type(value["offset"] + 1) is int
    assert (value["limit"] * 2, -value["offset"], repr(value["limit"])) == (20.0, 0, "1E1")
    canonical = body_from_bytes(b'{"a": 1.5, "b": -3, "c": 1e-7}', JSON).value
    assert canonical == {"a": 1.5, "b": -3, "c": 1e-7}
    assert isinstance(canonical, dict) and not any(
        isinstance(number, SpelledInt | SpelledFloat) for number in canonical.values()
    )


def test_a_replaced_body_value_keeps_spellings_it_was_given() -> None:
    """A body rebuilt from parts of a parsed one (as simulation and edits do) writes their spellings."""
    body = body_from_bytes(b'{"data": [{"price": 12.50}], "meta": {"total": 1E0}}', JSON)
    value = body.value
    assert isinstance(value, dict)
    rebuilt = replace(body, value={"data": deepcopy(value["data"]), "extra": value["meta"]})
    assert body_to_bytes(rebuilt) == b'{"data":[{"price":12.50}],"extra":{"total":1E0}}'
