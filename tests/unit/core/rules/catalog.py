"""The rule catalog: for every shipped rule, hand-written exchanges that break it and conformant ones
that do not (test_rule_catalog.py runs them). A sequence's last exchange is the one judged, so stateful
rules get their history first.
"""

from __future__ import annotations

from dataclasses import replace

from proxy.core.model.exchange import Exchange
from proxy.core.rules.config import RuleConfig
from proxy.core.rules.freshness import MaxAge, epoch_seconds
from tests.unit.core.exchanges import (
    ENTRY_PATH,
    FEATURE_ID,
    REMOVE,
    changed,
    entry_document,
    entry_read,
    error_document,
    exchange,
    feature_document,
    feature_update,
    link,
    list_page,
    list_read,
    records,
    sorted_walk,
    update_payload,
)

BASE_FEATURE = feature_document()
_, BASE_PAGE = list_page()
EMPTY_UPDATE_LATER = changed(
    changed(BASE_FEATURE, "data.attributes.name", "Renamed"),
    "data.meta.timestamps.updated_at",
    "2024-02-01T00:00:00.000Z",
)


PAST_THE_CAP: dict[str, object] = {
    "limit": 10,
    "offset": 10010,
    "total": 10000,
    "method": "lower_bound",
    "data": records(10, start=10010),
}


def page_with(
    place: str, value: object, changes: dict[str, object] | None = None, **page: object
) -> Exchange:
    """The conformant page of /v2/products (or `page`'s), except one place (and any other `changes`)."""
    query, body = list_page(**page)  # type: ignore[arg-type]
    body = changed(body, place, value)
    for other, replacement in (changes or {}).items():
        body = changed(body, other, replacement)
    return list_read(query=query, body=body)


def sorted_page(same_time: bool) -> Exchange:
    query, body = list_page(
        limit=3, offset=0, total=9, data=records(3, same_time=same_time), extra="&sort=created_at"
    )
    return list_read(query=query, body=body)


def same_time_step(offset: int | None) -> Exchange:
    """The walk's next step after `sorted_page(same_time=True)`: `ge` the shared value, at `offset`."""
    shared = records(3, same_time=True)[0]["meta"]["timestamps"]["created_at"]
    query = f"page[limit]=3&sort=created_at&filter=ge(created_at,{shared})"
    query += f"&page[offset]={offset}" if offset is not None else ""
    _, body = list_page(limit=3, offset=offset or 0, total=9, data=records(3, start=3))
    return list_read(query=query, body=body)


def recorded(at: str | None) -> Exchange:
    """The conformant page, recorded at this time."""
    return replace(list_read(), recorded_at=at)


# The catalog is checked with the project's max_age set (as of this time), or that rule never applies.
CATALOG_CONFIG = RuleConfig(max_age=MaxAge.parse("90d", "test"), now=epoch_seconds("2026-11-24T00:00:00Z"))

# rule id -> (violating exchanges, conformant exchanges)
FIXTURES: dict[str, tuple[list[Exchange], list[Exchange]]] = {
    # --- features ---
    "feature.envelope": ([feature_update(body=BASE_FEATURE["data"])], [feature_update()]),
    "feature.id.uuid": (
        [feature_update(body=changed(BASE_FEATURE, "data.id", "feature-1"))],
        [feature_update()],
    ),
    "feature.id.matches-path": (
        [feature_update(body=changed(BASE_FEATURE, "data.id", "11111111-2222-4333-8444-555555555555"))],
        [feature_update(body=changed(BASE_FEATURE, "data.id", FEATURE_ID.upper()))],
    ),
    "feature.type": (
        [feature_update(body=changed(BASE_FEATURE, "data.type", "feature"))],
        [feature_update()],
    ),
    "feature.attributes": (
        [feature_update(body=changed(BASE_FEATURE, "data.attributes", "Gold"))],
        [feature_update()],
    ),
    "feature.name.length": (
        [feature_update(body=changed(BASE_FEATURE, "data.attributes.name", "ab"))],
        [feature_update(body=changed(BASE_FEATURE, "data.attributes.name", "abc"))],
    ),
    "feature.description.length": (
        [
            feature_update(
                sent=update_payload(), body=changed(BASE_FEATURE, "data.attributes.description", "d" * 1025)
            )
        ],
        [
            feature_update(
                sent=update_payload(), body=changed(BASE_FEATURE, "data.attributes.description", "d" * 1024)
            )
        ],
    ),
    "feature.external-ref.length": (
        [feature_update(body=changed(BASE_FEATURE, "data.attributes.external_ref", "r" * 2049))],
        [feature_update(body=changed(BASE_FEATURE, "data.attributes.external_ref", "r" * 2048))],
    ),
    "feature.configuration.present": (
        [feature_update(body=changed(BASE_FEATURE, "data.attributes.configuration", REMOVE))],
        [feature_update()],
    ),
    "feature.configuration.type": (
        [feature_update(body=changed(BASE_FEATURE, "data.attributes.configuration.type", "bonus"))],
        [feature_update(body=changed(BASE_FEATURE, "data.attributes.configuration.type", "usage"))],
    ),
    "feature.configuration.tag": (
        [feature_update(body=changed(BASE_FEATURE, "data.attributes.configuration.tag", "not ok!"))],
        [feature_update(body=changed(BASE_FEATURE, "data.attributes.configuration.tag", "T" * 64))],
    ),
    "feature.configuration.published-shape": (
        [
            feature_update(
                body=changed(
                    BASE_FEATURE,
                    "data.attributes.configuration",
                    {"type": "promotion", "promotions": [{"name": "Gold tier", "tag": "gold"}]},
                )
            )
        ],
        [feature_update(body=changed(BASE_FEATURE, "data.attributes.configuration.type", "promotion"))],
    ),
    "feature.meta.present": (
        [feature_update(body=changed(BASE_FEATURE, "data.meta", REMOVE))],
        [feature_update()],
    ),
    "feature.meta.owner": (
        [feature_update(body=changed(BASE_FEATURE, "data.meta.owner", "nobody"))],
        [feature_update(body=changed(BASE_FEATURE, "data.meta.owner", "organization"))],
    ),
    "feature.timestamps.format": (
        [
            feature_update(
                body=changed(BASE_FEATURE, "data.meta.timestamps.created_at", "2024-01-01T00:00:00Z")
            )
        ],
        [
            feature_update(
                body=changed(BASE_FEATURE, "data.meta.timestamps.created_at", "2024-01-01T00:00:00.5Z")
            )
        ],
    ),
    "feature.timestamps.order": (
        [
            feature_update(
                body=changed(BASE_FEATURE, "data.meta.timestamps.updated_at", "2023-12-31T23:59:59.999Z")
            )
        ],
        [
            feature_update(
                body=changed(BASE_FEATURE, "data.meta.timestamps.updated_at", "2024-01-01T00:00:00.000Z")
            )
        ],
    ),
    "feature.update.payload": (
        [
            feature_update(
                sent=update_payload(name="ab"), status=400, body=error_document(400, "Validation Error")
            )
        ],
        [feature_update(sent=update_payload(name="abc"), body=feature_document(name="abc"))],
    ),
    "feature.update.invalid-accepted": (
        [feature_update(sent=update_payload(configuration={"type": "access"}))],
        [
            feature_update(
                sent=update_payload(configuration={"type": "access"}), status=400, body=error_document(400)
            )
        ],
    ),
    "feature.update.sent-applied": (
        [feature_update(sent=update_payload(name="Platinum"))],
        [feature_update(sent=update_payload(name="Platinum"), body=feature_document(name="Platinum"))],
    ),
    "feature.update.others-kept": (
        [
            feature_update(),
            feature_update(
                sent=update_payload(name="Platinum"),
                body=feature_document(name="Platinum", configuration={"type": "access", "tag": "silver"}),
            ),
        ],
        [
            feature_update(),
            feature_update(sent=update_payload(name="Platinum"), body=feature_document(name="Platinum")),
        ],
    ),
    "feature.update.null-removes": (
        [feature_update(sent=update_payload(description=None))],
        [feature_update(sent=update_payload(description=None), body=feature_document(description=REMOVE))],
    ),
    "feature.update.empty-unchanged": (
        [feature_update(), feature_update(sent=update_payload(), body=EMPTY_UPDATE_LATER)],
        [feature_update(), feature_update(sent=update_payload())],
    ),
    "feature.update.status": ([feature_update(status=201)], [feature_update(status=200)]),
    # --- custom API entries ---
    "entry.etag.present": ([entry_read(etag=None)], [entry_read()]),
    "entry.etag.weak": ([entry_read(etag=f'"{"a" * 64}"')], [entry_read()]),
    "entry.etag.matches-etag-id": ([entry_read(etag='W/"' + "b" * 64 + '"')], [entry_read()]),
    "entry.etag-id.absent": (
        [entry_read(changed(entry_document(), "data.meta.etag_id", REMOVE), etag='W/"' + "a" * 64 + '"')],
        [entry_read()],
    ),
    "entry.etag.changes-with-entry": (
        [entry_read(), entry_read(entry_document(name="Renamed", version=0))],
        [entry_read(), entry_read(entry_document(name="Renamed", version=1))],
    ),
    "entry.etag.identifies-version": (
        [
            entry_read(),
            entry_read(entry_document(version=1)),
            entry_read(entry_document(name="Third", version=0)),
        ],
        [entry_read(), entry_read(entry_document(version=1)), entry_read()],
    ),
    # --- paginated lists: the envelope ---
    "pagination.envelope.present": ([list_read(body=BASE_PAGE["data"])], [list_read()]),
    "pagination.envelope.data": ([page_with("data", {"records": []})], [list_read()]),
    "pagination.envelope.links": ([page_with("links.last", REMOVE)], [page_with("links.last", None)]),
    "pagination.envelope.meta": ([page_with("meta", "none")], [list_read()]),
    "pagination.envelope.page": ([page_with("meta.page.current", "2")], [list_read()]),
    "pagination.envelope.results": ([page_with("meta.results.total", "35")], [list_read()]),
    "pagination.results.all": (
        [page_with("meta.results.all", "35")],
        [page_with("meta.results.all", REMOVE)],
    ),
    "pagination.results.all-not-below-total": (
        [page_with("meta.results.all", 34)],
        [page_with("meta.results.all", 36)],
    ),
    "pagination.total-method.value": (
        [page_with("meta.results.total_method", "approximate")],
        [page_with("meta.results.total_method", REMOVE)],
    ),
    # --- paginated lists: arithmetic ---
    "pagination.page.limit-max": (
        [list_read(query="page[limit]=150&page[offset]=0", limit=150, offset=0, total=500)],
        [list_read(query="page[limit]=150&page[offset]=0", limit=100, offset=0, total=500)],
    ),
    "pagination.page.limit-requested": (
        [
            # no page[limit]: the first answer shows the project's default, a later one disagrees
            list_read(query="page[offset]=0", limit=25, offset=0, total=35),
            list_read(query="page[offset]=0", limit=30, offset=0, total=35),
        ],
        [
            # a lone unrequested answer is the project's default whatever it is (the settings
            # endpoint sets it); later ones agree, on any list; requested lengths are honoured
            list_read(query="", limit=2, offset=0, total=35),
            list_read(path="/v2/brands", query="page[offset]=2", limit=2, offset=2, total=35),
            list_read(query="page[limit]=10&page[offset]=0", limit=10, offset=0, total=35),
        ],
    ),
    "pagination.page.data-within-limit": (
        [
            list_read(
                query="page[limit]=10&page[offset]=10",
                limit=10,
                offset=10,
                total=35,
                data=records(11, start=10),
            )
        ],
        [list_read()],
    ),
    "pagination.page.offset-requested": ([page_with("meta.page.offset", 11)], [list_read()]),
    "pagination.page.current": ([page_with("meta.page.current", 3)], [list_read()]),
    "pagination.page.total": ([page_with("meta.page.total", 3)], [list_read(offset=0, total=0), list_read()]),
    "pagination.results.total-method-consistent": (
        [
            page_with("meta.results.total", 42, offset=30),
            page_with("meta.results.total", 12, offset=0, method="observed"),
            # a lower bound above the actual total the short last page shows (rule 4)
            page_with("meta.results.total", 40, offset=30, method="lower_bound"),
        ],
        [
            list_read(offset=30),
            page_with("meta.results.total", 11, offset=0, method="observed"),
            # a lower bound below the records already returned is still a lower bound (rule 4), its
            # page count and last page following it, as the page count is "based on the total method"
            page_with(
                "meta.results.total",
                9000,
                changes={"meta.page.total": 900, "links.last": link("/v2/products", 10, 8990)},
                **PAST_THE_CAP,
            ),
            page_with("meta.results.total", 10000, **PAST_THE_CAP),
        ],
    ),
    "pagination.total-method.differs": (
        [list_read(query="page[limit]=10&page[offset]=10&page[total_method]=exact", method="lower_bound")],
        [list_read(query="page[limit]=10&page[offset]=10&page[total_method]=exact", method="exact")],
    ),
    "pagination.links.prev": (
        [page_with("links.prev", None)],
        [list_read(offset=0)],
    ),
    "pagination.links.next": ([page_with("links.next", None)], [list_read(offset=30)]),
    "pagination.links.targets": (
        [page_with("links.next", "/products?page[offset]=25&page[limit]=10")],
        [page_with("links.next", "/products?page[offset]=20&page[limit]=10")],
    ),
    "pagination.sort.honoured": (
        [list_read(query="page[limit]=10&sort=-created_at", offset=0, data=records(10))],
        [list_read(query="page[limit]=10&sort=-created_at", offset=0, data=records(10)[::-1])],
    ),
    "pagination.filter.honoured": (
        [
            list_read(
                query="page[limit]=10&filter=gt(created_at,2024-01-01T03:00:00.000Z)",
                offset=0,
                data=records(10, start=3),
            )
        ],
        [
            list_read(
                query="page[limit]=10&filter=gt(created_at,2024-01-01T03:00:00.000Z)",
                offset=0,
                data=records(10, start=4),
            )
        ],
    ),
    # --- what the client asked ---
    "pagination.request.integers": (
        [list_read(query="page[limit]=ten", status=400, body=error_document(400))],
        [list_read(query="page[limit]=10&page[offset]=10")],
    ),
    "pagination.request.limit-max": (
        [list_read(query="page[limit]=101&page[offset]=0", limit=100, offset=0, total=500)],
        [list_read(query="page[limit]=100&page[offset]=0", limit=100, offset=0, total=500)],
    ),
    "pagination.request.offset-soft-limit": (
        [
            list_read(
                query="page[limit]=10&page[offset]=10010",
                limit=10,
                offset=10010,
                total=20000,
                method="lower_bound",
            )
        ],
        [
            list_read(
                query="page[limit]=10&page[offset]=10000",
                limit=10,
                offset=10000,
                total=20000,
                method="lower_bound",
            )
        ],
    ),
    "pagination.request.offset-hard-limit": (
        [list_read(path="/v2/orders", query="page[offset]=10001", status=400, body=error_document(400))],
        [list_read(path="/v2/orders", query="page[offset]=10000", limit=25, offset=10000, total=10050)],
    ),
    "pagination.offset.hard-limit-accepted": (
        [list_read(path="/v2/files", query="page[offset]=10025", limit=25, offset=10025, total=10050)],
        [list_read(path="/v2/files", query="page[offset]=10025", status=400, body=error_document(400))],
    ),
    "pagination.request.total-method-value": (
        [
            list_read(
                query="page[limit]=10&page[offset]=10&page[total_method]=fast",
                status=400,
                body=error_document(400),
            )
        ],
        [
            list_read(
                query="page[limit]=10&page[offset]=10&page[total_method]=observed",
                total=21,
                method="observed",
            )
        ],
    ),
    "pagination.sort-filter.shared-timestamp-skipped": (sorted_walk("gt"), sorted_walk("ge")),
    "pagination.sort-filter.page-one-timestamp": (
        [sorted_page(same_time=True), same_time_step(offset=None)],
        [sorted_page(same_time=True), same_time_step(offset=3)],
    ),
    # --- authentication and coverage ---
    "auth.bearer.accepted-without": ([list_read(headers=())], [list_read()]),
    "auth.bearer.missing": (
        [
            list_read(
                headers=(("Authorization", "Basic c2VjcmV0"),),
                status=401,
                body=error_document(401, "Unauthorized"),
            )
        ],
        [list_read()],
    ),
    "coverage.undocumented-endpoint": ([exchange("GET", "/v2/settings", body={"data": {}})], [list_read()]),
    "coverage.error-body": (
        [exchange("GET", ENTRY_PATH, status=404, body=error_document(404, "Not Found"))],
        [entry_read()],
    ),
    # --- the project's own ---
    "cassette.max-age": (
        [recorded("2026-01-01T00:00:00.000000Z")],
        [recorded("2026-11-01T00:00:00.000000Z"), recorded("2026-09-01T12:00:00+02:00"), recorded(None)],
    ),
}
