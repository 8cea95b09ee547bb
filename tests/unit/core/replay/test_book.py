"""The replay book: recorded order, repeating the last answer, rewinding, several cassettes, near misses."""

from __future__ import annotations

from proxy.core.cassette.document import Cassette
from proxy.core.model.exchange import Body, Request
from proxy.core.redaction.redact import PLACEHOLDER, RedactionPolicy
from proxy.core.replay.book import ReplayBook
from proxy.core.replay.matching import MatchPolicy
from tests.conftest import json_body, make_exchange, make_request

ENTRY = make_request(path="/v2/extensions/wishlists/1")


def book_of(*cassettes: Cassette) -> ReplayBook:
    named = [(f"c{position}", cassette) for position, cassette in enumerate(cassettes)]
    return ReplayBook.build(named, MatchPolicy(), RedactionPolicy())


def answers(book: ReplayBook, request: Request, times: int) -> list[object]:
    found = []
    for _ in range(times):
        answer = book.answer(request)
        assert answer is not None
        found.append(answer.recording.exchange.response.body.value)
    return found


def test_same_request_answered_in_recorded_order_then_last_repeats() -> None:
    """A read before and after an update gets both versions; past the end the last one repeats."""
    book = book_of(
        Cassette((make_exchange(ENTRY, body=json_body("v1")), make_exchange(ENTRY, body=json_body("v2"))))
    )
    assert answers(book, ENTRY, 4) == ["v1", "v2", "v2", "v2"]


def test_running_out_is_flagged_once() -> None:
    """Only the first repeat asks to be logged."""
    book = book_of(Cassette((make_exchange(ENTRY),)))
    flags = []
    for _ in range(3):
        answer = book.answer(ENTRY)
        assert answer is not None
        flags.append((answer.repeated, answer.first_repeat))
    assert flags == [(False, False), (True, True), (True, False)]


def test_reset_rewinds_every_sequence() -> None:
    """After reset the first recorded answer comes again."""
    book = book_of(
        Cassette((make_exchange(ENTRY, body=json_body("v1")), make_exchange(ENTRY, body=json_body("v2"))))
    )
    answers(book, ENTRY, 2)
    book.reset()
    assert answers(book, ENTRY, 1) == ["v1"]


def test_several_cassettes_answer_in_the_order_given() -> None:
    """The first cassette's recordings come first, then the next cassette's."""
    book = book_of(
        Cassette((make_exchange(ENTRY, body=json_body("first")),)),
        Cassette((make_exchange(ENTRY, body=json_body("second")),)),
    )
    assert answers(book, ENTRY, 3) == ["first", "second", "second"]


def test_real_secrets_match_redacted_recordings() -> None:
    """A client sending its real secret matches the recording whose secret was redacted."""
    form = (("Content-Type", "application/x-www-form-urlencoded"),)
    recorded = make_request(
        "POST",
        "/oauth/access_token",
        headers=form,
        body=Body("text", f"client_id=a&client_secret={PLACEHOLDER}"),
    )
    book = book_of(Cassette((make_exchange(recorded),)))
    incoming = make_request(
        "POST", "/oauth/access_token", headers=form, body=Body("text", "client_id=a&client_secret=xyz")
    )
    assert book.answer(incoming) is not None
    assert (
        book.answer(
            make_request(
                "POST",
                "/oauth/access_token",
                headers=form,
                body=Body("text", "client_id=b&client_secret=xyz"),
            )
        )
        is None
    )


def test_fields_redacted_by_unknown_settings_are_ignored_too() -> None:
    """A JSON field recorded as the placeholder matches any value, even without the setting that redacted it."""
    recorded = make_request("PUT", body=json_body({"data": {"pin": PLACEHOLDER, "n": 1}}))
    book = book_of(Cassette((make_exchange(recorded),)))
    assert book.answer(make_request("PUT", body=json_body({"data": {"pin": "1234", "n": 1}}))) is not None
    assert book.answer(make_request("PUT", body=json_body({"data": {"pin": "1234", "n": 2}}))) is None


def test_closest_prefers_same_route_and_fewest_differences() -> None:
    """Near misses come nearest first, at most three, with their differences."""
    recorded = [
        make_exchange(make_request(query=f"page[offset]={offset}&page[limit]=10")) for offset in (0, 10, 20)
    ] + [make_exchange(make_request(path="/v2/orders", query="page[offset]=30&page[limit]=10"))]
    book = book_of(Cassette(tuple(recorded)))
    near = book.closest(make_request(query="page[offset]=30&page[limit]=20"))
    assert [miss.recording.index for miss in near] == [0, 1, 2]
    assert [d.where for d in near[0].differences] == ["query.page[limit]", "query.page[offset]"]
