"""The sandbox against hand-written expectations from the documentation (no rule code involved)."""

from __future__ import annotations

from typing import Any

import aiohttp
import pytest

from tests.conftest import sandbox_token

FEATURE_ID = "3f8e2a4c-9b1d-4c6e-8f0a-1b2c3d4e5f60"
FEATURE = f"/v2/subscriptions/features/{FEATURE_ID}"
ENTRY = "/v2/extensions/wishlists/5b0f6a52-3a8e-4f65-9d4c-0e6f1a2b3c4d"


class Client:
    def __init__(self, session: aiohttp.ClientSession, base: str, token: str) -> None:
        self.session, self.base, self.token = session, base, token

    async def call(self, method: str, target: str, body: Any = None, **headers: str) -> tuple[int, Any, Any]:
        sent = {"Authorization": f"Bearer {self.token}", **headers}
        async with self.session.request(method, self.base + target, json=body, headers=sent) as answer:
            return answer.status, await answer.json(), answer.headers


@pytest.fixture
async def client(sandbox_url: str) -> Any:
    async with aiohttp.ClientSession() as session:
        yield Client(session, sandbox_url, await sandbox_token(session, sandbox_url))


def envelope(
    base: str,
    path: str,
    limit: int,
    links: dict[str, int | None],
    page: dict[str, int],
    results: dict[str, Any],
    extra: str = "",
) -> dict[str, Any]:
    def link(offset: int | None) -> str | None:
        return None if offset is None else f"{base}{path}?page[limit]={limit}&page[offset]={offset}{extra}"

    return {
        "links": {name: link(offset) for name, offset in links.items()},
        "meta": {"page": page, "results": results},
    }


def without_data(body: dict[str, Any]) -> dict[str, Any]:
    assert list(body) == ["data", "links", "meta"]
    return {"links": body["links"], "meta": body["meta"]}


def names(body: dict[str, Any]) -> list[str]:
    return [record["name"] for record in body["data"]]


async def test_offset_not_on_a_page_boundary(client: Client) -> None:
    """Offset 3 with limit 5 of 12 brands: records 4 to 8, page 1 of 3, prev at 0, next at 8."""
    status, body, _ = await client.call("GET", "/v2/brands?page[limit]=5&page[offset]=3")
    assert status == 200
    assert names(body) == ["brand 4", "brand 5", "brand 6", "brand 7", "brand 8"]
    assert without_data(body) == envelope(
        client.base,
        "/v2/brands",
        5,
        {"current": 3, "first": 0, "last": 10, "prev": 0, "next": 8},
        {"limit": 5, "offset": 3, "current": 1, "total": 3},
        {"total": 12, "all": 12, "total_method": "exact"},
    )


@pytest.mark.parametrize(("offset", "current", "prev"), [(12, 3, 7), (50, 11, 45)])
async def test_offset_at_or_past_the_total(client: Client, offset: int, current: int, prev: int) -> None:
    """At or past the end: no records, no next, the envelope still complete."""
    status, body, _ = await client.call("GET", f"/v2/brands?page[limit]=5&page[offset]={offset}")
    assert status == 200 and body["data"] == []
    assert without_data(body) == envelope(
        client.base,
        "/v2/brands",
        5,
        {"current": offset, "first": 0, "last": 10, "prev": prev, "next": None},
        {"limit": 5, "offset": offset, "current": current, "total": 3},
        {"total": 12, "all": 12, "total_method": "exact"},
    )


async def test_empty_list_keeps_the_whole_envelope(client: Client) -> None:
    """An empty result still has every pagination field, with the default page length 25."""
    status, body, _ = await client.call("GET", "/v2/flows/empty-flow/entries")
    assert status == 200 and body["data"] == []
    assert without_data(body) == envelope(
        client.base,
        "/v2/flows/empty-flow/entries",
        25,
        {"current": 0, "first": 0, "last": 0, "prev": None, "next": None},
        {"limit": 25, "offset": 0, "current": 1, "total": 0},
        {"total": 0, "all": 0, "total_method": "exact"},
    )


async def test_exact_falls_back_to_lower_bound_above_ten_thousand(client: Client) -> None:
    """10,300 products with total_method=exact: the answer says lower_bound, total 10,000."""
    status, body, _ = await client.call("GET", "/v2/products?page[total_method]=exact&page[limit]=100")
    assert status == 200 and len(body["data"]) == 100
    assert without_data(body) == envelope(
        client.base,
        "/v2/products",
        100,
        {"current": 0, "first": 0, "last": 9900, "prev": None, "next": 100},
        {"limit": 100, "offset": 0, "current": 1, "total": 100},
        {"total": 10000, "all": 10300, "total_method": "lower_bound"},
        extra="&page[total_method]=exact",
    )


async def test_observed_with_more_records(client: Client) -> None:
    """observed reports one more than the current page when more records exist."""
    _, body, _ = await client.call("GET", "/v2/customers?page[total_method]=observed&page[limit]=50")
    assert without_data(body) == envelope(
        client.base,
        "/v2/customers",
        50,
        {"current": 0, "first": 0, "last": 50, "prev": None, "next": 50},
        {"limit": 50, "offset": 0, "current": 1, "total": 2},
        {"total": 51, "all": 240, "total_method": "observed"},
        extra="&page[total_method]=observed",
    )


async def test_observed_without_more_records(client: Client) -> None:
    """On the last page observed is the exact count, and there is no next page."""
    _, body, _ = await client.call(
        "GET", "/v2/customers?page[total_method]=observed&page[limit]=50&page[offset]=200"
    )
    assert len(body["data"]) == 40
    assert without_data(body) == envelope(
        client.base,
        "/v2/customers",
        50,
        {"current": 200, "first": 0, "last": 200, "prev": 150, "next": None},
        {"limit": 50, "offset": 200, "current": 5, "total": 5},
        {"total": 240, "all": 240, "total_method": "observed"},
        extra="&page[total_method]=observed",
    )


async def test_limit_150_is_clamped_to_100(client: Client) -> None:
    """The maximum page length is 100."""
    _, body, _ = await client.call("GET", "/v2/customers?page[limit]=150")
    assert len(body["data"]) == 100 and body["meta"]["page"]["limit"] == 100
    assert body["links"]["next"] == f"{client.base}/v2/customers?page[limit]=100&page[offset]=100"


async def test_hard_offset_limit_on_orders_and_files_only(client: Client) -> None:
    """Offsets past 10,000 are refused on /v2/orders and /v2/files, served elsewhere."""
    assert (await client.call("GET", "/v2/orders?page[limit]=100&page[offset]=10000"))[0] == 200
    for path in ("/v2/orders", "/v2/files"):
        status, body, _ = await client.call("GET", f"{path}?page[offset]=10001")
        assert status == 400 and body["errors"][0]["source"] == "page[offset]"
    status, body, _ = await client.call("GET", "/v2/products?page[offset]=10200")
    assert status == 200 and len(body["data"]) == 25


@pytest.mark.parametrize(
    "query",
    [
        "page[limit]=abc",
        "page[offset]=1.5",
        "page[limit]=0",
        "page[offset]=-1",
        "page[total_method]=fast",
        "sort=name",
        "filter=gt(created_at)",
    ],
)
async def test_bad_page_parameters_are_refused(client: Client, query: str) -> None:
    """Non-integer or out-of-range page parameters, unknown methods, sorts and filters get 400."""
    status, body, _ = await client.call("GET", f"/v2/brands?{query}")
    assert status == 400 and body["errors"][0]["status"] == "400"


async def test_sort_and_filter_walk(client: Client) -> None:
    """sort=created_at with gt() skips records sharing the last timestamp; ge() finds them again.

    Accounts come in groups of three sharing a created_at (1-3, 4-6, 7-9...); ties sort by id.
    """
    _, first, _ = await client.call("GET", "/v2/accounts?sort=created_at&page[limit]=4")
    last = first["data"][-1]["meta"]["timestamps"]["created_at"]
    _, after, _ = await client.call(
        "GET", f"/v2/accounts?sort=created_at&page[limit]=4&filter=gt(created_at,{last})"
    )
    _, again, _ = await client.call(
        "GET", f"/v2/accounts?sort=created_at&page[limit]=4&filter=ge(created_at,{last})"
    )
    group_b = {"account 4", "account 5", "account 6"}
    assert set(names(first)) - group_b == {"account 1", "account 2", "account 3"}
    skipped = group_b - set(names(first))
    assert len(skipped) == 2
    assert not skipped & set(names(after))
    assert {"account 7", "account 8", "account 9"} < set(names(after))
    assert skipped < set(names(again)) and names(again)[0] in group_b
    assert after["meta"]["results"] == {"total": 69, "all": 75, "total_method": "exact"}
    stamps = [record["meta"]["timestamps"]["created_at"] for record in after["data"]]
    assert stamps == sorted(stamps) and min(stamps) > last


async def test_bearer_token_is_required(client: Client) -> None:
    """Every documented operation answers 401 without a valid bearer token."""
    for method, target in (("GET", "/v2/products"), ("PUT", FEATURE), ("GET", ENTRY)):
        async with client.session.request(method, client.base + target) as answer:
            assert answer.status == 401
        async with client.session.request(
            method, client.base + target, headers={"Authorization": "Bearer nope"}
        ) as answer:
            assert answer.status == 401
            assert (await answer.json())["errors"][0]["detail"] == "Unable to validate access token"


async def test_wrong_client_secret_gets_no_token(sandbox_url: str) -> None:
    """Client credentials are checked."""
    async with aiohttp.ClientSession() as session:
        form = {"grant_type": "client_credentials", "client_id": "sandbox-client", "client_secret": "wrong"}
        async with session.post(f"{sandbox_url}/oauth/access_token", data=form) as answer:
            assert answer.status == 401


def update(attributes: dict[str, Any], **data: Any) -> dict[str, Any]:
    return {"data": {"id": FEATURE_ID, "type": "subscription_feature", "attributes": attributes, **data}}


async def test_feature_partial_update_semantics(client: Client) -> None:
    """Only given attributes change; null removes description; empty attributes change nothing."""
    status, renamed, _ = await client.call("PUT", FEATURE, update({"name": "Premium plus"}))
    assert status == 200
    assert renamed["data"]["attributes"] == {
        "name": "Premium plus",
        "description": "Priority answers from the support team.",
        "external_ref": "crm-feature-001",
        "configuration": {"type": "access", "tag": "premium_support"},
    }
    _, removed, _ = await client.call("PUT", FEATURE, update({"description": None, "external_ref": None}))
    assert removed["data"]["attributes"] == {
        "name": "Premium plus",
        "configuration": {"type": "access", "tag": "premium_support"},
    }
    _, same, _ = await client.call("PUT", FEATURE, update({}))
    assert same == removed
    assert same["data"]["meta"]["owner"] == "store"


@pytest.mark.parametrize(
    ("payload", "sources"),
    [
        (update({"name": "ab"}), ["data.attributes.name"]),
        (
            update({"description": "x" * 1025, "external_ref": "x" * 2049}),
            ["data.attributes.description", "data.attributes.external_ref"],
        ),
        (update({"configuration": {"type": "access"}}), ["data.attributes.configuration.tag"]),
        (
            update({"configuration": {"type": "gift", "tag": "a b"}}),
            ["data.attributes.configuration.type", "data.attributes.configuration.tag"],
        ),
        (
            update({"configuration": {"type": "usage", "tag": "x" * 65}}),
            ["data.attributes.configuration.tag"],
        ),
        (update({"name": None}), ["data.attributes.name"]),
        (update({}, id="feature-1"), ["data.id"]),
        (update({}, type="feature"), ["data.type"]),
        ({"data": {"type": "subscription_feature", "attributes": {}}}, ["data.id"]),
    ],
)
async def test_invalid_feature_updates_are_refused(
    client: Client, payload: dict[str, Any], sources: list[str]
) -> None:
    """Each broken constraint is a 400 error naming its source; the feature is unchanged."""
    status, body, _ = await client.call("PUT", FEATURE, payload)
    assert status == 400
    assert [error["source"] for error in body["errors"]] == sources
    assert {error["title"] for error in body["errors"]} == {"Validation Error"}


async def test_entry_etag_is_weak_etag_id_and_changes_on_update(client: Client) -> None:
    """ETag is W/"<etag_id>"; a PUT changes etag_id and resource_version; a stale If-Match gets 412."""
    status, entry, headers = await client.call("GET", ENTRY)
    assert status == 200 and headers["ETag"] == f'W/"{entry["data"]["meta"]["etag_id"]}"'
    assert entry["data"]["type"] == "wishlist_ext" and len(entry["data"]["meta"]["etag_id"]) == 64
    status, changed, new_headers = await client.call(
        "PUT", ENTRY, {"data": {"type": "wishlist_ext", "items_count": 9}}, **{"If-Match": headers["ETag"]}
    )
    assert status == 200 and changed["data"]["items_count"] == 9
    assert new_headers["ETag"] != headers["ETag"]
    assert new_headers["ETag"] == f'W/"{changed["data"]["meta"]["etag_id"]}"'
    assert changed["data"]["meta"]["resource_version"] == entry["data"]["meta"]["resource_version"] + 1
    status, refused, _ = await client.call(
        "PUT", ENTRY, {"data": {"type": "wishlist_ext", "items_count": 1}}, **{"If-Match": headers["ETag"]}
    )
    assert status == 412 and refused["errors"][0]["title"] == "Precondition Failed"


async def test_an_older_store_defaults_to_100_per_page(serve: Any) -> None:
    """Limits: older stores may still have the previous default page length of 100."""
    from proxy.sandbox.app import SandboxSettings, create_sandbox_app

    url = await serve(create_sandbox_app(SandboxSettings(default_page_length=100)))
    async with aiohttp.ClientSession() as session:
        token = await sandbox_token(session, url)
        async with session.get(f"{url}/v2/customers", headers={"Authorization": f"Bearer {token}"}) as answer:
            body = await answer.json()
    assert len(body["data"]) == 100 and body["meta"]["page"]["limit"] == 100


async def test_lower_bound_past_ten_thousand_still_reports_ten_thousand(client: Client) -> None:
    """api-notes: lower_bound counts up to 10,000; a page at offset 10,010 of 10,300 products says
    total 10,000 (the documentation's "at least" holds), with a next page and no error from check."""
    status, body, _ = await client.call("GET", "/v2/products?page[limit]=10&page[offset]=10010")
    assert status == 200 and len(body["data"]) == 10
    assert body["meta"]["results"] == {"total": 10000, "all": 10300, "total_method": "lower_bound"}
    assert body["links"]["next"] is not None


async def test_the_inventory_list_answers_at_the_real_path_too(client: Client) -> None:
    """/v2/inventories, the real service's path, lists what /v2/inventory does."""
    _, documented, _ = await client.call("GET", "/v2/inventory?page[limit]=5")
    status, real, _ = await client.call("GET", "/v2/inventories?page[limit]=5")
    assert status == 200
    assert real["data"] == documented["data"] and real["meta"] == documented["meta"]


async def test_published_behaviour_where_the_documentation_is_silent(client: Client) -> None:
    """What the published specs show and commerce-api.md does not rule out: a payload whose data.id
    is another UUID updates the path's feature; a promotion configuration with its tags in
    promotions[] is accepted; documented filter examples (like on accounts, eq on files) work."""
    other = "3f8e2a4c-9b1d-4c6e-8f0a-000000000000"
    status, updated, _ = await client.call("PUT", FEATURE, update({"name": "Premium plus"}, id=other))
    assert status == 200 and updated["data"]["id"] == FEATURE_ID
    promotion = {"type": "promotion", "promotions": [{"name": "Gold tier", "tag": "gold"}]}
    status, promoted, _ = await client.call("PUT", FEATURE, update({"configuration": promotion}))
    assert status == 200 and promoted["data"]["attributes"]["configuration"] == promotion
    bad = {"type": "promotion", "promotions": [{"name": "Gold tier", "tag": "a b"}]}
    status, refused, _ = await client.call("PUT", FEATURE, update({"configuration": bad}))
    assert status == 400
    assert [error["source"] for error in refused["errors"]] == [
        "data.attributes.configuration.promotions[0].tag"
    ]
    status, accounts, _ = await client.call("GET", "/v2/accounts?filter=like(name,*unt 1*)")
    assert status == 200 and {record["name"] for record in accounts["data"]} >= {"account 1", "account 10"}
    assert all("unt 1" in record["name"] for record in accounts["data"])
    status, files, _ = await client.call("GET", "/v2/files?filter=eq(file_name,file-7.png)")
    assert status == 200 and [record["file_name"] for record in files["data"]] == ["file-7.png"]
    status, _, _ = await client.call("GET", "/v2/files?filter=eq(colour,red)")
    assert status == 400


async def test_the_seeded_features_have_each_published_configuration_shape(client: Client) -> None:
    """access with a tag, promotion with promotions[], usage with tag, label and default_value."""
    shapes = {}
    for feature_id in (
        "3f8e2a4c-9b1d-4c6e-8f0a-1b2c3d4e5f60",
        "7a1b2c3d-4e5f-4a6b-9c7d-8e9f0a1b2c3d",
        "c0ffee00-1234-4abc-8def-0123456789ab",
    ):
        payload = {"data": {"id": feature_id, "type": "subscription_feature", "attributes": {}}}
        status, body, _ = await client.call("PUT", f"/v2/subscriptions/features/{feature_id}", payload)
        assert status == 200
        configuration = body["data"]["attributes"]["configuration"]
        shapes[configuration["type"]] = set(configuration)
    assert shapes == {
        "access": {"type", "tag"},
        "promotion": {"type", "promotions"},
        "usage": {"type", "tag", "label", "default_value"},
    }


async def test_a_path_with_a_trailing_slash_is_the_same_operation(client: Any) -> None:
    """Every route, spelled with a trailing slash, answers as without it (the rules and the README treat
    `/v2/accounts/` as `/v2/accounts`): the same status and the same records."""
    from proxy.sandbox.datasets import LIST_ALIASES, LIST_SIZES

    targets = [f"/v2/{name}?page[limit]=2" for name in (*LIST_SIZES, *LIST_ALIASES)]
    targets += ["/v2/flows/wishlist-extras/entries?page[limit]=2", ENTRY]
    for target in targets:
        path, _, query = target.partition("?")
        plain = await client.call("GET", target)
        slashed = await client.call("GET", f"{path}/" + (f"?{query}" if query else ""))
        assert slashed[0] == plain[0] == 200, (target, slashed[:2])
        assert slashed[1]["data"] == plain[1]["data"], target
    status, _, _ = await client.call(
        "PUT", FEATURE + "/", {"data": {"type": "subscription_feature", "id": FEATURE_ID, "attributes": {}}}
    )
    assert status == 200
