"""Deterministic data sets for the sandbox's list endpoints, large enough to pass offset 10,000.

Records come in groups of three sharing a `created_at`, so sort-and-filter walks meet the documented
caveat of records sharing a timestamp.
"""

from __future__ import annotations

import random
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

# Spec, "List endpoints that support pagination": the resources listed at the top level.
LIST_SIZES: dict[str, int] = {
    "orders": 10_120,
    "files": 10_050,
    "products": 10_300,
    "customers": 240,
    "accounts": 75,
    "brands": 12,
    "categories": 30,
    "collections": 8,
    "carts": 40,
    "inventory": 60,
}
FLOW_SIZES: dict[str, int] = {"wishlist-extras": 35, "empty-flow": 0}
RECORD_TYPES: dict[str, str] = {
    "orders": "order",
    "files": "file",
    "products": "product",
    "customers": "customer",
    "accounts": "account",
    "brands": "brand",
    "categories": "category",
    "collections": "collection",
    "carts": "cart",
    "inventory": "stock",
}
EPOCH = datetime(2024, 1, 1, tzinfo=UTC)
SHARED_TIMESTAMP_GROUP = 3


def format_timestamp(moment: datetime) -> str:
    """ISO 8601 with milliseconds and a `Z`, as the service writes timestamps."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def make_records(kind: str, count: int, record_type: str, seed: int) -> list[dict[str, Any]]:
    """`count` records of one resource, the same every time for the same arguments."""
    rng = random.Random(f"{kind}:{seed}")
    records = []
    for position in range(count):
        created = EPOCH + timedelta(minutes=position // SHARED_TIMESTAMP_GROUP, milliseconds=123)
        updated = created + timedelta(hours=position % 7, milliseconds=position % 1000)
        records.append(
            {
                "id": str(uuid.UUID(int=rng.getrandbits(128), version=4)),
                "type": record_type,
                "name": f"{record_type} {position + 1}",
                **({"file_name": f"file-{position + 1}.png"} if record_type == "file" else {}),
                "meta": {
                    "timestamps": {
                        "created_at": format_timestamp(created),
                        "updated_at": format_timestamp(updated),
                    }
                },
            }
        )
    return records


# The documentation names the inventory list "inventory"; the real service serves /v2/inventories
# (inventories.yaml): the documentation is silent on the path's spelling, so the sandbox answers both.
LIST_ALIASES: dict[str, str] = {"inventories": "inventory"}


def make_list(name: str, seed: int = 1) -> list[dict[str, Any]] | None:
    """The records of one list path below /v2, or None when there is no such list."""
    name = LIST_ALIASES.get(name, name)
    if name in LIST_SIZES:
        return make_records(name, LIST_SIZES[name], RECORD_TYPES[name], seed)
    slug = name.removeprefix("flows/").removesuffix("/entries")
    if name == f"flows/{slug}/entries" and slug in FLOW_SIZES:
        return make_records(slug, FLOW_SIZES[slug], "entry", seed)
    return None


# `sandbox --change KIND`: the service as it might answer some day after a recording, so `verify` and
# `cassette diff` can be tried on each kind of drift. Each applies to the records of every list.
CHANGES: dict[str, str] = {
    "rename-field": "records call `name` `title` (a field renamed: breaking)",
    "new-field": "records gain a `slug` (a field added: additive)",
    "new-data": "the first record of each list has another name (data)",
    "new-timestamps": "every timestamp a day later (volatile)",
}


def changed(records: list[dict[str, Any]], changes: frozenset[str]) -> list[dict[str, Any]]:
    """The records as the changed service answers them."""
    for position, record in enumerate(records):
        if "new-data" in changes and position == 0:
            record["name"] = f"{record['name']} (renamed)"
        if "rename-field" in changes:
            record["title"] = record.pop("name")
        if "new-field" in changes:
            record["slug"] = f"{record['type']}-{position + 1}"
        if "new-timestamps" in changes:
            stamps = record["meta"]["timestamps"]
            for key, value in stamps.items():
                moment = datetime.strptime(value, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
                stamps[key] = format_timestamp(moment + timedelta(days=1))
    return records
