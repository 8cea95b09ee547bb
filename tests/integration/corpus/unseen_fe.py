"""Subscription feature and custom API entry traffic, with the operations around them as noise.

Sources (public repositories, commit as read):
- EPC: elasticpath/epcc-cli @ 6fdb53595b8f53588b3e347b4ba0b8ddaa2745d4: external/runbooks/subscriptions.epcc.yml
  (the values the CLI's runbook creates a feature with: "Premium Access", access, tag `premium`) and
  external/openapi/specs/subscriptions.yaml (the CLI's copy of the features API: list answers `data` and
  `links`; FeatureAttributes examples "Digital library access"). The answers are written here from them.
- DEV: elasticpath/elasticpath-dev @ 33ab00fe67e95e70872fa68329919548a33c152d (November 2024):
  openapispecs/commerceextensions/OpenAPISpec.yaml (entry create, list, read, update answers; the read
  without etag_id; the update that sends items_count 1 and shows 0, a real mistake of the page) and
  guides/How-To/commerce-extensions/create-a-multilocation-inventories-resource.md (the
  location_inventory_ext entry, PUT with If-Match).
"""

from __future__ import annotations

from typing import Any

from proxy.core.model.exchange import Exchange
from tests.integration.corpus.unseen_base import NOTE, TRUE, Unseen
from tests.unit.core.exchanges import BEARER, JSON_TYPE, exchange

UNDOCUMENTED = "coverage.undocumented-endpoint"
FEATURE_ID = "9a4c6f0e-2b7d-4e1a-8c3f-5d6e7f8a9b0c"
FEATURES = "/v2/subscriptions/features"
FEATURE = f"{FEATURES}/{FEATURE_ID}"
CREATED = "2024-11-06T13:23:16.512Z"
PREMIUM = {
    "name": "Premium Access",
    "description": "Premium Access",
    "configuration": {"type": "access", "tag": "premium"},
}
LIBRARY = "Access to over 100 ebooks via the digital library."


def feature(updated: str = CREATED, feature_id: str = FEATURE_ID, **attributes: Any) -> dict[str, Any]:
    values = {**PREMIUM, **attributes}
    return {
        "id": feature_id,
        "type": "subscription_feature",
        "attributes": {name: value for name, value in values.items() if value is not None},
        "meta": {"owner": "store", "timestamps": {"created_at": CREATED, "updated_at": updated}},
    }


def put(attributes: dict[str, Any], answer: dict[str, Any], status: int = 200) -> Exchange:
    sent = {"data": {"id": FEATURE_ID, "type": "subscription_feature", "attributes": attributes}}
    return exchange("PUT", FEATURE, status=status, sent=sent, body=answer)


WISHLIST_ID = "7e067539-6f6c-46e1-8c55-940031b36c6a"
WISHLIST = f"/v2/extensions/wishlists/{WISHLIST_ID}"
FIRST_TAG = "5feceb66ffc86f38d952786c6d696c79c2dbc239dd4e91b46729d73a27fb57e9"
SECOND_TAG = "6b86b273ff34fce19d6b804eff5a3f5747ada4eaa22f1d49c01e52ddb7875b4b"
STAMP = "2017-01-10T11:41:19.244Z"


def tagged(tag: str) -> tuple[tuple[str, str], ...]:
    return (*JSON_TYPE, ("ETag", f'W/"{tag}"'))


def wishlist(version: int, tag: str | None, items: int = 0) -> dict[str, Any]:
    meta: dict[str, Any] = {
        "timestamps": {"updated_at": STAMP, "created_at": STAMP},
        "data_size": 6,
        "resource_version": version,
    }
    if tag is not None:
        meta["etag_id"] = tag
    return {
        "id": WISHLIST_ID,
        "type": "wishlist_ext",
        "name": "My Wishlist",
        "items_count": items,
        "keep_purchased": False,
        "links": {"self": f"/extensions/wishlists/{WISHLIST_ID}"},
        "meta": meta,
    }


def read(path: str, record: dict[str, Any], tag: str | None) -> Exchange:
    headers = JSON_TYPE if tag is None else tagged(tag)
    return exchange("GET", path, body={"data": record}, response_headers=headers)


INVENTORY_ID = "2f0c3a3e-8b6a-4d4e-9a57-5c3f9e1d2b11"
INVENTORY = f"/v2/extensions/location-inventories/{INVENTORY_ID}"
INVENTORY_TAGS = (
    "d4735e3a265e16eee03f59718b9b5d03019c07d8b6c51f90da3a666eec13ab35",
    "4e07408562bedb8b60ce05c1decfe3ad16b72230967de01f640b7e4729b49fce",
)


def inventory(amount: int, version: int) -> dict[str, Any]:
    return {
        "id": INVENTORY_ID,
        "type": "location_inventory_ext",
        "slug": "ABC123",
        "location-name": "Hamptons",
        "collection-name": "Timeless",
        "amount": amount,
        "links": {"self": f"/extensions/location-inventories/{INVENTORY_ID}"},
        "meta": {
            "timestamps": {"created_at": STAMP, "updated_at": STAMP},
            "data_size": 5,
            "resource_version": version,
            "etag_id": INVENTORY_TAGS[version],
        },
    }


def entries_page(records: list[dict[str, Any]]) -> dict[str, Any]:
    page = "/extensions/wishlists?page[limit]=100&page[offset]=0"
    return {
        "data": records,
        "meta": {
            "page": {"limit": 100, "offset": 0, "current": 1, "total": 1},
            "results": {"total": len(records)},
        },
        "links": {"current": page, "first": page, "last": page, "next": None, "prev": None},
    }


FEATURE_SESSION = [
    exchange(
        "POST",
        FEATURES,
        status=201,
        sent={"data": {"type": "subscription_feature", "attributes": PREMIUM}},
        body={"data": feature()},
    ),
    exchange("GET", FEATURE, body={"data": feature()}),
    put({"description": LIBRARY}, {"data": feature("2024-11-06T13:25:02.118Z", description=LIBRARY)}),
    exchange(
        "GET",
        FEATURES,
        body={
            "data": [feature("2024-11-06T13:25:02.118Z", description=LIBRARY)],
            "links": {"self": f"{FEATURES}"},
        },
    ),
]
ENTRY_SESSION = [
    exchange(
        "POST",
        "/v2/extensions/wishlists",
        status=201,
        response_headers=tagged(FIRST_TAG),
        sent={
            "data": {"type": "wishlist_ext", "name": "My Wishlist", "items_count": 0, "keep_purchased": False}
        },
        body={"data": wishlist(0, FIRST_TAG)},
    ),
    read(WISHLIST, wishlist(0, FIRST_TAG), FIRST_TAG),
    exchange(
        "PUT",
        WISHLIST,
        response_headers=tagged(SECOND_TAG),
        request_headers=(*BEARER, ("If-Match", f'W/"{FIRST_TAG}"')),
        sent={
            "data": {"type": "wishlist_ext", "name": "My Wishlist", "items_count": 1, "keep_purchased": False}
        },
        body={"data": wishlist(1, SECOND_TAG)},
    ),
    read(WISHLIST, wishlist(1, SECOND_TAG), SECOND_TAG),
]
INVENTORY_SESSION = [
    exchange(
        "PUT",
        INVENTORY,
        response_headers=tagged(INVENTORY_TAGS[1]),
        request_headers=(*BEARER, ("If-Match", f'W/"{INVENTORY_TAGS[0]}"')),
        sent={"data": {"type": "location_inventory_ext", "amount": 3}},
        body={"data": inventory(3, 1)},
    ),
    read(INVENTORY, inventory(3, 1), INVENTORY_TAGS[1]),
]
LIST_THEN_READ = [
    exchange("GET", "/v2/extensions/wishlists", body=entries_page([wishlist(0, FIRST_TAG)])),
    read(WISHLIST, wishlist(0, FIRST_TAG), FIRST_TAG),
]

FEATURES_ENTRIES: dict[str, Unseen] = {
    "EPC feature: created, read, its description updated, listed": Unseen(
        "EPC external/runbooks/subscriptions.epcc.yml (create-offering's feature values), external/openapi/specs/subscriptions.yaml",
        FEATURE_SESSION,
        [(0, UNDOCUMENTED, "request", NOTE), (1, UNDOCUMENTED, "request", NOTE), (3, UNDOCUMENTED, "request", NOTE)],
    ),
    "EPC feature update: description removed by null": Unseen(
        "EPC external/openapi/specs/subscriptions.yaml (FeatureUpdateAttributes: description nullable)",
        [put({"description": None}, {"data": feature("2024-11-06T13:30:00.001Z", description=None)})],
    ),
    "EPC feature update: the configuration replaced, a promotion feature's extra fields": Unseen(
        "EPC external/runbooks/subscriptions.epcc.yml (create-offering-promotion), external/openapi/specs/subscriptions.yaml",
        [
            put(
                {"configuration": {"type": "promotion", "tag": "subscriber-discount"}},
                {"data": feature("2024-11-06T13:31:00.000Z", configuration={"type": "promotion", "tag": "subscriber-discount", "promotions": [{"name": "Subscriber Discount", "tag": "subscriber-discount"}]})},
            )
        ],
    ),
    "EPC feature update refused: 400 Validation Error (a tag with a space)": Unseen(
        "EPC external/openapi/specs/subscriptions.yaml (ValidationError)",
        [
            put(
                {"configuration": {"type": "access", "tag": "premium access"}},
                {"errors": [{"status": "400", "title": "Validation Error", "detail": "data.attributes.configuration.tag: Does not match pattern"}]},
                status=400,
            )
        ],
        [(0, "feature.update.payload", "data.attributes.configuration.tag", TRUE), (0, "coverage.error-body", "body", NOTE)],
    ),
    "EPC feature update of an unknown feature: 404": Unseen(
        "EPC external/openapi/specs/subscriptions.yaml (NotFoundError)",
        [put({"name": "Premium"}, {"errors": [{"status": "404", "title": "Not Found", "detail": "feature not found"}]}, status=404)],
        [(0, "coverage.error-body", "body", NOTE)],
    ),
    "EPC feature update without a token: 401": Unseen(
        "EPC docs/tutorial.md (a request before `epcc login`), api-notes 401 body",
        [
            exchange(
                "PUT", FEATURE, status=401, request_headers=JSON_TYPE,
                sent={"data": {"id": FEATURE_ID, "type": "subscription_feature", "attributes": {"name": "Premium"}}},
                body={"errors": [{"status": 401, "title": "Unauthorized", "detail": "Unable to validate access token"}]},
            )
        ],
        [(0, "auth.bearer.missing", "headers.Authorization", TRUE), (0, "coverage.error-body", "body", NOTE)],
    ),
    "DEV wishlist entry: created, read, updated with If-Match, read again": Unseen(
        "DEV openapispecs/commerceextensions/OpenAPISpec.yaml (CreateACustomEntry, GetACustomEntry, UpdateACustomEntry examples)",
        ENTRY_SESSION,
        [(0, UNDOCUMENTED, "request", NOTE), (2, UNDOCUMENTED, "request", NOTE)],
    ),
    "DEV wishlist entry read without etag_id (the page's GET example)": Unseen(
        "DEV openapispecs/commerceextensions/OpenAPISpec.yaml (GetACustomEntry example, ETag as its header text gives it)",
        [read(WISHLIST, wishlist(0, None), FIRST_TAG)],
        [(0, "entry.etag-id.absent", "data.meta.etag_id", NOTE)],
    ),
    "DEV location inventory entry: PUT with If-Match, then read": Unseen(
        "DEV guides/How-To/commerce-extensions/create-a-multilocation-inventories-resource.md",
        INVENTORY_SESSION, [(0, UNDOCUMENTED, "request", NOTE)],
    ),
    "DEV wishlist entries listed, then one read": Unseen(
        "DEV openapispecs/commerceextensions/OpenAPISpec.yaml (GetAllCustomEntries example, relative links)",
        LIST_THEN_READ, [(0, UNDOCUMENTED, "request", NOTE)],
    ),
    "DEV entry update refused: 412 Precondition Failed": Unseen(
        "DEV openapispecs/commerceextensions/OpenAPISpec.yaml (PreConditionError), api-notes 412 body",
        [
            exchange(
                "PUT", WISHLIST, status=412, request_headers=(*BEARER, ("If-Match", f'W/"{FIRST_TAG}"')),
                sent={"data": {"type": "wishlist_ext", "items_count": 2}},
                body={"errors": [{"title": "Precondition Failed", "status": "412", "detail": f"The provided ETag W/\"{FIRST_TAG}\" does not match the current ETag W/\"{SECOND_TAG}\""}]},
            )
        ],
        [(0, UNDOCUMENTED, "request", NOTE)],
    ),
    "DEV entry read of a missing entry: 404": Unseen(
        "DEV openapispecs/commerceextensions/OpenAPISpec.yaml (NotFoundError)",
        [exchange("GET", "/v2/extensions/wishlists/00000000-0000-0000-0000-000000000000", status=404, body={"errors": [{"status": "404", "title": "Not Found", "detail": "No custom api entry found"}]})],
        [(0, "coverage.error-body", "body", NOTE)],
    ),
}  # fmt: skip
