"""Exchanges modelled on the real service's published examples, each naming the file it comes from.

Shapes and values are the published ones (field names, nesting, example ids, timestamps, link
spelling); the fixtures are written here. Where an example shows only a response, the request is the
one its links describe. Some examples really break commerce-api.md: their findings are listed, and
must stay.

Sources (public repositories):
- CF: elasticpath/composable-frontend, packages/sdks/specs/ (OpenAPI specifications)
- MD: moltin/docs.moltin.com, the earlier public docs (records cut to their identifying fields)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from proxy.core.model.exchange import Exchange
from tests.unit.core.exchanges import BEARER, JSON_TYPE, exchange

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

MOLTIN = "https://api.moltin.com"


def catalog_record(kind: str, record_id: str, name: str, slug: str) -> dict[str, Any]:
    """MD catalog/*/get-all-*.md: a brand, category, collection or product as those examples show one."""
    return {
        "id": record_id,
        "type": kind,
        "status": "live",
        "name": name,
        "slug": slug,
        "meta": {
            "timestamps": {
                "created_at": "2018-05-10T02:20:47+00:00",
                "updated_at": "2018-05-10T02:24:10+00:00",
            }
        },
        "relationships": {},
    }


def moltin_catalog_page(path: str, records: list[dict[str, Any]], total: int) -> dict[str, Any]:
    """MD catalog/*/get-all-*.md: page 1 of 100, links current/first/last (null) and no prev or next."""
    page = f"{MOLTIN}{path}?page[limit]=100&page[offset]=0"
    return {
        "data": records,
        "links": {"current": page, "first": page, "last": None},
        "meta": {"page": {"limit": 100, "offset": 0, "current": 1, "total": 1}, "results": {"total": total}},
    }


ORDERS_LINK = f"{MOLTIN}/v2/orders?page[offset]={{}}&page[limit]=50&filter="
ORDER = {  # MD orders-and-customers/orders/get-all-orders.md (its id is not a UUID there either)
    "type": "order",
    "id": "369ad4a4-ee67-48b0-x347-t50a6e61d83d",
    "status": "incomplete",
    "payment": "unpaid",
    "shipping": "unfulfilled",
    "customer": {"name": "Mr John Doe", "email": "johndoe@example.com"},
    "links": {},
    "meta": {
        "timestamps": {"created_at": "2018-05-16T10:11:59.715Z", "updated_at": "2018-05-16T10:11:59.715Z"}
    },
}
CUSTOMERS = [  # MD orders-and-customers/customers/get-all-customers.md
    {
        "type": "customer",
        "id": "2479c9b3-615d-4ebc-a99d-87ffc67d1955",
        "name": "Ron Swanson",
        "email": "ron@swanson.com",
        "password": True,
    },
    {
        "type": "customer",
        "id": "7746d533-fd64-446f-ae8c-f8e07f3ed9fd",
        "name": "Ron Swanson_",
        "email": "ron_@swanson.com",
        "password": True,
    },
]
NO_PREV_OR_NEXT = "links.prev, links.next"

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
    "brands list: no prev or next link": Published(
        "MD catalog/brands/get-all-brands.md",
        [
            list_read(
                "/v2/brands",
                "",
                moltin_catalog_page(
                    "/v2/brands",
                    [
                        catalog_record(
                            "brand", "c46e07d2-23ef-4b3b-8437-7bcdbf38bc4c", "I Love Lamp", "i-love-lamp"
                        )
                    ],
                    1,
                ),
            )
        ],
        [(0, "pagination.envelope.links", NO_PREV_OR_NEXT)],
    ),
    "categories list: no prev or next link": Published(
        "MD catalog/categories/get-all-categories.md",
        [
            list_read(
                "/v2/categories",
                "",
                moltin_catalog_page(
                    "/v2/categories",
                    [
                        catalog_record(
                            "category", "9dd56fc2-5746-46a2-bdf6-fe396bb6b7af", "Clothing", "clothing"
                        ),
                        catalog_record(
                            "category", "75542cfa-38e2-4a48-8416-74055af7d62e", "Clothing", "clothing"
                        ),
                    ],
                    2,
                ),
            )
        ],
        [(0, "pagination.envelope.links", NO_PREV_OR_NEXT)],
    ),
    "collections list: no prev or next link": Published(
        "MD catalog/collections/get-all-collections.md",
        [
            list_read(
                "/v2/collections",
                "",
                moltin_catalog_page(
                    "/v2/collections",
                    [
                        catalog_record(
                            "collection",
                            "645f97aa-ae63-4ee9-9259-062e570ba064",
                            "Winter Season",
                            "winter-season",
                        ),
                        catalog_record(
                            "collection",
                            "fbc05bbb-638a-4d36-998b-005c7bdf3dc9",
                            "Winter Season",
                            "winter-season",
                        ),
                    ],
                    2,
                ),
            )
        ],
        [(0, "pagination.envelope.links", NO_PREV_OR_NEXT)],
    ),
    "products list: no prev or next link": Published(
        "MD catalog/products/get-all-products.md",
        [
            list_read(
                "/v2/products",
                "",
                moltin_catalog_page(
                    "/v2/products",
                    [catalog_record("product", "9eda5ba0-4f4a-4074-8547-ccb05d1b5981", "Crown", "crown")],
                    1,
                ),
            )
        ],
        [(0, "pagination.envelope.links", NO_PREV_OR_NEXT)],
    ),
    "customers list: no links": Published(
        "MD orders-and-customers/customers/get-all-customers.md",
        [
            list_read(
                "/v2/customers",
                "",
                {
                    "data": CUSTOMERS,
                    "meta": {
                        "page": {"limit": 10, "offset": 0, "current": 1, "total": 1},
                        "results": {"total": 2},
                    },
                },
            )
        ],
        [(0, "pagination.envelope.links", "links")],
    ),
    "orders list: links of 50 on a page of 100, a prev on page 1, 100 results for one order": Published(
        "MD orders-and-customers/orders/get-all-orders.md",
        [
            list_read(
                "/v2/orders",
                "",
                {
                    "data": [ORDER],
                    "links": {
                        "current": ORDERS_LINK.format(0),
                        "first": ORDERS_LINK.format(0),
                        "last": ORDERS_LINK.format(600),
                        "prev": ORDERS_LINK.format(0),
                        "next": ORDERS_LINK.format(50),
                    },
                    "meta": {
                        "page": {"limit": 100, "offset": 0, "current": 1, "total": 1},
                        "results": {"total": 100},
                    },
                },
            )
        ],
        [
            (0, "pagination.results.total-method-consistent", "meta.results.total"),  # 1 record, short page
            (0, "pagination.links.prev", "links.prev"),  # a prev link on the first page
            (0, "pagination.links.next", "links.next"),  # a next link after a short page
            *((0, "pagination.links.targets", f"links.{name}") for name in ("current", "first")),  # limit 50
            *((0, "pagination.links.targets", "links.last") for _ in range(2)),  # offset 600 and limit 50
            # the prev and next links are wrong by being there, not also by where they point
        ],
    ),
    "carts list: one page, the schema's examples": Published(
        "CF cart_checkout.yaml, getCarts: CartCollectionResponse, CartResponse and Response.PageLinks "
        "(the spec has field examples only)",
        [
            list_read(
                "/v2/carts",
                "",
                {
                    "data": [
                        {
                            "id": "1",
                            "type": "cart",
                            "name": "cart name",
                            "description": "cart description",
                            "links": {"self": f"{HOST}/v2/carts/1"},
                            "meta": {
                                "timestamps": {
                                    "created_at": "2023-11-07T23:04:18.845Z",
                                    "updated_at": "2023-11-07T23:04:18.845Z",
                                }
                            },
                        }
                    ],
                    "links": {
                        "current": f"{HOST}/v2/carts?page[offset]=0&page[limit]=25",
                        "first": f"{HOST}/v2/carts?page[offset]=0&page[limit]=25",
                        "last": None,
                        "next": None,
                        "prev": None,
                    },
                    "meta": {
                        "page": {"current": 1, "limit": 25, "offset": 0, "total": 1},
                        "results": {"total": 1},
                    },
                },
            )
        ],
    ),
}
