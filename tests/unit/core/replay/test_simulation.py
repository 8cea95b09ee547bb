"""The simulator's pure core: link spelling, what the recordings cover, state through a session."""

from __future__ import annotations

from typing import Any

from proxy.core.cassette.document import Cassette
from proxy.core.model.exchange import Exchange
from proxy.core.redaction.redact import RedactionPolicy
from proxy.core.replay.book import Answer, Miss, ReplayBook
from proxy.core.replay.matching import MatchPolicy
from proxy.core.replay.simulation.answers import Simulated, stamp_like
from proxy.core.replay.simulation.lists import LinkStyle
from tests.conftest import json_body, make_exchange, make_request

AUTH = (("Authorization", "Bearer t"),)
NOW = "2026-11-22T10:11:12.345678Z"


def page(
    offset: int, records: list[int], total: int, method: str, limit: int = 3, style: str = ""
) -> Exchange:
    """A recorded page of /v2/flows/x/entries with relative, bracket-encoded links in an unusual order."""

    def link(at: int) -> str:
        return f"/flows/x/entries?page%5Boffset%5D={at}&page%5Blimit%5D={limit}{style}"

    more = offset + len(records) < total
    document: dict[str, Any] = {
        "data": [{"id": str(number)} for number in records],
        "links": {
            "current": link(offset),
            "first": link(0),
            "last": link(max((-(-total // limit)) - 1, 0) * limit),
            "prev": link(max(offset - limit, 0)) if offset else None,
            "next": link(offset + limit) if more else None,
        },
        "meta": {
            "page": {
                "limit": limit,
                "offset": offset,
                "current": offset // limit + 1,
                "total": -(-total // limit),
            },
            "results": {"total": total, "total_method": method},
        },
    }
    request = make_request(path="/v2/flows/x/entries", query=f"page[limit]={limit}&page[offset]={offset}")
    return make_exchange(request, body=json_body(document))


def book_of(*exchanges: Exchange) -> ReplayBook:
    return ReplayBook.build([("c", Cassette(exchanges))], MatchPolicy(), RedactionPolicy(), simulate=True)


def ask(book: ReplayBook, query: str) -> Answer | Simulated | Miss:
    return book.respond(make_request(path="/v2/flows/x/entries", query=query, headers=AUTH), NOW)


def test_links_keep_the_recorded_spelling_order_and_relative_form() -> None:
    book = book_of(page(0, [0, 1, 2], 7, "exact"), page(3, [3, 4, 5], 7, "exact"), page(6, [6], 7, "exact"))
    result = ask(book, "page[limit]=2&page[offset]=2")
    assert isinstance(result, Simulated)
    document: Any = result.response.body.value
    assert [record["id"] for record in document["data"]] == ["2", "3"]
    assert document["links"] == {
        "current": "/flows/x/entries?page%5Boffset%5D=2&page%5Blimit%5D=2",
        "first": "/flows/x/entries?page%5Boffset%5D=0&page%5Blimit%5D=2",
        "last": "/flows/x/entries?page%5Boffset%5D=6&page%5Blimit%5D=2",
        "prev": "/flows/x/entries?page%5Boffset%5D=0&page%5Blimit%5D=2",
        "next": "/flows/x/entries?page%5Boffset%5D=4&page%5Blimit%5D=2",
    }
    assert document["meta"] == {
        "page": {"limit": 2, "offset": 2, "current": 2, "total": 4},
        "results": {"total": 7, "total_method": "exact"},
    }
    assert set(result.sources) == {0, 1}  # the two recorded pages it drew on


def test_lower_bound_lists_answer_only_inside_what_was_recorded() -> None:
    """A count never known exactly: a window inside the recordings works, one past them is refused."""
    book = book_of(page(0, [0, 1, 2], 100, "lower_bound"), page(3, [3, 4, 5], 100, "lower_bound"))
    inside = ask(book, "page[limit]=4&page[offset]=1")
    assert isinstance(inside, Simulated)
    assert inside.response.body.value["meta"]["results"] == {"total": 100, "total_method": "lower_bound"}  # type: ignore[index,call-overload]
    past = ask(book, "page[limit]=4&page[offset]=4")
    assert isinstance(past, Miss) and past.reason is not None
    assert "records 0-5 of at least 100, not record 6" in past.reason
    assert book.misses[("GET", "/v2/flows/x/entries?page[limit]=4&page[offset]=4")].count == 1


def test_a_lower_bound_at_the_ten_thousand_cap_stays_there_past_it() -> None:
    """api-notes: lower_bound counts up to 10,000. Pages recorded past 10,000 saying 10,000: a window
    between them says 10,000 too, not the records shown (which a bound below them would need)."""
    book = book_of(
        page(10_002, [10_002, 10_003, 10_004], 10_000, "lower_bound"),
        page(10_005, [10_005, 10_006, 10_007], 10_000, "lower_bound"),
    )
    inside = ask(book, "page[limit]=4&page[offset]=10003")
    assert isinstance(inside, Simulated)
    assert inside.response.body.value["meta"]["results"] == {"total": 10_000, "total_method": "lower_bound"}  # type: ignore[index,call-overload]


def test_observed_lists_need_to_know_whether_records_follow() -> None:
    """`observed` totals say one more record exists; the window ending there cannot tell beyond it."""
    book = book_of(page(0, [0, 1, 2], 4, "observed"))
    known = ask(book, "page[limit]=2&page[offset]=0")
    assert isinstance(known, Simulated)
    assert known.response.body.value["meta"]["results"]["total"] == 3  # type: ignore[index,call-overload]
    unknown = ask(book, "page[limit]=3&page[offset]=1")
    assert isinstance(unknown, Miss) and "not record 3" in (unknown.reason or "")


def test_a_recorded_request_is_answered_by_its_recording_and_a_reset_forgets_simulated_changes() -> None:
    feature = "/v2/subscriptions/features/3f8e2a4c-9b1d-4c6e-8f0a-1b2c3d4e5f60"
    identifier = feature.rsplit("/", 1)[1]
    state = {
        "id": identifier,
        "type": "subscription_feature",
        "attributes": {"name": "One", "configuration": {"type": "access", "tag": "a"}},
        "meta": {
            "owner": "store",
            "timestamps": {"created_at": "2024-01-01T00:00:00Z", "updated_at": "2024-01-01T00:00:00Z"},
        },
    }
    sent = {"data": {"id": identifier, "type": "subscription_feature", "attributes": {"name": "One"}}}
    recorded = make_exchange(
        make_request("PUT", feature, body=json_body(sent), headers=AUTH), body=json_body({"data": state})
    )
    book = book_of(recorded)
    assert isinstance(book.respond(recorded.request, NOW), Answer)
    rename = {"data": {"id": identifier, "type": "subscription_feature", "attributes": {"name": "Two"}}}
    changed = book.respond(make_request("PUT", feature, body=json_body(rename), headers=AUTH), NOW)
    assert isinstance(changed, Simulated)
    assert changed.response.body.value["data"]["attributes"]["name"] == "Two"  # type: ignore[index,call-overload]
    assert changed.response.body.value["data"]["meta"]["timestamps"]["updated_at"] == "2026-11-22T10:11:12Z"  # type: ignore[index,call-overload]
    # The feature changed by simulation: its recording is stale, so even the recorded request is simulated.
    again = book.respond(recorded.request, NOW)
    assert isinstance(again, Simulated)
    assert again.response.body.value["data"]["attributes"]["name"] == "One"  # type: ignore[index,call-overload]
    unauthorised = book.respond(make_request("PUT", feature, body=json_body(rename)), NOW)
    assert isinstance(unauthorised, Simulated) and unauthorised.response.status == 401
    book.reset()
    assert isinstance(book.respond(recorded.request, NOW), Answer)


def test_timestamps_keep_the_recorded_precision() -> None:
    assert stamp_like("2017-01-10T11:41:19.244842Z", NOW) == NOW
    assert stamp_like("2024-01-01T00:00:00.123Z", NOW) == "2026-11-22T10:11:12.345Z"
    assert stamp_like("2024-01-01T00:00:00Z", NOW) == "2026-11-22T10:11:12Z"
    assert stamp_like("2024-01-01T00:00:00+00:00", NOW) == NOW
    assert stamp_like(None, NOW) == NOW


def test_link_style_adds_page_parameters_the_recording_left_out() -> None:
    """The JS SDK leaves page[offset]=0 out; a link to another offset needs it."""
    style = LinkStyle.of({"current": "https://h/v2/products?page[limit]=5&sort=id"})
    assert style is not None
    assert style.link(5, 0) == "https://h/v2/products?page[limit]=5&sort=id"
    assert style.link(5, 10) == "https://h/v2/products?page[limit]=5&sort=id&page[offset]=10"
