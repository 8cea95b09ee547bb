"""mitmproxy flows of the commerce API built with mitmproxy's own test helpers."""

from __future__ import annotations

import json
from typing import Any

from mitmproxy import http
from mitmproxy.test import tflow, tutils

TOKEN = "tok-9f8e7d6c5b4a39281706"


def api_flow(
    method: str,
    path: str,
    answer: Any,
    status: int = 200,
    host: str = "api.shop.example",
    sent: Any = None,
    started: float = 1795000000.0,
) -> http.HTTPFlow:
    """An HTTPS flow with a bearer token and JSON bodies."""
    headers = [(b"Host", host.encode()), (b"Authorization", f"Bearer {TOKEN}".encode())]
    content = b""
    if sent is not None:
        content = json.dumps(sent).encode()
        headers.append((b"Content-Type", b"application/json"))
    request = tutils.treq(
        host=host,
        port=443,
        scheme=b"https",
        method=method.encode(),
        path=path.encode(),
        headers=http.Headers(headers),
        content=content,
        timestamp_start=started,
        timestamp_end=started + 0.001,
    )
    body = json.dumps(answer).encode()
    response = tutils.tresp(
        status_code=status,
        reason=b"OK" if status == 200 else b"Bad Request",
        headers=http.Headers(
            [(b"Content-Type", b"application/json"), (b"Content-Length", str(len(body)).encode())]
        ),
        content=body,
        timestamp_start=started + 0.010,
        timestamp_end=started + 0.012,
    )
    return tflow.tflow(req=request, resp=response)


def products_page(total: int = 3) -> dict[str, Any]:
    """The first page (limit 1) of 3 products; `total` is the page count, 3 when conformant."""
    base = "https://api.shop.example/v2/products?page[limit]=1&page[offset]="
    return {
        "data": [{"id": "p1", "type": "product"}],
        "meta": {"page": {"limit": 1, "offset": 0, "current": 1, "total": total}, "results": {"total": 3}},
        "links": {
            "current": base + "0",
            "first": base + "0",
            "last": base + "2",
            "prev": None,
            "next": base + "1",
        },
    }
