"""The exchanges of unseen.py from the sources other than the Ruby SDK's cassettes: PH, CLI and JS (see
unseen.py for the sources, their commits, and the classification)."""

from __future__ import annotations

from tests.integration.corpus.unseen_base import MOLTIN, NOTE, TRUE, USEAST, Unseen, error, get
from tests.unit.core.exchanges import exchange

OTHERS: dict[str, Unseen] = {
    "PH products with include: links.current names a product, meta.counts": Unseen(
        "PH tests/ResponseTest.php, the raw answer it parses (request: GET /v2/products?include=categories)",
        [
            get(
                "/v2/products",
                "include=categories",
                {
                    "data": [
                        {
                            "type": "product",
                            "id": "80087cb1-1197-4942-83e2-40f3da39d3a1",
                            "name": "My Great Product",
                            "slug": "my-great-product",
                            "sku": "MGP_001",
                            "status": "live",
                        }
                    ],
                    "included": {
                        "categories": [
                            {"id": "02a74d61-9840-4dce-ac40-b156d2a71cf2", "type": "category"},
                            {"id": "49398013-bf43-42f8-bfda-fdf6228d0ea8", "type": "category"},
                        ]
                    },
                    "links": {
                        "current": f"{MOLTIN}/v2/products/80087cb1-1197-4942-83e2-40f3da39d3a1",
                        "last": None,
                    },
                    "meta": {"counts": {"matching_resource_count": 1}},
                    "errors": [],
                },
            )
        ],
        [
            (0, "pagination.envelope.links", "links.first, links.prev, links.next", TRUE),
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
    "CLI customers, empty list: negative offsets, prev and next on the only page": Unseen(
        "CLI docs/tutorial.md, `epcc get customers` (step 4)",
        [
            get(
                "/v2/customers",
                "",
                {
                    "data": [],
                    "links": {
                        "current": f"{USEAST}/v2/customers?page[offset]=0",
                        "first": f"{USEAST}/v2/customers?page[offset]=0",
                        "last": f"{USEAST}/v2/customers?page[offset]=-100",
                        "next": f"{USEAST}/v2/customers?page[offset]=-1",
                        "prev": f"{USEAST}/v2/customers?page[offset]=0",
                    },
                    "meta": {
                        "page": {"current": 1, "limit": 100, "offset": 0, "total": 0},
                        "results": {"total": 0},
                    },
                },
            )
        ],
        [
            (0, "pagination.links.prev", "links.prev", TRUE),
            (0, "pagination.links.next", "links.next", TRUE),
            (0, "pagination.links.targets", "links.last", TRUE),
        ],
        [
            (
                "repeated",
                "one fact: a link that should not exist",
                "links.next, a link although nothing "
                "follows, is also judged for its target by pagination.links.targets",
            )
        ],
    ),
    "CLI customer address refused: 400 with five errors": Unseen(
        "CLI docs/tutorial.md, `epcc create customer-address name=John_Smith` (Advanced Features, step 1)",
        [
            exchange(
                "POST",
                "/v2/customers/ecaee2c4-06db-48a3-a709-6049ee4cb9e2/addresses",
                status=400,
                sent={"data": {"type": "address"}},
                body={
                    "errors": [
                        {
                            "detail": f"{name} is required",
                            "source": "data",
                            "status": 400,
                            "title": "required",
                        }
                        for name in ("first_name", "last_name", "line_1", "county", "postcode", "country")
                    ]
                },
            )
        ],
        [(0, "coverage.undocumented-endpoint", "request", NOTE)],
    ),
    "JS products: data only": Unseen(
        "JS test/unit/products.ts, 'should return an array of products' (productsArray)",
        [
            get(
                "/v2/products",
                "",
                {
                    "data": [
                        {"id": f"product-{n}", "type": "product", "name": f"Product {n}"} for n in range(1, 5)
                    ]
                },
            )
        ],
        [(0, "pagination.envelope.links", "links", TRUE), (0, "pagination.envelope.meta", "meta", TRUE)],
    ),
    "JS flow entries with page[offset]=10: a bare array": Unseen(
        "JS test/unit/flows.ts, 'should return an array flow entries offset by a value' (flowEntriesArray)",
        [
            get(
                "/v2/flows/flow-1/entries",
                "page[offset]=10",
                [{"id": f"flow-entry-{n}", "type": "entry", "name": f"Flow Entry {n}"} for n in (1, 2)],
            )
        ],
        [(0, "pagination.envelope.present", "$", TRUE)],
    ),
    "JS inventories: data only, stock fields on the record": Unseen(
        "JS test/unit/inventories.ts (inventoriesArray)",
        [
            get(
                "/v2/inventories",
                "",
                {
                    "data": [
                        {"id": "inventory-1", "type": "stock", "total": 10, "available": 10, "allocated": 0},
                        {"id": "inventory-2", "type": "stock", "total": 20, "available": 20, "allocated": 0},
                    ]
                },
            )
        ],
        [(0, "pagination.envelope.links", "links", TRUE), (0, "pagination.envelope.meta", "meta", TRUE)],
    ),
    "JS products, 429 then 404": Unseen(
        "JS test/unit/error.ts (rateLimitError, notFoundError)",
        [
            get("/v2/products", "", {"errors": [{"status": 429}]}, status=429),
            get(
                "/v2/products",
                "",
                error("Product not found", "The requested product could not be found", status=404),
                status=404,
            ),
        ],
        [(0, "coverage.error-body", "body", NOTE), (1, "coverage.error-body", "body", NOTE)],
    ),
}
