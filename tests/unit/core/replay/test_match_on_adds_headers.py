"""`header:NAME` entries add to the fields in force: the fields a match_on list names (or all four when it
names none) still decide, so `--match-on header:If-None-Match` never lets a recording of another method
or path answer a request. Every surface (replay, record, the plugin's option, ini and marker) builds its
policy with `MatchPolicy.parse`, so the table here covers each of them."""

from __future__ import annotations

import itertools

import pytest

from proxy.core.cassette.document import Cassette
from proxy.core.redaction.redact import RedactionPolicy
from proxy.core.replay.book import Miss, ReplayBook
from proxy.core.replay.matching import MATCH_FIELDS, MatchPolicy
from tests.conftest import make_exchange, make_request

HEADER_LISTS = [(), ("If-None-Match",), ("If-None-Match", "If-Match")]
SUBSETS = [
    fields for size in range(len(MATCH_FIELDS) + 1) for fields in itertools.combinations(MATCH_FIELDS, size)
]


@pytest.mark.parametrize(
    ("fields", "headers", "headers_first"),
    [
        (fields, headers, first)
        for fields in SUBSETS
        for headers in HEADER_LISTS
        for first in (False, True)
        if headers or not first
    ],
)
def test_header_entries_add_to_the_named_fields_or_to_the_defaults(
    fields: tuple[str, ...], headers: tuple[str, ...], headers_first: bool
) -> None:
    named = [f"header:{name}" for name in headers]
    written = ",".join([*named, *fields] if headers_first else [*fields, *named])
    policy = MatchPolicy.parse(written)
    assert policy.on == frozenset(fields or MATCH_FIELDS)
    assert policy.headers == headers


@pytest.mark.parametrize(
    "written", ["header:If-None-Match", "HEADER:if-none-match", "header:If-None-Match,header:If-Match"]
)
def test_a_list_of_headers_alone_never_answers_another_method_or_path(written: str) -> None:
    """The outsider's case: a token exchange recorded, `GET /v2/brands` sent: a miss that names the
    method and path, not the token endpoint's answer."""
    token = make_exchange(make_request("POST", path="/oauth/access_token"))
    book = ReplayBook.build([("c.yaml", Cassette((token,)))], MatchPolicy.parse(written), RedactionPolicy())
    missed = book.respond(make_request("GET", path="/v2/brands"), "2025-01-01T00:00:00.000000Z")
    assert isinstance(missed, Miss)
    assert [difference.where for difference in missed.near[0].differences][:2] == ["method", "path"]
