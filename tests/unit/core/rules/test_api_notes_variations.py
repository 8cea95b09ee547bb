"""Every real-world variation api-notes.md lists is at most info, never an error (hand-written fixtures)."""

from __future__ import annotations

import pytest

from proxy.core.model.exchange import Exchange
from proxy.core.rules.config import RuleConfig, SeverityOverride
from proxy.core.rules.endpoints import EndpointPattern
from proxy.core.rules.engine import Checker
from proxy.store.rule_files import load_rules
from proxy.store.shipped import shipped_dir
from tests.unit.core.exchanges import (
    BEARER,
    ENTRY_PATH,
    FEATURE_PATH,
    JSON_TYPE,
    REMOVE,
    changed,
    entry_document,
    entry_read,
    exchange,
    feature_document,
    feature_update,
    list_page,
    list_read,
    records,
    update_payload,
)

RULES = load_rules(shipped_dir("rules"))
SDK_HEADERS = (
    *BEARER,
    ("Content-Type", "application/json"),
    ("X-MOLTIN-SDK-LANGUAGE", "JS"),
    ("X-MOLTIN-SDK-VERSION", "9.0.0"),
    ("X-MOLTIN-APPLICATION", "shop"),
)


def errors_in(exchanges: list[Exchange], config: RuleConfig | None = None) -> list[str]:
    return [
        f"{f.rule}: {f.message}" for f in Checker(RULES, config).check_all(exchanges) if f.severity == "error"
    ]


def relative_links(body: dict[str, object]) -> dict[str, object]:
    """The envelope with links as custom APIs write them: relative, no /v2, parameters in another order."""
    links = {
        name: None
        if value is None
        else "/products?" + "&".join(reversed(str(value).split("?", 1)[1].split("&")))
        for name, value in body["links"].items()  # type: ignore[attr-defined]
    }
    return {**body, "links": links}


PUBLISHED_PROMOTION = {
    "type": "promotion",
    "promotions": [
        {
            "name": "Digital library access",
            "tag": "digital_library_access",
            "promotion_id": "11111111-2222-3333-4444-555555555555",
        }
    ],
}
PUBLISHED_USAGE = {"type": "usage", "tag": "downloads", "label": "Digital downloads", "default_value": 10}
_, PAGE = list_page()
_, FIRST_PAGE = list_page(offset=0)
VARIATIONS: dict[str, list[Exchange]] = {
    "error status as a string, an integer, or missing; extra keys; source as a string": [
        feature_update(
            sent=update_payload(name="ab"),
            status=400,
            body={
                "errors": [
                    {
                        "status": 400,
                        "title": "Validation Error",
                        "detail": "name",
                        "source": "data",
                        "request_id": "r1",
                    }
                ]
            },
        ),
        feature_update(status=404, body={"errors": [{"title": "Not Found", "detail": "no feature"}]}),
        feature_update(
            status=409, body={"errors": [{"status": "409", "title": "Conflict", "code": "write", "meta": {}}]}
        ),
    ],
    "legacy validation errors use 422": [
        feature_update(
            sent=update_payload(name="ab"),
            status=422,
            body={"errors": [{"status": "422", "title": "Unprocessable"}]},
        )
    ],
    "feature update: 200 without data.id": [
        feature_update(body=changed(feature_document(), "data.id", REMOVE))
    ],
    "feature configuration shapes beyond access (promotion with promotions, usage with label)": [
        # subscriptions.yaml, FeaturePromotionAttributes: the tags sit in promotions[], no top-level tag
        feature_update(
            sent=update_payload(configuration=PUBLISHED_PROMOTION),
            body=feature_document(configuration=PUBLISHED_PROMOTION),
        ),
        # FeatureUsageAttributes: tag, label and default_value
        feature_update(
            sent=update_payload(configuration=PUBLISHED_USAGE),
            body=feature_document(configuration=PUBLISHED_USAGE),
        ),
    ],
    "timestamps with milliseconds or microseconds": [
        feature_update(
            body=changed(feature_document(), "data.meta.timestamps.updated_at", "2024-01-10T11:41:19.244842Z")
        )
    ],
    "missing or invalid token: 401 with either message": [
        list_read(
            headers=(),
            status=401,
            body={"errors": [{"status": 401, "title": "Unable to validate access token"}]},
        ),
        feature_update(
            headers=(("Authorization", "Bearer expired"),),
            status=401,
            body={"errors": [{"title": "Unauthorized"}]},
        ),
    ],
    "page[limit] over 100 refused with any 4xx, or clamped to 100": [
        list_read(query="page[limit]=500", status=400, body={"errors": [{"title": "Bad Request"}]}),
        list_read(query="page[limit]=500", status=422, body={"errors": [{"title": "Unprocessable"}]}),
        list_read(query="page[limit]=500&page[offset]=0", limit=100, offset=0, total=500),
    ],
    "non-integer page parameters and offsets past the hard limit refused with any 4xx": [
        list_read(query="page[offset]=ten", status=400, body={"errors": []}),
        list_read(path="/v2/orders", query="page[offset]=20000", status=404, body={"errors": []}),
    ],
    "absolute links with unencoded brackets; relative links without /v2, parameters reordered": [
        list_read(),
        list_read(query="page[offset]=10&page[limit]=10", body=relative_links(PAGE)),
    ],
    "the SDK leaves page[offset]=0 out of requests, sends its own headers and Content-Type on GET": [
        list_read(query="page[limit]=10", offset=0, headers=SDK_HEADERS),
    ],
    "lower_bound requested, exact reported when the count is at most 10,000": [
        list_read(query="page[limit]=10&page[offset]=10&page[total_method]=lower_bound", method="exact"),
    ],
    "lower_bound counts up to 10,000 on a larger list": [
        list_read(
            query="page[limit]=100&page[offset]=9900",
            limit=100,
            offset=9900,
            total=10000,
            method="lower_bound",
        ),
    ],
    "results.all only in older responses": [
        list_read(body=changed(PAGE, "meta.results.all", REMOVE)),
        list_read(body=changed(PAGE, "meta.results.total_method", REMOVE)),
    ],
    "new response fields at any time": [
        list_read(body={**PAGE, "included": {"files": []}, "meta": {**PAGE["meta"], "region": "us-east"}}),
        feature_update(body=changed(feature_document(), "data.relationships", {"plans": []})),
        entry_read(changed(entry_document(), "data.meta.owner", "store")),
    ],
    "custom API entries: fields on data, a *_ext type, a slug-like path id, relative links.self": [
        entry_read(),
        exchange(
            "GET",
            "/v2/extensions/wishlists/holiday-list",
            body=changed(entry_document(), "data.links.self", "/extensions/wishlists/holiday-list"),
            response_headers=(*JSON_TYPE, ("ETag", f'W/"{"0".rjust(64, "a")}"')),
        ),
    ],
    "entry without etag_id (as in the published example)": [
        entry_read(changed(entry_document(), "data.meta.etag_id", REMOVE), etag='W/"' + "c" * 64 + '"'),
    ],
    "entry PUT with If-Match: 412 on mismatch, 201 on upsert": [
        exchange(
            "PUT",
            ENTRY_PATH,
            status=412,
            body={"errors": [{"title": "Precondition Failed", "status": "412"}]},
        ),
        exchange("PUT", ENTRY_PATH, status=201, body=entry_document(version=1)),
        entry_read(entry_document(version=1)),
    ],
    "a feature update answered 200 and then read back is not an error in any order": [
        feature_update(),
        exchange("GET", FEATURE_PATH, body=feature_document()),
    ],
    "a sort+filter walk over records sharing timestamps using ge": [
        list_read(
            query="sort=created_at&page[limit]=3", limit=3, offset=0, total=9, data=records(3, same_time=True)
        ),
    ],
}


@pytest.mark.parametrize("variation", sorted(VARIATIONS))
def test_variation_is_never_an_error(variation: str) -> None:
    """A documented real-world variation yields no error finding (warnings here are about what the
    fixtures' clients sent, such as page[limit]=500, to draw the service's answer)."""
    assert errors_in(VARIATIONS[variation]) == []


def test_lower_bound_answered_as_exact_is_at_most_info() -> None:
    """api-notes: lower_bound reports exact when the count is at most 10,000; rule 6 allows another
    method. It is noted (the client must read the method), never a warning."""
    exchanges = VARIATIONS["lower_bound requested, exact reported when the count is at most 10,000"]
    assert {f.severity for f in Checker(RULES).check_all(exchanges)} == {"info"}


def test_the_published_promotion_shape_is_one_info_note_and_nothing_else() -> None:
    """Tags inside promotions[] and no top-level tag: the tag and payload rules report nothing, not
    even info; the shape gets its own info rule, once per exchange."""
    exchanges = VARIATIONS[
        "feature configuration shapes beyond access (promotion with promotions, usage with label)"
    ]
    found = Checker(RULES).check_all(exchanges[:1])
    assert [(f.rule, f.severity) for f in found] == [("feature.configuration.published-shape", "info")]
    assert found[0].where == "request: data.attributes.configuration, response: data.attributes.configuration"


def test_a_bad_tag_inside_promotions_keeps_the_documented_tag_limits() -> None:
    """The documented tag limits hold for tags in promotions[]: a 65-character tag with a space is
    still an error, in the answer and in the payload the service accepted."""
    bad = {"type": "promotion", "promotions": [{"name": "Gold", "tag": "a b" + "c" * 62}]}
    found = Checker(RULES).check_all(
        [feature_update(sent=update_payload(configuration=bad), body=feature_document(configuration=bad))]
    )
    rules = {f.rule: f for f in found if f.severity != "info"}
    # the payload the service accepted is its error alone (the client's warning is for a refused one)
    assert set(rules) == {"feature.configuration.tag", "feature.update.invalid-accepted"}
    assert rules["feature.configuration.tag"].where == "data.attributes.configuration.promotions[0].tag"


NEGATIVE_OFFSET_EMPTY_LIST = list_read(
    path="/v2/flows/empty-flow/entries",
    query="",
    body={
        "data": [],
        "links": {
            "current": "/flows/empty-flow/entries?page[offset]=0&page[limit]=25",
            "first": "/flows/empty-flow/entries?page[offset]=0&page[limit]=25",
            "last": "/flows/empty-flow/entries?page[offset]=-25&page[limit]=25",
            "prev": None,
            "next": None,
        },
        "meta": {"page": {"limit": 25, "offset": 0, "current": 1, "total": 0}, "results": {"total": 0}},
    },
)


def test_negative_link_offsets_on_an_empty_list_are_an_error_that_a_project_can_lower() -> None:
    """api-notes: real traffic breaks the link rule on empty lists; a per-endpoint override silences it."""
    assert errors_in([NEGATIVE_OFFSET_EMPTY_LIST]) == [
        "pagination.links.targets: each link points at the page it names: links.last: "
        "expected page[offset]=0, as meta.results.total 0, meta.page.total 0 show, found page[offset]=-25 in /flows/empty-flow/entries?page[offset]=-25&page[limit]=25"
    ]
    lowered = RuleConfig(
        (
            SeverityOverride(
                "pagination.links.targets", "info", EndpointPattern.parse("GET /v2/flows/{slug}/entries")
            ),
        )
    )
    assert errors_in([NEGATIVE_OFFSET_EMPTY_LIST], lowered) == []
    other = list_read(body=changed(PAGE, "links.next", PAGE["links"]["current"]))  # type: ignore[index]
    assert [message.split(":")[0] for message in errors_in([other], lowered)] == ["pagination.links.targets"]
