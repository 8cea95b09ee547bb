"""Exchanges modelled on the real service's published examples, each naming the file it comes from.

Shapes and values are the published ones (field names, nesting, example ids, timestamps, link
spelling); the fixtures are written here. Where an example shows only a response, the request is the
one its links describe. Some examples really break commerce-api.md: their findings are listed, and
must stay.

Sources (public repositories):
- CF: elasticpath/composable-frontend, packages/sdks/specs/ (OpenAPI specifications)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from proxy.core.exchange import Exchange
from tests.core.exchanges import BEARER, JSON_TYPE, exchange

FEATURE_ID = "11111111-2222-3333-4444-555555555555"  # subscriptions.yaml, UUID example
STAMP = "2017-01-10T11:41:19.244842Z"  # subscriptions.yaml, Timestamps example
ETAG_ID = "5feceb66ffc86f38d952786c6d696c79c2dbc239dd4e91b46729d73a27fb57e9"  # commerce-extensions.yaml
ENTRY_ID = "7e067539-6f6c-46e1-8c55-940031b36c6a"
HOST = "https://useast.api.elasticpath.com"


@dataclass(frozen=True)
class Published:
    """Exchanges after one published example, and the findings they must give: (exchange, rule, where)."""

    source: str
    exchanges: list[Exchange]
    findings: list[tuple[int, str, str]] = field(default_factory=list)


def feature_attributes(configuration: dict[str, Any]) -> dict[str, Any]:
    """subscriptions.yaml, FeatureAttributes examples."""
    return {
        "external_ref": "abc123",
        "name": "Digital library access",
        "description": "Access to over 100 ebooks via the digital library.",
        "configuration": configuration,
    }


def feature_update(configuration: dict[str, Any]) -> Exchange:
    """subscriptions.yaml, UpdateFeature: FeatureUpdate in, 200 with {"data": Feature} out."""
    attributes = feature_attributes(configuration)
    sent = {"data": {"id": FEATURE_ID, "type": "subscription_feature", "attributes": attributes}}
    answer = {
        "data": {
            "id": FEATURE_ID,
            "type": "subscription_feature",
            "attributes": attributes,
            "meta": {"owner": "store", "timestamps": {"created_at": STAMP, "updated_at": STAMP}},
        }
    }
    return exchange("PUT", f"/v2/subscriptions/features/{FEATURE_ID}", body=answer, sent=sent)


def wishlist_entry(with_etag_id: bool) -> dict[str, Any]:
    """commerce-extensions.yaml, the wishlist entry examples (GetACustomEntry omits etag_id; the list
    example has it)."""
    meta: dict[str, Any] = {
        "timestamps": {"updated_at": "2017-01-10T11:41:19.244Z", "created_at": "2017-01-10T11:41:19.244Z"},
        "data_size": 6,
        "resource_version": 0,
    }
    if with_etag_id:
        meta["etag_id"] = ETAG_ID
    return {
        "id": ENTRY_ID,
        "type": "wishlist_ext",
        "name": "My Wishlist",
        "items_count": 0,
        "keep_purchased": False,
        "links": {"self": f"/extensions/wishlists/{ENTRY_ID}"},
        "meta": meta,
    }


def entry_read(with_etag_id: bool) -> Exchange:
    """GET /v2/extensions/wishlists/{id} with the ETag its header description gives."""
    headers = (*JSON_TYPE, ("ETag", f'W/"{ETAG_ID}"'))
    return exchange(
        "GET",
        f"/v2/extensions/wishlists/{ENTRY_ID}",
        body={"data": wishlist_entry(with_etag_id)},
        response_headers=headers,
    )


def list_read(path: str, query: str, body: dict[str, Any]) -> Exchange:
    return exchange("GET", path, query, body=body, request_headers=BEARER)


FILE = {  # files.yaml, getAllFiles example
    "type": "file",
    "id": "f8cf26b3-6d38-4275-937a-624a83994702",
    "link": {
        "href": "https://files-eu.epusercontent.com/e8c53cb0-120d-4ea5-8941-ce74dec06038/"
        "f8cf26b3-6d38-4275-937a-624a83994702.png"
    },
    "file_name": "f6669358-85db-4367-9cde-1deb77acb5f4.png",
    "mime_type": "image/png",
    "file_size": 110041,
    "meta": {
        "dimensions": {"width": 1000, "height": 1000},
        "timestamps": {"created_at": "2018-03-13T13:45:21.673Z"},
    },
    "links": {"self": f"{HOST}/v2/files/f8cf26b3-6d38-4275-937a-624a83994702"},
}
ACCOUNT = {  # account_management.yaml, Account examples
    "id": "deb6b25f-8451-4211-9a22-95610333df23",
    "type": "account",
    "name": "acc-name",
    "legal_name": "acc-legal-name",
    "registration_id": "reg-id",
    "meta": {
        "timestamps": {"created_at": "2021-02-23T09:40:33.882Z", "updated_at": "2021-02-23T09:40:33.882Z"}
    },
}
ACCOUNTS_PAGE = f"{HOST}/v2/accounts?page[offset]=0&page[limit]=25"
STOCK = {  # inventories.yaml, StockResponse examples
    "id": FEATURE_ID,
    "type": "stock",
    "attributes": {"available": 20, "allocated": 10, "total": 30},
    "meta": {"stock_id": FEATURE_ID, "timestamps": {"created_at": STAMP, "updated_at": STAMP}},
}
BRAND_ENTRIES = [  # flows.yaml, getAllEntries example
    {
        "id": "ce1f0b19-23c3-487b-aa2a-552b77abdf0c",
        "type": "entry",
        "brand-image": "https://files-eu.epusercontent.com/e8c53cb0-120d-4ea5-8941-ce74dec06038/"
        "61118f21-14a2-466c-a84b-c30b1f900cf9.png",
        "meta": {
            "owner": "organization",
            "timestamps": {
                "created_at": "2018-06-05T20:58:25.596Z",
                "updated_at": "2018-06-05T20:58:25.596Z",
            },
        },
        "links": {"self": f"{HOST}/v2/flows/brands/entries/ce1f0b19-23c3-487b-aa2a-552b77abdf0c"},
    },
    {
        "id": "a5fcf6bc-233f-44d7-a3b0-0961eed3df9d",
        "type": "entry",
        "brand-image": "some image for brand x",
        "meta": {
            "owner": "organization",
            "timestamps": {
                "created_at": "2018-06-06T14:48:59.006Z",
                "updated_at": "2018-06-06T14:48:59.006Z",
            },
        },
        "links": {"self": f"{HOST}/v2/flows/brands/entries/a5fcf6bc-233f-44d7-a3b0-0961eed3df9d"},
    },
]
WISHLIST_PAGE = "/extensions/wishlists?page[limit]=100&page[offset]=0"

CORPUS: dict[str, Published] = {
    "feature update, access configuration": Published(
        "CF subscriptions.yaml, UpdateFeature; FeatureAccessAttributes",
        [feature_update({"type": "access", "tag": "digital_library_access"})],
    ),
    "feature update, promotion configuration (tags in promotions[])": Published(
        "CF subscriptions.yaml, UpdateFeature; FeaturePromotionAttributes, FeaturePromotion",
        [
            feature_update(
                {
                    "type": "promotion",
                    "promotions": [
                        {
                            "name": "Digital library access",
                            "tag": "digital_library_access",
                            "promotion_id": FEATURE_ID,
                        }
                    ],
                }
            )
        ],
        [
            (
                0,
                "feature.configuration.published-shape",
                "request: data.attributes.configuration, response: data.attributes.configuration",
            )
        ],
    ),
    "feature update, usage configuration": Published(
        "CF subscriptions.yaml, UpdateFeature; FeatureUsageAttributes",
        [
            feature_update(
                {
                    "type": "usage",
                    "tag": "digital_library_access",
                    "label": "Digital downloads",
                    "default_value": 10,
                }
            )
        ],
    ),
    "custom API entry read without etag_id": Published(
        "CF commerce-extensions.yaml, GetACustomEntry (valid_entry) and its ETag header description",
        [entry_read(with_etag_id=False)],
        [(0, "entry.etag-id.absent", "data.meta.etag_id")],
    ),
    "custom API entry read with etag_id": Published(
        "CF commerce-extensions.yaml, the wishlist entry of the entries list example",
        [entry_read(with_etag_id=True)],
    ),
    "custom API entries list (not a documented list)": Published(
        "CF commerce-extensions.yaml, the /v2/extensions/wishlists list example",
        [
            list_read(
                "/v2/extensions/wishlists",
                "page[limit]=100&page[offset]=0",
                {
                    "data": [wishlist_entry(with_etag_id=True)],
                    "meta": {
                        "page": {"limit": 100, "offset": 0, "current": 1, "total": 1},
                        "results": {"total": 1},
                    },
                    "links": {
                        "current": WISHLIST_PAGE,
                        "first": WISHLIST_PAGE,
                        "last": WISHLIST_PAGE,
                        "next": None,
                        "prev": None,
                    },
                },
            )
        ],
        [(0, "coverage.undocumented-endpoint", "request")],
    ),
    "files list: links.self instead of current, no prev or next": Published(
        "CF files.yaml, getAllFiles (default example)",
        [
            list_read(
                "/v2/files",
                "page[offset]=0&page[limit]=100",
                {
                    "data": [FILE],
                    "links": {
                        "self": f"{HOST}/v2/files?page[offset]=0&page[limit]=100&filter=",
                        "first": f"{HOST}/v2/files?page[offset]=0&page[limit]=100&filter=",
                        "last": None,
                    },
                    "meta": {
                        "page": {"limit": 100, "offset": 0, "current": 1, "total": 1},
                        "results": {"total": 1},
                    },
                },
            )
        ],
        [(0, "pagination.envelope.links", "links.current, links.prev, links.next")],
    ),
    "accounts list: current page 0 on the first page": Published(
        "CF account_management.yaml, get-v2-accounts; MetaListPage and links examples",
        [
            list_read(
                "/v2/accounts",
                "",
                {
                    "data": [ACCOUNT],
                    "meta": {
                        "page": {"limit": 25, "current": 0, "offset": 0, "total": 1},
                        "results": {"total": 1},
                    },
                    "links": {
                        "current": ACCOUNTS_PAGE,
                        "first": ACCOUNTS_PAGE,
                        "last": ACCOUNTS_PAGE,
                        "next": None,
                        "prev": None,
                    },
                },
            )
        ],
        [(0, "pagination.page.current", "meta.page.current")],
    ),
    "inventory list at /v2/inventories: data and links only": Published(
        "CF inventories.yaml, ListStock (required data and links; StockResponse examples)",
        [list_read("/v2/inventories", "", {"data": [STOCK], "links": {}})],
        [
            (
                0,
                "pagination.envelope.links",
                "links.current, links.first, links.last, links.prev, links.next",
            ),
            (0, "pagination.envelope.meta", "meta"),
        ],
    ),
    "flow entries list: data only": Published(
        "CF flows.yaml, getAllEntries (default example)",
        [list_read("/v2/flows/brands/entries", "", {"data": BRAND_ENTRIES})],
        [(0, "pagination.envelope.links", "links"), (0, "pagination.envelope.meta", "meta")],
    ),
}
