"""`header:NAME` in a match_on list: the named header's value decides a match, its name without regard
to case, an absent header a value of its own; a miss names the header that differs."""

from __future__ import annotations

import itertools

import pytest

from proxy.core.cassette.document import Cassette
from proxy.core.redaction.redact import RedactionPolicy
from proxy.core.replay.book import Miss, ReplayBook
from proxy.core.replay.matching import MatchPolicy, differences, request_key
from proxy.errors import UsageError
from tests.conftest import make_exchange, make_request

ENTRY = "/v2/extensions/wishlists/holiday-list"
NAMES = ["If-None-Match", "if-none-match", "IF-NONE-MATCH", "If-Match", "X-Trace"]
# What a request carries of the header: absent, empty, one value, another value, the value twice.
CARRIED: dict[str, tuple[str, ...] | None] = {
    "absent": None,
    "empty": ("",),
    "etag-1": ('W/"1"',),
    "etag-2": ('W/"2"',),
    "etag-1-twice": ('W/"1"', 'W/"1"'),
}


def request(header: str, carried: tuple[str, ...] | None, spelled: str | None = None) -> object:
    headers = tuple((spelled or header, value) for value in carried or ())
    return make_request("GET", path=ENTRY, headers=(("Accept", "application/json"), *headers))


@pytest.mark.parametrize(
    ("named", "sent", "first", "second"),
    [
        (named, sent, first, second)
        for named, sent in itertools.product(NAMES, NAMES)
        for first, second in itertools.combinations_with_replacement(CARRIED, 2)
    ],
)
def test_a_named_header_decides_whatever_its_case(named: str, sent: str, first: str, second: str) -> None:
    """Two requests match exactly when they carry the same value of the named header (absent is a
    value of its own, unlike empty), however either spells the name; other headers never count."""
    policy = MatchPolicy.parse(f"method,path,query,body,header:{named}")
    same_header = named.lower() == sent.lower()
    one = request_key(request(sent, CARRIED[first]), policy)  # type: ignore[arg-type]
    two = request_key(request(sent.swapcase(), CARRIED[second]), policy)  # type: ignore[arg-type]
    assert (one == two) is (first == second or not same_header)
    found = differences(request(sent, CARRIED[first]), request(sent, CARRIED[second]), policy)  # type: ignore[arg-type]
    assert [difference.where for difference in found] == (
        [f"header.{named}"] if same_header and first != second else []
    )


def test_without_header_in_match_on_headers_never_count() -> None:
    policy = MatchPolicy.parse("method,path,query,body")
    assert request_key(request("If-None-Match", ('W/"1"',)), policy) == request_key(  # type: ignore[arg-type]
        request("If-None-Match", None),
        policy,  # type: ignore[arg-type]
    )


@pytest.mark.parametrize("written", ["header:", "header: ", "header:If None", "HEADER:", "header:a:b"])
def test_a_header_with_no_usable_name_is_one_line(written: str) -> None:
    with pytest.raises(UsageError) as raised:
        MatchPolicy.parse(f"method,path,{written}")
    assert "\n" not in str(raised.value)
    assert "match_on" in str(raised.value) and "header:NAME" in str(raised.value)


def test_a_miss_names_the_header_expected_and_found() -> None:
    """A conditional read recorded, a plain read sent: the miss says which header differs and how."""
    conditional = make_exchange(request("If-None-Match", ('W/"1"',)), status=304)  # type: ignore[arg-type]
    policy = MatchPolicy.parse("method,path,query,body,header:If-None-Match")
    book = ReplayBook.build([("c.yaml", Cassette((conditional,)))], policy, RedactionPolicy())
    missed = book.respond(request("If-None-Match", None), "2025-01-01T00:00:00.000000Z")  # type: ignore[arg-type]
    assert isinstance(missed, Miss)
    assert [(d.where, d.expected, d.found) for d in missed.near[0].differences] == [
        ("header.If-None-Match", 'W/"1"', "(absent)")
    ]
