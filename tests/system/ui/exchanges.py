"""Detail documents (docs/ui.md's shape) for the page's tests: a builder, and exchange N of a large set."""

from __future__ import annotations

import json
from typing import Any

Detail = dict[str, Any]
ENDPOINTS = ("listProducts", "getProduct", "getCart", "addCartItem", "createOrder")
METHODS = ("GET", "GET", "GET", "POST", "POST")


def body(
    text: str | None = None, *, kind: str | None = None, hex_: str | None = None, size: int | None = None
) -> dict[str, Any]:
    if text is None and hex_ is None:
        return {"kind": "empty", "size": 0, "text": None, "hex": None, "truncated": False}
    if hex_ is not None:
        length = size if size is not None else len(hex_) // 2
        return {"kind": "binary", "size": length, "text": None, "hex": hex_, "truncated": length > 4096}
    assert text is not None
    kind = kind or ("json" if text.lstrip().startswith(("{", "[")) else "text")
    return {"kind": kind, "size": len(text.encode()), "text": text, "hex": None, "truncated": False}


def finding(
    rule: str,
    severity: str = "error",
    message: str = "the rule is broken",
    *,
    where: str | None = "response.body",
    expected: Any = None,
    found: Any = None,
    compared_with: int | None = None,
) -> dict[str, Any]:
    return {
        "rule": rule,
        "severity": severity,
        "message": message,
        "where": where,
        "expected": expected,
        "found": found,
        "citation": f"commerce-proxy rules {rule}",
        "section": "§ Pagination",
        "compared_with": compared_with,
    }


def detail(
    number: int,
    *,
    method: str = "GET",
    path: str = "/v2/products",
    status: int | None = 200,
    endpoint: str | None = "listProducts",
    cassette: str | None = "shop",
    findings: list[dict[str, Any]] | None = None,
    request_headers: list[list[str]] | None = None,
    response_headers: list[list[str]] | None = None,
    request_body: dict[str, Any] | None = None,
    response_body: dict[str, Any] | None = None,
    answered: dict[str, Any] | None = None,
    reason: str | None = "OK",
) -> Detail:
    response = response_body or body(json.dumps({"items": [], "page": number}, indent=2))
    return {
        "id": number,
        "cassette": cassette,
        "index": None if cassette is None else number - 1,
        "method": method,
        "path": path,
        "status": status,
        "time": f"2025-01-02T10:{number // 60 % 60:02d}:{number % 60:02d}Z",
        "duration_ms": 12.5,
        "size": response["size"],
        "endpoint": endpoint,
        "findings": findings or [],
        "answered": answered,
        "request": {
            "headers": request_headers or [["Host", "api.example.test"]],
            "body": request_body or body(),
        },
        "response": {
            "status": status,
            "reason": reason,
            "headers": response_headers or [["Content-Type", "application/json"]],
            "body": response,
        },
    }


def numbered(number: int) -> Detail:
    """Exchange N of a large set: cheap, varied methods/statuses/endpoints, a finding on every 7th."""
    kind = number % len(ENDPOINTS)
    return detail(
        number,
        method=METHODS[kind],
        path=f"/v2/{ENDPOINTS[kind].lower()}/{number}",
        status=404 if number % 11 == 0 else 200,
        endpoint=ENDPOINTS[kind],
        findings=[finding("pagination.links.next", "warning")] if number % 7 == 0 else [],
    )
