"""Custom API entries: shaped as in api-notes, with an `etag_id` that changes whenever the entry does.

Spec, "Get a custom API entry through the extensions endpoint" rules 1 and 2: the ETag is
`W/"<etag_id>"` and changes when the resource changes.
"""

from __future__ import annotations

import copy
import hashlib
import json
from typing import Any

ENTRY_FIELDS = {"name": str, "items_count": int}
CUSTOM_APIS = {"wishlists": "wishlist_ext"}


def etag_of(entry: dict[str, Any]) -> str:
    """The ETag header value for an entry."""
    return f'W/"{entry["meta"]["etag_id"]}"'


def _stamp(entry: dict[str, Any]) -> dict[str, Any]:
    fields = {name: entry[name] for name in ENTRY_FIELDS if name in entry}
    content = json.dumps([entry["id"], fields, entry["meta"]["resource_version"]], sort_keys=True)
    entry["meta"]["etag_id"] = hashlib.sha256(content.encode()).hexdigest()
    entry["meta"]["data_size"] = len(json.dumps(fields))
    return entry


def make_entry(slug: str, entry_id: str, name: str, items_count: int, now: str) -> dict[str, Any]:
    """A new entry at resource version 0."""
    entry = {
        "id": entry_id,
        "type": CUSTOM_APIS[slug],
        "name": name,
        "items_count": items_count,
        "links": {"self": f"/extensions/{slug}/{entry_id}"},
        "meta": {
            "timestamps": {"created_at": now, "updated_at": now},
            "data_size": 0,
            "resource_version": 0,
            "etag_id": "",
        },
    }
    return _stamp(entry)


def entry_update_errors(entry: dict[str, Any], payload: Any) -> list[tuple[str, str]]:
    """(source, detail) for each problem with an entry update payload."""
    if not isinstance(payload, dict) or not isinstance(payload.get("data"), dict):
        return [("data", "the body must be a JSON object with a 'data' object")]
    data = payload["data"]
    errors = []
    if data.get("type") != entry["type"]:
        errors.append(("data.type", f"data.type must be '{entry['type']}', found {data.get('type')!r}"))
    for name, value in data.items():
        if name in ("type", "id"):
            continue
        expected = ENTRY_FIELDS.get(name)
        if expected is None:
            errors.append((f"data.{name}", f"{name} is not a field of this custom API"))
        elif not isinstance(value, expected) or isinstance(value, bool):
            errors.append((f"data.{name}", f"{name} must be of type {expected.__name__}"))
    return errors


def update_entry(entry: dict[str, Any], data: dict[str, Any], now: str) -> dict[str, Any]:
    """The entry with the given fields changed, a new resource version and so a new etag_id."""
    updated = copy.deepcopy(entry)
    for name in ENTRY_FIELDS:
        if name in data:
            updated[name] = data[name]
    updated["meta"]["resource_version"] += 1
    updated["meta"]["timestamps"]["updated_at"] = now
    return _stamp(updated)


def seed_entries(now: str) -> dict[tuple[str, str], dict[str, Any]]:
    """The entries the sandbox starts with, keyed by (slug, id)."""
    seeds = [
        ("wishlists", "5b0f6a52-3a8e-4f65-9d4c-0e6f1a2b3c4d", "My Wishlist", 0),
        ("wishlists", "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a", "Birthday ideas", 3),
        ("wishlists", "holiday-list", "Holiday list", 7),
    ]
    return {
        (slug, entry_id): make_entry(slug, entry_id, name, count, now)
        for slug, entry_id, name, count in seeds
    }
