"""The UI benchmark's cassette set: N exchanges of about 1 KB each, spread over cassettes of at most
PER_CASSETTE exchanges, with a mix of methods, endpoints, statuses and a few findings, so the filters the
bench times match some rows, most rows or few."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

from common import ROOT

UPSTREAM = "http://127.0.0.1:9000"
PER_CASSETTE = 100_000
WORDS = [
    "alpha",
    "bravo",
    "charlie",
    "delta",
    "echo",
    "foxtrot",
    "golf",
    "hotel",
    "india",
    "juliet",
    "kilo",
    "lima",
    "mike",
    "november",
]


def exchanges(first: int, count: int) -> Iterator[object]:
    """Exchanges `first` to `first + count` of the set (the same for the same numbers)."""
    sys.path.insert(0, str(ROOT))
    from proxy.core.model.bodies import body_from_bytes
    from proxy.core.model.exchange import EMPTY_BODY, Exchange, Request, Response

    json_head = (("Content-Type", "application/json"),)
    for number in range(first, first + count):
        kind = number % 10
        item = f"00000000-0000-4000-8000-{number:012d}"
        words = " ".join(WORDS[(number + step) % len(WORDS)] for step in range(12))
        document = {
            "data": {
                "id": item,
                "type": "product",
                "attributes": {
                    "name": f"Product {number}",
                    "sku": f"SKU-{number:08d}",
                    "description": f"{words}. " * 8,
                    "status": "live" if number % 7 else "draft",
                    "price": {"amount": number % 10_000, "currency": "EUR", "includes_tax": True},
                },
                "meta": {"timestamps": {"created_at": "2026-01-01T00:00:00.000Z"}},
            }
        }
        if kind < 6:  # a read
            request = Request(
                "GET", f"/v2/products/{item}", "", (("Accept", "application/json"), *_auth()), EMPTY_BODY
            )
            status = 200 if kind else 404
        elif kind < 9:  # a write
            sent = json.dumps({"data": document["data"]["attributes"]}).encode()
            request = Request(
                "POST", "/v2/products", "", json_head + _auth(), body_from_bytes(sent, json_head)
            )
            status = 201 if kind < 8 else 422
        else:
            request = Request("DELETE", f"/v2/products/{item}", "", _auth(), EMPTY_BODY)
            status = 204
        body = (
            body_from_bytes(json.dumps(document).encode(), json_head) if status in (200, 201) else EMPTY_BODY
        )
        head = json_head if status in (200, 201) else ()
        seconds = number % 86_400
        when = f"2026-01-01T{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}.000000Z"
        yield Exchange(request, Response(status, head, body), when, 1.0 + number % 50)


def _auth() -> tuple[tuple[str, str], ...]:
    return (("Authorization", "Bearer <redacted>"),)


def write_set(folder: Path, count: int) -> list[Path]:
    """The set of `count` exchanges as cassettes in `folder` (the cassettes' paths)."""
    sys.path.insert(0, str(ROOT))
    from proxy.core.cassette.document import Cassette
    from proxy.store.saving import save_cassette

    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for first in range(0, count, PER_CASSETTE):
        size = min(PER_CASSETTE, count - first)
        path = folder / f"traffic-{first // PER_CASSETTE:03d}.yaml"
        save_cassette(path, Cassette(tuple(exchanges(first, size)), upstream=UPSTREAM))
        paths.append(path)
    return paths
