"""Explaining a miss is bounded: however large the request and however many recordings, the comparison
stops at its work budget and still names the nearest recordings it compared."""

from __future__ import annotations

from urllib.parse import parse_qsl

import pytest

from proxy.core.cassette.document import Cassette
from proxy.core.model.exchange import Body, Request
from proxy.core.redaction.redact import RedactionPolicy
from proxy.core.replay import matching
from proxy.core.replay.book import ReplayBook
from proxy.core.replay.matching import EXPLAIN_BUDGET, MAX_FORM_PAIRS, MatchPolicy
from tests.conftest import json_body, make_exchange, make_request


def shapes() -> list[tuple[int, int, int, str]]:
    """(recordings, parameters in the missing request's query, leaves in its JSON body, method): small
    and large of each, the issue's 3,000 recordings against 6,000 parameters among them."""
    drawn = []
    for recordings in (1, 50, 3_000):
        for parameters in (0, 40, 6_000):
            for leaves in (0, 5_000):
                drawn.append((recordings, parameters, leaves, "GET" if leaves == 0 else "POST"))
    return drawn


def book_of(recordings: int, parameters: int, method: str) -> ReplayBook:
    query = "&".join(f"p{number}=r" for number in range(min(parameters, 50)))
    body = json_body({"data": {"n": 0}}) if method == "POST" else None
    exchanges = tuple(
        make_exchange(
            Request(method, "/v2/products", f"{query}&id={number}", (), body)
            if body is not None
            else make_request(method, "/v2/products", f"{query}&id={number}")
        )
        for number in range(recordings)
    )
    return ReplayBook.build([("c.yaml", Cassette(exchanges))], MatchPolicy(), RedactionPolicy())


@pytest.mark.parametrize(("recordings", "parameters", "leaves", "method"), shapes())
def test_a_miss_is_explained_within_its_budget(
    recordings: int, parameters: int, leaves: int, method: str
) -> None:
    book = book_of(recordings, parameters, method)
    query = "&".join(f"p{number}=x{number}" for number in range(parameters)) or "id=none"
    body = json_body({"data": {f"k{number}": number for number in range(leaves)}}) if leaves else None
    request = (
        Request(method, "/v2/products", query, (), body)
        if body
        else make_request(method, "/v2/products", query)
    )
    miss = book.missed(request, None)
    assert 0 < miss.work <= EXPLAIN_BUDGET
    assert 1 <= len(miss.near) <= 3  # the nearest of those compared are still named
    assert all(near.differences for near in miss.near)


@pytest.mark.parametrize("fields", [1, 9_999, 10_000, 200_000])
def test_a_form_of_any_size_is_matched_and_its_miss_explained_within_the_budget(
    fields: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A form is compared field by field up to MAX_FORM_PAIRS and as its text past that: the same form
    still finds its recording, a miss is explained within the budget either way, and matching never
    splits more than a few forms' worth of fields (the work a request can demand is bounded)."""
    split: list[int] = []

    def counted(text: str, **options: bool) -> list[tuple[str, str]]:
        pairs = parse_qsl(text, **options)
        split.append(len(pairs))
        return pairs

    monkeypatch.setattr(matching, "parse_qsl", counted)
    form = (("Content-Type", "application/x-www-form-urlencoded"),)
    text = "&".join(f"f{number}=v{number}" for number in range(fields))
    recorded = make_exchange(Request("POST", "/v2/forms", "", form, Body("text", text)))
    book = ReplayBook.build([("c.yaml", Cassette((recorded,)))], MatchPolicy(), RedactionPolicy())
    assert book.holds(Request("POST", "/v2/forms", "", form, Body("text", text)))
    other = Request("POST", "/v2/forms", "", form, Body("text", text + "&extra=1"))
    assert not book.holds(other)
    miss = book.missed(other, None)
    assert 0 < miss.work <= EXPLAIN_BUDGET and miss.near
    assert fields >= MAX_FORM_PAIRS or any(d.where == "body.extra" for d in miss.near[0].differences)
    assert sum(split) <= 10 * MAX_FORM_PAIRS, sum(split)
