"""Answers compared by meaning: each kind of difference lands in the tier the API's rules give it."""

from __future__ import annotations

from typing import Any

from proxy.core.drift.compare import compare_exchanges, compare_responses, is_drift
from proxy.core.drift.pairing import pair_cassettes
from proxy.core.model.exchange import Body, Exchange, Request, Response

JSON = (("Content-Type", "application/json"),)


def answer(document: Any, status: int = 200, headers: tuple[tuple[str, str], ...] = JSON) -> Response:
    return Response(status, headers, Body("json", document))


def feature(**attributes: Any) -> dict[str, Any]:
    base = {"name": "Gold", "description": "Perks", "configuration": {"type": "access", "tag": "gold"}}
    meta = {"owner": "store", "timestamps": {"created_at": "2024-01-01T00:00:00.000Z"}}
    return {
        "data": {
            "id": "f1",
            "type": "subscription_feature",
            "attributes": {**base, **attributes},
            "meta": meta,
        }
    }


def tiers(old: Response, new: Response) -> dict[str, str]:
    return {item.where: item.tier for item in compare_responses(old, new)}


def test_the_same_answer_has_no_difference() -> None:
    assert compare_responses(answer(feature()), answer(feature())) == []


def test_each_kind_of_change_lands_in_its_tier() -> None:
    renamed_field = feature()
    renamed_field["data"]["attributes"]["title"] = renamed_field["data"]["attributes"].pop("name")
    assert tiers(answer(feature()), answer(renamed_field)) == {
        "json.data.attributes.name": "breaking",
        "json.data.attributes.title": "additive",
    }
    assert tiers(answer(feature()), answer(feature(name="Platinum"))) == {"json.data.attributes.name": "data"}
    assert tiers(answer(feature()), answer(feature(name=7))) == {"json.data.attributes.name": "breaking"}
    assert tiers(answer(feature()), answer(feature(description=None))) == {
        "json.data.attributes.description": "data"
    }
    later = feature()
    later["data"]["meta"]["timestamps"]["created_at"] = "2024-06-01T00:00:00.000Z"
    assert tiers(answer(feature()), answer(later)) == {"json.data.meta.timestamps.created_at": "volatile"}


def test_status_content_type_and_body_kind() -> None:
    assert tiers(answer(feature()), answer(feature(), status=400)) == {"status": "breaking"}
    assert tiers(answer(feature()), answer(feature(), status=201)) == {"status": "data"}
    text = Response(200, (("Content-Type", "text/plain"),), Body("text", "x"))
    assert tiers(answer(feature()), text) == {"headers.Content-Type": "breaking", "body": "breaking"}


def test_an_etag_is_volatile_while_it_agrees_with_etag_id_and_breaking_when_its_form_changes() -> None:
    def entry(etag_id: str, etag: str) -> Response:
        return answer({"data": {"meta": {"etag_id": etag_id}}}, headers=(*JSON, ("ETag", etag)))

    moved = tiers(entry("a1", 'W/"a1"'), entry("b2", 'W/"b2"'))
    assert moved == {"headers.ETag": "volatile", "json.data.meta.etag_id": "volatile"}
    assert tiers(entry("a1", 'W/"a1"'), entry("a1", '"a1"'))["headers.ETag"] == "breaking"
    assert tiers(entry("a1", 'W/"a1"'), entry("b2", 'W/"zz"'))["headers.ETag"] == "data"


def test_a_lower_bound_total_at_the_cap_and_a_created_id_are_volatile() -> None:
    def page(total: int) -> Response:
        return answer({"data": [], "meta": {"results": {"total": total, "total_method": "lower_bound"}}})

    assert tiers(page(9_990), page(10_000)) == {"json.meta.results.total": "volatile"}
    assert tiers(page(9_000), page(9_100)) == {"json.meta.results.total": "data"}
    created = Request("POST", "/v2/things")
    made = compare_exchanges(
        Exchange(created, answer({"data": {"id": "one"}}, status=201), "2024-01-01T00:00:00Z"),
        Exchange(created, answer({"data": {"id": "two"}}, status=201), "2024-02-01T00:00:00Z"),
    )
    assert {item.where: item.tier for item in made} == {"json.data.id": "volatile", "recorded_at": "volatile"}
    assert not is_drift(made)


def test_lists_compare_item_by_item_and_say_when_their_length_changed() -> None:
    old = answer({"data": [{"name": "a"}, {"name": "b"}]})
    new = answer({"data": [{"name": "a"}, {"name": "c"}, {"name": "d"}]})
    assert tiers(old, new) == {"json.data[1].name": "data", "json.data.length": "data"}


def test_cassettes_pair_the_kth_recording_of_a_request_with_the_kth() -> None:
    def read(target: str, name: str) -> Exchange:
        path, _, query = target.partition("?")
        return Exchange(Request("GET", path, query), answer({"name": name}))

    a = [read("/v2/x", "1"), read("/v2/x", "2"), read("/v2/gone", "g")]
    b = [read("/v2/new", "n"), read("/v2/x", "1"), read("/v2/x", "3")]
    diff = pair_cassettes(a, b)
    assert [(pair.index_a, pair.index_b) for pair in diff.pairs] == [(0, 1), (1, 2)]
    assert [item.tier for item in diff.pairs[1].differences] == ["data"]
    assert [(item.index, item.request) for item in diff.added] == [(0, "GET /v2/new")]
    assert [(item.index, item.request) for item in diff.removed] == [(2, "GET /v2/gone")]
    assert diff.drifted
