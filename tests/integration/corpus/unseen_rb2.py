"""More of moltin/ruby-sdk's VCR cassettes (commit dc753299ecd840460e86cb2d1f94ebe7d7d08025,
spec/vcr_cassettes/resources/*, recorded April-May 2017 against api.moltin.com): categories, collections,
brands and products sorted, filtered and with includes, variations, currencies, flows, orders, carts,
and refusals. Read and classified as unseen.py says; secrets of the token grant are left out."""

from __future__ import annotations

from typing import Any

from proxy.core.model.exchange import Exchange
from tests.integration.corpus import unseen_rb_records as names
from tests.integration.corpus import unseen_records as records
from tests.integration.corpus.unseen import (
    NO_PREV_OR_NEXT,
    brand,
    files_page,
    links,
    moltin_meta,
    moltin_page,
    product,
)
from tests.integration.corpus.unseen_base import MOLTIN, NOTE, TRUE, Unseen, error, get, token
from tests.unit.core.exchanges import exchange

UNDOCUMENTED = "coverage.undocumented-endpoint"
NO_PAGE_META = "meta.page, meta.results"


def category(index: int) -> dict[str, Any]:
    return {
        "id": records.CATEGORY_IDS[index],
        "type": "category",
        "status": "draft",
        "name": names.CATEGORY_NAMES[index],
    }


def collection(index: int) -> dict[str, Any]:
    return {"id": records.COLLECTION_IDS[index], "type": "collection", "name": names.COLLECTION_NAMES[index]}


def one_page(path: str, query: str, extra: str, data: list[Any]) -> Exchange:
    """A whole list on one page of 100, as 2017's service answered it: `last` null, no prev or next."""
    page = f"{MOLTIN}{path}?page[limit]=100&page[offset]=0{extra}"
    return get(
        path,
        query,
        {
            "data": data,
            "links": {"current": page, "first": page, "last": None},
            "meta": moltin_meta(len(data), len(data), 100, 0, 1, 1),
        },
    )


def by_name(records_: list[dict[str, Any]], descending: bool = False) -> list[dict[str, Any]]:
    """The order the service gave for sort=name: by code point (so `LED` before `Lab`)."""
    return sorted(records_, key=lambda record: record["name"], reverse=descending)


def products_counts(query: str, extra: str, count: int) -> Exchange:
    """RB products/all/*: 2017's products answered meta.counts, no meta.page or meta.results."""
    page = f"{MOLTIN}/v2/products?page[limit]=100&page[offset]=0{extra}"
    data = [product(record_id) for record_id in ([*records.PRODUCT_IDS, records.PRODUCT_IDS[0]])[:count]]
    return get(
        "/v2/products",
        query,
        {
            "data": data,
            "links": {"current": page, "first": page, "last": None},
            "meta": {"counts": {"matching_resource_count": count}},
        },
    )


CATEGORIES = [category(i) for i in range(28)]
COLLECTIONS = [collection(i) for i in range(4)]
BRANDS = [brand(i) for i in range(49)]
ONE_PAGE = [(0, "pagination.envelope.links", NO_PREV_OR_NEXT, TRUE)]
COUNTS_ONLY = [*ONE_PAGE, (0, "pagination.envelope.meta", NO_PAGE_META, TRUE)]
CART = "my_secret_cart"
EMPTY_CART = {
    "data": {
        "id": CART,
        "type": "cart",
        "links": {"self": f"{MOLTIN}/carts/{CART}"},
        "meta": {"timestamps": {"created_at": "0001-01-01T00:00:00Z", "updated_at": "0001-01-01T00:00:00Z"}},
    }
}


def cart_items(count: int) -> dict[str, Any]:
    return {
        "data": [
            {"id": f"item-{n}", "type": "cart_item", "product_id": records.PRODUCT_IDS[n], "quantity": 1}
            for n in range(count)
        ],
        "meta": {"display_price": {"with_tax": {"amount": 250 * count, "currency": "USD"}}},
    }


RB2: dict[str, Unseen] = {
    "RB categories, all 28 on one page of 100": Unseen(
        "RB resources/categories/all.yml", [token(), one_page("/v2/categories", "", "", CATEGORIES)],
        [(1, "pagination.envelope.links", NO_PREV_OR_NEXT, TRUE)],
    ),
    "RB categories, page[limit]=10: results.total is the page size": Unseen(
        "RB resources/categories/all/limit.yml",
        [
            moltin_page(
                "/v2/categories", "page%5Blimit%5D=10", CATEGORIES[:10],
                links("/v2/categories", 10, 0, last=20, prev=None, next=10), moltin_meta(10, 28, 10, 0, 1, 3),
            )
        ],
        [(0, "pagination.results.total-method-consistent", "meta.results.total", TRUE)],
    ),
    "RB categories, page[offset]=10 alone: the rest, its total the records left": Unseen(
        "RB resources/categories/all/offset.yml",
        [
            moltin_page(
                "/v2/categories", "page%5Boffset%5D=10", CATEGORIES[10:],
                links("/v2/categories", 100, 10, last=None), moltin_meta(18, 28, 100, 10, 1, 1),
            )
        ],
        [
            (0, "pagination.envelope.links", NO_PREV_OR_NEXT, TRUE),
            (0, "pagination.results.total-method-consistent", "meta.results.total", TRUE),
        ],
    ),
    "RB categories, sort=name (LED before Lab)": Unseen(
        "RB resources/categories/all/sort/asc.yml",
        [one_page("/v2/categories", "sort=name", "&sort=name", by_name(CATEGORIES))], ONE_PAGE,
    ),
    "RB categories, sort=-name": Unseen(
        "RB resources/categories/all/sort/desc.yml",
        [one_page("/v2/categories", "sort=-name", "&sort=-name", by_name(CATEGORIES, descending=True))],
        ONE_PAGE,
    ),
    "RB categories with include=parent,children": Unseen(
        "RB resources/categories/all/includes.yml",
        [one_page("/v2/categories", "include=parent,children", "&include=parent,children", CATEGORIES)],
        ONE_PAGE,
    ),
    "RB categories list, then one category read": Unseen(
        "RB resources/categories/get.yml",
        [one_page("/v2/categories", "", "", CATEGORIES), get(f"/v2/categories/{records.CATEGORY_IDS[0]}", "", {"data": CATEGORIES[0]})],
        [*ONE_PAGE, (1, UNDOCUMENTED, "request", NOTE)],
    ),
    "RB category tree: data only, not a documented list": Unseen(
        "RB resources/categories/tree.yml",
        [get("/v2/categories/tree", "", {"data": [CATEGORIES[27]]})], [(0, UNDOCUMENTED, "request", NOTE)],
    ),
    "RB category create refused: 422 without status": Unseen(
        "RB resources/categories/create/invalid.yml",
        [
            exchange(
                "POST", "/v2/categories", status=422,
                sent={"data": {"slug": "my-category1", "description": "Super Category", "status": "live", "type": "category"}},
                body=error("Failed Validation", "The data.name field is required."),
            )
        ],
        [(0, UNDOCUMENTED, "request", NOTE)],
    ),
    "RB collections, all 4 on one page": Unseen(
        "RB resources/collections/all.yml", [one_page("/v2/collections", "", "", COLLECTIONS)], ONE_PAGE,
    ),
    "RB collections, sort=name": Unseen(
        "RB resources/collections/all/sort/asc.yml",
        [one_page("/v2/collections", "sort=name", "&sort=name", by_name(COLLECTIONS))], ONE_PAGE,
    ),
    "RB collections, sort=-name": Unseen(
        "RB resources/collections/all/sort/desc.yml",
        [one_page("/v2/collections", "sort=-name", "&sort=-name", by_name(COLLECTIONS, descending=True))],
        ONE_PAGE,
    ),
    "RB collection read": Unseen(
        "RB resources/collections/get.yml",
        [get(f"/v2/collections/{records.COLLECTION_IDS[0]}", "", {"data": COLLECTIONS[0]})],
        [(0, UNDOCUMENTED, "request", NOTE)],
    ),
    "RB brands, sort=-name (lower case first)": Unseen(
        "RB resources/brands/all/sort/desc.yml",
        [one_page("/v2/brands", "sort=-name", "&sort=-name", by_name(BRANDS, descending=True))], ONE_PAGE,
    ),
    "RB brand update refused: created, PUT 422, deleted": Unseen(
        "RB resources/brands/update/invalid.yml",
        [
            exchange(
                "POST", "/v2/brands", status=201,
                sent={"data": {"name": "My Brand", "slug": "my-brand-update-invalid-1", "type": "brand"}},
                body={"data": {"id": "30d75e7d-ef4c-4376-aa2d-5978b89cb6ef", "type": "brand", "name": "My Brand"}},
            ),
            exchange(
                "PUT", "/v2/brands/30d75e7d-ef4c-4376-aa2d-5978b89cb6ef", status=422,
                sent={"data": {"name": "", "type": "brand", "id": "30d75e7d-ef4c-4376-aa2d-5978b89cb6ef"}},
                body=error("Failed Validation", "The data.name field is required."),
            ),
            exchange(
                "DELETE", "/v2/brands/30d75e7d-ef4c-4376-aa2d-5978b89cb6ef",
                body={"data": {"type": "brand", "id": "30d75e7d-ef4c-4376-aa2d-5978b89cb6ef"}},
            ),
        ],
        [(0, UNDOCUMENTED, "request", NOTE), (1, UNDOCUMENTED, "request", NOTE), (2, UNDOCUMENTED, "request", NOTE)],
    ),
    "RB products, sort=name: meta.counts": Unseen(
        "RB resources/products/all/sort/asc.yml", [products_counts("sort=name", "&sort=name", 77)], COUNTS_ONLY,
    ),
    "RB products, sort=-name: meta.counts": Unseen(
        "RB resources/products/all/sort/desc.yml", [products_counts("sort=-name", "&sort=-name", 77)], COUNTS_ONLY,
    ),
    "RB products, include=brands,categories: meta.counts": Unseen(
        "RB resources/products/all/includes.yml",
        [products_counts("include=brands,categories", "&include=brands,categories", 77)], COUNTS_ONLY,
    ),
    "RB products, filter=has(name,2017): meta.counts": Unseen(
        "RB resources/products/all/filters/name_has_2017.yml",
        [products_counts("filter=has(name,2017)", "&filter=has(name,2017)", 1)], COUNTS_ONLY,
    ),
    "RB products, a composed filter: meta.counts": Unseen(
        "RB resources/products/all/filters/composed.yml",
        [products_counts("filter=has(name,2017):out(slug,(abc,def))", "&filter=has(name,2017):out(slug,(abc,def))", 1)],
        COUNTS_ONLY,
    ),
    "RB files, page 2 of 83 by tens": Unseen(
        "RB resources/files/all/limit-offset.yml", [files_page("page%5Blimit%5D=10&page%5Boffset%5D=10", 10, 10, 0, 83)],
    ),
    "RB variations: links without prev, next or meta; not a documented list": Unseen(
        "RB resources/variations/all.yml",
        [
            get(
                "/v2/variations", "",
                {
                    "data": [{"type": "product-variation", "id": "bb231ceb-0eaa-46f3-8bae-2a5f1f8f95c8", "name": "My Variation", "options": []}],
                    "links": {"current": f"{MOLTIN}/v2/variations?page[limit]=100&page[offset]=0", "first": f"{MOLTIN}/v2/variations?page[limit]=100&page[offset]=0", "last": None},
                },
            )
        ],
        [(0, UNDOCUMENTED, "request", NOTE)],
    ),
    "RB variations, page[limit]=10: {data: []}": Unseen(
        "RB resources/variations/all/limit.yml", [get("/v2/variations", "page%5Blimit%5D=10", {"data": []})],
        [(0, UNDOCUMENTED, "request", NOTE)],
    ),
    "RB currencies: data only": Unseen(
        "RB resources/currencies/all.yml",
        [get("/v2/currencies", "", {"data": [{"id": "1d7564c3-3dac-4049-8e91-a95deff0dd39", "type": "currency", "code": "new_currency"}]})],
        [(0, UNDOCUMENTED, "request", NOTE)],
    ),
    "RB currency create refused: 400, source a plain string": Unseen(
        "RB resources/currencies/create/invalid.yml",
        [
            exchange(
                "POST", "/v2/currencies", status=400, sent={"data": {"exchange_rate": 1, "type": "currency"}},
                body={"errors": [{"source": "code", "title": "required", "detail": "code is required"}]},
            )
        ],
        [(0, UNDOCUMENTED, "request", NOTE)],
    ),
    "RB flow fields: the flows, then the fields of one": Unseen(
        "RB resources/fields/all.yml",
        [
            get("/v2/flows", "", {"data": [{"id": "f14015ce-436a-427f-bfed-e2244105301a", "type": "flow", "slug": "products"}]}),
            get("/v2/flows/products/fields", "", {"data": [{"id": "field-1", "type": "field", "slug": "reference"}]}),
        ],
        [(0, UNDOCUMENTED, "request", NOTE), (1, UNDOCUMENTED, "request", NOTE)],
    ),
    "RB orders, 52 with neither links nor meta, then one order's transactions": Unseen(
        "RB resources/orders/transactions.yml",
        [
            get("/v2/orders", "", {"data": [{"id": i, "type": "order"} for i in sorted(records.ORDER_IDS + names.ORDERS_AFTER_CHECKOUT)[:52]]}),
            get(f"/v2/orders/{records.ORDER_IDS[0]}/transactions", "", {"data": [{"id": "t-1", "type": "transaction"}]}),
        ],
        [
            (0, "pagination.envelope.links", "links", TRUE),
            (0, "pagination.envelope.meta", "meta", TRUE),
            (1, UNDOCUMENTED, "request", NOTE),
        ],
    ),
    "RB cart: emptied, products listed, three items added, items listed": Unseen(
        "RB resources/carts/items/all.yml",
        [
            exchange("DELETE", f"/v2/carts/{CART}", body={"data": [{"id": CART, "type": "cart"}]}),
            get(f"/v2/carts/{CART}", "", EMPTY_CART),
            token(),
            one_page("/v2/products", "", "", [product(i) for i in records.PRODUCT_IDS]),
            *[
                exchange(
                    "POST", f"/v2/carts/{CART}/items", status=201,
                    sent={"data": {"id": records.PRODUCT_IDS[n - 1], "type": "cart_item", "quantity": 1}},
                    body=cart_items(n),
                )
                for n in (1, 2, 3)
            ],
            get(f"/v2/carts/{CART}/items", "", cart_items(3)),
        ],
        [
            (0, UNDOCUMENTED, "request", NOTE),
            (1, UNDOCUMENTED, "request", NOTE),
            (3, "pagination.envelope.links", NO_PREV_OR_NEXT, TRUE),
            (4, UNDOCUMENTED, "request", NOTE),
            (5, UNDOCUMENTED, "request", NOTE),
            (6, UNDOCUMENTED, "request", NOTE),
            (7, UNDOCUMENTED, "request", NOTE),
        ],
    ),
    "RB token refused: 403, errors a plain string": Unseen(
        "RB utils/request/invalid.yml",
        [
            exchange(
                "POST", "/oauth/access_token", status=403, body={"status": False, "errors": "Forbidden"},
                request_headers=(("Content-Type", "application/x-www-form-urlencoded"),),
            )
        ],
    ),
}  # fmt: skip
