"""Exchanges of the real service from public sources nobody on this team wrote, each naming its source.

Unlike published.py (the OpenAPI examples and the earlier docs), these are recorded or shown traffic:
another SDK's recorded VCR cassettes, a command line tool's tutorial output, and SDKs' test fixtures
with the answers they mock. Values are the source's own (ids, spelling of links and query strings, its
real mistakes); long lists are cut to their records' identifying fields (unseen_records.py).

Each expected finding is classified by reading commerce-api.md and api-notes.md, not by what the tool
says: TRUE (a violation), NOTE (a justified info note). `on_main` records how the tool on main differed
(a false alarm, a repeated or misplaced fact, a missed violation) and the class of the defect.

Sources (public repositories, commit as read):
- RB: moltin/ruby-sdk @ dc753299ecd840460e86cb2d1f94ebe7d7d08025, spec/vcr_cassettes/ (VCR 3.0.3
  recordings of api.moltin.com, April-May 2017)
- PH: moltin/php-sdk @ ff8b549dd6d6a7d9d1424296627aac7b040e788f, tests/ResponseTest.php (a raw answer)
- CLI: elasticpath/epcc-cli @ 6fdb53595b8f53588b3e347b4ba0b8ddaa2745d4, docs/tutorial.md (the CLI's
  printed requests and answers from useast.api.elasticpath.com, December 2022)
- JS: moltin/js-sdk @ f9015ed6697eba180df20c59ca40d0650a8dcbe1, test/unit/*.ts and test/factories.ts
  (nock answers the SDK's own tests mock, at https://euwest.api.elasticpath.com/v2)
- DEV: elasticpath/elasticpath-dev @ 33ab00fe67e95e70872fa68329919548a33c152d,
  guides/How-To/commerce-extensions/create-a-multilocation-inventories-resource.md (requests; the
  answers are built from them in the entry shape api-notes.md gives, as marked)
"""

from __future__ import annotations

from typing import Any

from proxy.core.model.exchange import Exchange
from tests.integration.corpus import unseen_records as records
from tests.integration.corpus.unseen_base import MOLTIN, NOTE, TRUE, Unseen, error, get, token
from tests.integration.corpus.unseen_others import OTHERS
from tests.unit.core.exchanges import exchange


def brand(index: int) -> dict[str, Any]:
    record_id, name, slug = records.BRANDS[index]
    return {"id": record_id, "type": "brand", "status": "draft", "name": name, "slug": slug}


def moltin_page(
    path: str, query: str, data: list[Any], links: dict[str, Any], meta: dict[str, Any]
) -> Exchange:
    return get(path, query, {"data": data, "links": links, "meta": meta})


def links(path: str, limit: int, offset: int, **others: Any) -> dict[str, Any]:
    """RB links: current and first always, then last, prev and next as the answer has them."""
    page = f"{MOLTIN}{path}?page[limit]={{}}&page[offset]={{}}"
    shown = {"current": page.format(limit, offset), "first": page.format(limit, 0)}
    shown.update(
        {name: None if value is None else page.format(limit, value) for name, value in others.items()}
    )
    return shown


def moltin_meta(
    total: int, every: int | None, limit: int, offset: int, current: int, pages: int
) -> dict[str, Any]:
    results: dict[str, Any] = {"total": total} if every is None else {"total": total, "all": every}
    return {
        "results": results,
        "page": {"limit": limit, "offset": offset, "current": current, "total": pages},
    }


def product(record_id: str) -> dict[str, Any]:
    return {"id": record_id, "type": "product"}


def file_record(record_id: str) -> dict[str, Any]:
    return {"id": record_id, "type": "file", "links": {"self": f"{MOLTIN}/v2/files/{record_id}"}}


FILES_LINK = f"{MOLTIN}/v2/files?page[offset]={{}}&page[limit]={{}}&filter="


def files_links(limit: int, offset: int, prev: int, following: int) -> dict[str, Any]:
    """RB files/*.yml: offset first, then limit, then an empty filter; a prev link even on page 1."""
    return {
        "current": FILES_LINK.format(offset, limit),
        "first": FILES_LINK.format(0, limit),
        "last": FILES_LINK.format(820 if limit == 10 else 800, limit),
        "prev": FILES_LINK.format(prev, limit),
        "next": FILES_LINK.format(following, limit),
    }


def files_page(query: str, limit: int, offset: int, prev: int, pages: int) -> Exchange:
    data = [file_record(record_id) for record_id in records.FILE_IDS[offset : offset + limit]]
    meta = {
        "results": {"total": 823},
        "page": {"limit": limit, "offset": offset, "current": offset // limit + 1, "total": pages},
    }
    return get(
        "/v2/files",
        query,
        {"data": data, "links": files_links(limit, offset, prev, offset + limit), "meta": meta},
    )


def products_2017(query: str, limit: int, offset: int, count: int, last: int | None) -> Exchange:
    """RB products/all/*.yml: the products service of 2017 answered meta.counts, and `previous`."""
    page = f"{MOLTIN}/v2/products?page[limit]={limit}&page[offset]={{}}"
    shown: dict[str, Any] = {"current": page.format(offset), "first": page.format(0)}
    if last is None:
        shown["last"] = None
    else:
        shown.update(
            last=page.format(last),
            previous=None if offset == 0 else page.format(offset - limit),
            next=page.format(offset + limit),
        )
    data = [product(record_id) for record_id in records.PRODUCT_IDS[offset : offset + count]]
    return get(
        "/v2/products",
        query,
        {"data": data, "links": shown, "meta": {"counts": {"matching_resource_count": 77}}},
    )


NO_PREV_OR_NEXT = "links.prev, links.next"
BRANDS_ALL = moltin_page(
    "/v2/brands",
    "",
    [brand(i) for i in range(49)],
    links("/v2/brands", 100, 0, last=None),
    moltin_meta(49, 49, 100, 0, 1, 1),
)
BRAND_ID = "7531a4da-4532-40c7-9d94-43f26bdbdd5f"  # RB brands/delete.yml

CORPUS: dict[str, Unseen] = {
    "RB brands, all 49 on one page of 100": Unseen(
        "RB resources/brands/all.yml",
        [token(), BRANDS_ALL],
        [(1, "pagination.envelope.links", NO_PREV_OR_NEXT, TRUE)],
    ),
    "RB brands, page[limit]=10: results.total is the page size": Unseen(
        "RB resources/brands/all/limit.yml (the query percent-encoded: page%5Blimit%5D=10)",
        [
            moltin_page(
                "/v2/brands",
                "page%5Blimit%5D=10",
                [brand(i) for i in range(10)],
                links("/v2/brands", 10, 0, last=40, prev=None, next=10),
                moltin_meta(10, 49, 10, 0, 1, 5),
            )
        ],
        [(0, "pagination.results.total-method-consistent", "meta.results.total", TRUE)],
        [
            (
                "missed",
                "one fact: envelope numbers",
                "meta.results.total, the page size, is taken as the truth and not reported",
            ),
            (
                "repeated",
                "one fact: envelope numbers",
                "meta.page.total and links.next, which agree with "
                "meta.results.all and links.last, are blamed for the wrong meta.results.total",
            ),
        ],
    ),
    "RB brands, page 2 of 10: results.total is the page size": Unseen(
        "RB resources/brands/all/limit-offset.yml",
        [
            moltin_page(
                "/v2/brands",
                "page%5Blimit%5D=10&page%5Boffset%5D=10",
                [brand(i) for i in range(10, 20)],
                links("/v2/brands", 10, 10, last=40, prev=0, next=20),
                moltin_meta(10, 49, 10, 10, 2, 5),
            )
        ],
        [(0, "pagination.results.total-method-consistent", "meta.results.total", TRUE)],
        [
            (
                "repeated",
                "one fact: envelope numbers",
                "meta.page.total and links.next, which agree with "
                "meta.results.all and links.last, are blamed for the wrong meta.results.total",
            )
        ],
    ),
    "RB brands, page[offset]=20 alone: the rest of the list, its total the records left": Unseen(
        "RB resources/brands/all/offset.yml",
        [
            moltin_page(
                "/v2/brands",
                "page%5Boffset%5D=20",
                [brand(i) for i in range(20, 49)],
                links("/v2/brands", 100, 20, last=None),
                moltin_meta(29, 49, 100, 20, 1, 1),
            )
        ],
        [
            (0, "pagination.envelope.links", NO_PREV_OR_NEXT, TRUE),
            (0, "pagination.results.total-method-consistent", "meta.results.total", TRUE),
        ],
        [
            (
                "repeated",
                "one fact: a missing key",
                "links.prev, missing, is reported again by pagination.links.prev as found null",
            )
        ],
    ),
    "RB brands, sort=name": Unseen(
        "RB resources/brands/all/sort/asc.yml",
        [
            moltin_page(
                "/v2/brands",
                "sort=name",
                [brand(int(i)) for i in records.BRANDS_BY_NAME],
                {
                    "current": f"{MOLTIN}/v2/brands?page[limit]=100&page[offset]=0&sort=name",
                    "first": f"{MOLTIN}/v2/brands?page[limit]=100&page[offset]=0&sort=name",
                    "last": None,
                },
                moltin_meta(49, 49, 100, 0, 1, 1),
            )
        ],
        [(0, "pagination.envelope.links", NO_PREV_OR_NEXT, TRUE)],
    ),
    "RB brand read after its delete: 404, an undocumented operation": Unseen(
        "RB resources/brands/delete.yml",
        [
            exchange("DELETE", f"/v2/brands/{BRAND_ID}", body={"data": {"id": BRAND_ID, "type": "brand"}}),
            get(
                f"/v2/brands/{BRAND_ID}",
                "",
                error("Brand not found", "The requested brand could not be found", status=404),
                status=404,
            ),
        ],
        [
            (0, "coverage.undocumented-endpoint", "request", NOTE),
            (1, "coverage.undocumented-endpoint", "request", NOTE),
        ],
    ),
    "RB brand create refused: 422": Unseen(
        "RB resources/brands/create/invalid.yml",
        [
            exchange(
                "POST",
                "/v2/brands",
                status=422,
                body=error("Failed Validation", "The data.name field is required."),
                sent={"data": {"type": "brand"}},
            )
        ],
        [(0, "coverage.undocumented-endpoint", "request", NOTE)],
    ),
    "RB categories, page 2 of 10: results.total is the page size": Unseen(
        "RB resources/categories/all/limit-offset.yml",
        [
            moltin_page(
                "/v2/categories",
                "page%5Blimit%5D=10&page%5Boffset%5D=10",
                [{"id": i, "type": "category"} for i in records.CATEGORY_IDS[10:20]],
                links("/v2/categories", 10, 10, last=20, prev=0, next=20),
                moltin_meta(10, 28, 10, 10, 2, 3),
            )
        ],
        [(0, "pagination.results.total-method-consistent", "meta.results.total", TRUE)],
        [
            (
                "repeated",
                "one fact: envelope numbers",
                "meta.page.total and links.next, which agree with "
                "meta.results.all and links.last, are blamed for the wrong meta.results.total",
            )
        ],
    ),
    "RB collections, page[limit]=3: results.total is the page size": Unseen(
        "RB resources/collections/all/limit.yml",
        [
            moltin_page(
                "/v2/collections",
                "page%5Blimit%5D=3",
                [{"id": i, "type": "collection"} for i in records.COLLECTION_IDS[:3]],
                links("/v2/collections", 3, 0, last=3, prev=None, next=3),
                moltin_meta(3, 4, 3, 0, 1, 2),
            )
        ],
        [(0, "pagination.results.total-method-consistent", "meta.results.total", TRUE)],
        [
            (
                "missed",
                "one fact: envelope numbers",
                "meta.results.total, the page size, is taken as the truth and not reported",
            ),
            (
                "repeated",
                "one fact: envelope numbers",
                "meta.page.total and links.next, which agree with "
                "meta.results.all and links.last, are blamed for the wrong meta.results.total",
            ),
        ],
    ),
    "RB collections, last page of 2: results.total is the page size": Unseen(
        "RB resources/collections/all/limit-offset.yml",
        [
            moltin_page(
                "/v2/collections",
                "page%5Blimit%5D=2&page%5Boffset%5D=2",
                [{"id": i, "type": "collection"} for i in records.COLLECTION_IDS[2:]],
                links("/v2/collections", 2, 2, last=None, prev=0, next=None),
                moltin_meta(2, 4, 2, 2, 2, 2),
            )
        ],
        [(0, "pagination.results.total-method-consistent", "meta.results.total", TRUE)],
        [
            (
                "repeated",
                "one fact: envelope numbers",
                "meta.page.total, which agrees with "
                "meta.results.all, is blamed for the wrong meta.results.total",
            )
        ],
    ),
    "RB collections, page[offset]=3 alone": Unseen(
        "RB resources/collections/all/offset.yml",
        [
            moltin_page(
                "/v2/collections",
                "page%5Boffset%5D=3",
                [{"id": records.COLLECTION_IDS[3], "type": "collection"}],
                links("/v2/collections", 100, 3, last=None),
                moltin_meta(1, 4, 100, 3, 1, 1),
            )
        ],
        [
            (0, "pagination.envelope.links", NO_PREV_OR_NEXT, TRUE),
            (0, "pagination.results.total-method-consistent", "meta.results.total", TRUE),
        ],
        [
            (
                "repeated",
                "one fact: a missing key",
                "links.prev, missing, is reported again by pagination.links.prev as found null",
            )
        ],
    ),
    "RB files, first page of 100: a prev link on page 1": Unseen(
        "RB resources/files/all.yml",
        [files_page("", 100, 0, 0, 9)],
        [(0, "pagination.links.prev", "links.prev", TRUE)],
    ),
    "RB files, page[limit]=10: a prev link on page 1": Unseen(
        "RB resources/files/all/limit.yml",
        [files_page("page%5Blimit%5D=10", 10, 0, 0, 83)],
        [(0, "pagination.links.prev", "links.prev", TRUE)],
    ),
    "RB files, page[offset]=100: page 2": Unseen(
        "RB resources/files/all/offset.yml",
        [files_page("page%5Boffset%5D=100", 100, 100, 0, 9)],
    ),
    "RB products of 2017, page[limit]=10: meta.counts and links.previous": Unseen(
        "RB resources/products/all/limit.yml",
        [products_2017("page%5Blimit%5D=10", 10, 0, 10, 70)],
        [
            (0, "pagination.envelope.links", "links.prev", TRUE),
            (0, "pagination.envelope.meta", "meta.page, meta.results", TRUE),
        ],
        [
            (
                "repeated",
                "one fact: a missing key",
                "meta.page and meta.results missing reported by "
                "pagination.envelope.page and pagination.envelope.results, not by pagination.envelope.meta",
            )
        ],
    ),
    "RB products of 2017, page[offset]=60 alone": Unseen(
        "RB resources/products/all/offset.yml",
        [products_2017("page%5Boffset%5D=60", 100, 60, 16, None)],
        [
            (0, "pagination.envelope.links", NO_PREV_OR_NEXT, TRUE),
            (0, "pagination.envelope.meta", "meta.page, meta.results", TRUE),
        ],
    ),
    "RB products, all 76 on one page, then one product read": Unseen(
        "RB resources/products/get.yml",
        [
            moltin_page(
                "/v2/products",
                "",
                [product(i) for i in records.PRODUCT_IDS],
                links("/v2/products", 100, 0, last=None),
                moltin_meta(76, 76, 100, 0, 1, 1),
            ),
            get(f"/v2/products/{records.PRODUCT_IDS[0]}", "", {"data": product(records.PRODUCT_IDS[0])}),
        ],
        [
            (0, "pagination.envelope.links", NO_PREV_OR_NEXT, TRUE),
            (1, "coverage.undocumented-endpoint", "request", NOTE),
        ],
    ),
    "RB product build: 500": Unseen(
        "RB resources/products/build.yml",
        [
            exchange(
                "POST",
                f"/v2/products/{records.PRODUCT_IDS[0]}/build",
                status=500,
                body=error(
                    "Internal Server Error",
                    "There was an internal server error, you can report with your request id.",
                    status=500,
                ),
            )
        ],
        [(0, "coverage.undocumented-endpoint", "request", NOTE)],
    ),
    "RB orders, 49 with neither links nor meta": Unseen(
        "RB resources/orders/all.yml",
        [get("/v2/orders", "", {"data": [{"id": i, "type": "order"} for i in records.ORDER_IDS]})],
        [(0, "pagination.envelope.links", "links", TRUE), (0, "pagination.envelope.meta", "meta", TRUE)],
    ),
    "RB flow entries, neither links nor meta; the flows list first": Unseen(
        "RB resources/entries/all.yml",
        [
            token(),
            get(
                "/v2/flows",
                "",
                {
                    "data": [
                        {"id": "f14015ce-436a-427f-bfed-e2244105301a", "type": "flow", "slug": "products"}
                    ]
                },
            ),
            get(
                "/v2/flows/products/entries",
                "",
                {
                    "data": [
                        {
                            "id": "fbe52307-a4d5-49d2-89f7-eadc22a87890",
                            "type": "entry",
                            "reference": "Something else.",
                            "content": None,
                            "meta": {
                                "timestamps": {
                                    "created_at": "2017-05-04T04:00:51.184Z",
                                    "updated_at": "2017-05-04T04:00:51.184Z",
                                }
                            },
                            "links": {"self": f"{MOLTIN}/products/fbe52307-a4d5-49d2-89f7-eadc22a87890"},
                        },
                        {
                            "id": "fce9f4ef-7014-4254-8a99-4cb0676a8bd2",
                            "type": "entry",
                            "reference": "cool value",
                            "content": None,
                            "meta": {
                                "timestamps": {
                                    "created_at": "2017-05-04T04:05:20.455Z",
                                    "updated_at": "2017-05-04T04:05:20.455Z",
                                }
                            },
                            "links": {"self": f"{MOLTIN}/products/fce9f4ef-7014-4254-8a99-4cb0676a8bd2"},
                        },
                    ]
                },
            ),
        ],
        [
            (1, "coverage.undocumented-endpoint", "request", NOTE),
            (2, "pagination.envelope.links", "links", TRUE),
            (2, "pagination.envelope.meta", "meta", TRUE),
        ],
    ),
    **OTHERS,
}
