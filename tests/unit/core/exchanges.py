"""Hand-written exchanges of the documented operations, conformant by default, for the rule tests.

Each builder returns a conformant exchange; `changed` makes a copy with one place altered, so a rule's
violating fixture reads as "the conformant one, except...".
"""

from __future__ import annotations

import copy
from typing import Any

from proxy.core.model.exchange import Body, Exchange, Request, Response

FEATURE_ID = "3f8e2a4c-9b1d-4c6e-8f0a-1b2c3d4e5f60"
FEATURE_PATH = f"/v2/subscriptions/features/{FEATURE_ID}"
BEARER = (("Authorization", "Bearer <redacted>"),)
JSON_TYPE = (("Content-Type", "application/json"),)
REMOVE = object()


def changed(document: Any, place: str, value: Any) -> Any:
    """A deep copy of the document with the value at a dotted place replaced (or removed with REMOVE)."""
    result = copy.deepcopy(document)
    *parents, last = place.split(".")
    node = result
    for step in parents:
        node = node[int(step)] if isinstance(node, list) else node[step]
    if value is REMOVE:
        del node[last]
    elif isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return result


def exchange(
    method: str,
    path: str,
    query: str = "",
    status: int = 200,
    body: Any = None,
    sent: Any = None,
    request_headers: tuple[tuple[str, str], ...] = BEARER,
    response_headers: tuple[tuple[str, str], ...] = JSON_TYPE,
) -> Exchange:
    """An exchange with JSON bodies (None for none)."""
    request_body = Body("json", sent) if sent is not None else Body()
    response_body = Body("json", body) if body is not None else Body()
    return Exchange(
        Request(method, path, query, request_headers, request_body),
        Response(status, response_headers, response_body),
    )


def error_document(status: int, title: str = "Bad Request") -> dict[str, Any]:
    return {"errors": [{"status": str(status), "title": title, "detail": "refused"}]}


# --- features -----------------------------------------------------------------------------------------


def feature_document(**attributes: Any) -> dict[str, Any]:
    """A conformant feature response body."""
    values: dict[str, Any] = {
        "name": "Gold access",
        "description": "Gold tier perks",
        "external_ref": "crm-1",
        "configuration": {"type": "access", "tag": "gold_tier-1"},
    }
    values.update(attributes)
    return {
        "data": {
            "id": FEATURE_ID,
            "type": "subscription_feature",
            "attributes": {name: value for name, value in values.items() if value is not REMOVE},
            "meta": {
                "owner": "store",
                "timestamps": {
                    "created_at": "2024-01-01T00:00:00.000Z",
                    "updated_at": "2024-01-02T10:00:00.123Z",
                },
            },
        }
    }


def update_payload(**attributes: Any) -> dict[str, Any]:
    return {"data": {"id": FEATURE_ID, "type": "subscription_feature", "attributes": attributes}}


def feature_update(
    sent: Any = None, body: Any = None, status: int = 200, headers: tuple[tuple[str, str], ...] = BEARER
) -> Exchange:
    """A PUT of the feature: by default it sends a description and gets the feature back."""
    return exchange(
        "PUT",
        FEATURE_PATH,
        status=status,
        body=feature_document() if body is None else body,
        sent=update_payload(description="Gold tier perks") if sent is None else sent,
        request_headers=headers,
    )


# --- custom API entries ---------------------------------------------------------------------------------

ENTRY_PATH = "/v2/extensions/wishlists/5b0f6a52-3a8e-4f65-9d4c-0e6f1a2b3c4d"


def entry_document(name: str = "My Wishlist", version: int = 0, etag_id: Any = None) -> dict[str, Any]:
    """A custom API entry as api-notes shows it: fields on `data`, etag_id in `data.meta`."""
    meta: dict[str, Any] = {
        "timestamps": {"created_at": "2024-01-01T00:00:00.000Z", "updated_at": "2024-01-01T00:00:00.000Z"},
        "data_size": 6,
        "resource_version": version,
        "etag_id": etag_id if etag_id is not None else f"{version:x}".rjust(64, "a"),
    }
    return {
        "data": {
            "id": "5b0f6a52-3a8e-4f65-9d4c-0e6f1a2b3c4d",
            "type": "wishlist_ext",
            "name": name,
            "items_count": 0,
            "links": {"self": "/extensions/wishlists/5b0f6a52-3a8e-4f65-9d4c-0e6f1a2b3c4d"},
            "meta": meta,
        }
    }


def entry_read(document: Any = None, etag: str | None = "same") -> Exchange:
    """A GET of the entry; etag "same" means W/"<the document's etag_id>"."""
    document = entry_document() if document is None else document
    headers = JSON_TYPE
    if etag == "same":
        etag = f'W/"{document["data"]["meta"]["etag_id"]}"'
    if etag is not None:
        headers = (*headers, ("ETag", etag))
    return exchange("GET", ENTRY_PATH, body=document, response_headers=headers)


# --- paginated lists ------------------------------------------------------------------------------------


def records(count: int, start: int = 0, same_time: bool = False) -> list[dict[str, Any]]:
    """Records with increasing created_at (or one shared created_at)."""
    made = []
    for number in range(start, start + count):
        stamp = (
            "2024-01-01T00:00:00.000Z"
            if same_time
            else f"2024-01-{1 + number // 24:02d}T{number % 24:02d}:00:00.000Z"
        )
        made.append(
            {
                "id": f"00000000-0000-4000-8000-{number:012d}",
                "type": "product",
                "attributes": {"name": f"product {number}", "rank": number},
                "meta": {"timestamps": {"created_at": stamp, "updated_at": stamp}},
            }
        )
    return made


def link(path: str, limit: int, offset: int, extra: str = "") -> str:
    return f"http://127.0.0.1:9000{path}?page[limit]={limit}&page[offset]={offset}{extra}"


def list_page(
    path: str = "/v2/products",
    limit: int = 10,
    offset: int = 10,
    total: int = 35,
    method: str | None = "exact",
    query: str | None = None,
    data: list[dict[str, Any]] | None = None,
    extra: str = "",
) -> tuple[str, dict[str, Any]]:
    """(query, body) of a conformant page of a list of `total` records."""
    if data is None:
        data = records(max(0, min(limit, total - offset)), start=offset)
    pages = -(-total // limit)
    more = offset + len(data) < total
    body: dict[str, Any] = {
        "data": data,
        "links": {
            "current": link(path, limit, offset, extra),
            "first": link(path, limit, 0, extra),
            "last": link(path, limit, max(pages - 1, 0) * limit, extra),
            "prev": link(path, limit, max(offset - limit, 0), extra) if offset > 0 else None,
            "next": link(path, limit, offset + limit, extra) if more else None,
        },
        "meta": {
            "page": {"limit": limit, "offset": offset, "current": offset // limit + 1, "total": pages},
            "results": {"total": total, "all": total},
        },
    }
    if method is not None:
        body["meta"]["results"]["total_method"] = method
    if query is None:
        query = f"page[limit]={limit}&page[offset]={offset}{extra}"
    return query, body


def list_read(
    path: str = "/v2/products",
    query: str | None = None,
    body: Any = None,
    status: int = 200,
    headers: tuple[tuple[str, str], ...] = BEARER,
    **page: Any,
) -> Exchange:
    """A GET of a list: the page `list_page` builds unless a body is given."""
    built_query, built_body = list_page(path=path, **page)
    return exchange(
        "GET",
        path,
        built_query if query is None else query,
        status,
        built_body if body is None else body,
        request_headers=headers,
    )


def sorted_walk(filter_operator: str) -> list[Exchange]:
    """Page 1 of a created_at walk ends on two records sharing a timestamp; page 2 filters from it."""
    first = records(3)
    first[2]["meta"]["timestamps"]["created_at"] = first[1]["meta"]["timestamps"]["created_at"]
    shared = first[1]["meta"]["timestamps"]["created_at"]
    query_one, body_one = list_page(limit=3, offset=0, total=9, data=first, extra="&sort=created_at")
    follow = f"page[limit]=3&sort=created_at&filter={filter_operator}(created_at,{shared})"
    _, body_two = list_page(limit=3, offset=0, total=6, data=records(3, start=3))
    return [list_read(query=query_one, body=body_one), list_read(query=follow, body=body_two)]
