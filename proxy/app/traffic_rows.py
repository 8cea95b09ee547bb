"""An exchange and its findings as the UI's index keeps them (`Entry`), and the detail document the
API gives back from what was kept: heads, bodies (JSON pretty-printed from the exact recorded text,
text as is, binary as its size and the hex of its first 4 KiB), findings with their citations.

The exchange is redacted before it gets here; nothing is added to it on the way out."""

from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
import json
from collections.abc import Sequence
from typing import Any

from proxy.core.model.bodies import body_to_bytes, is_json_type
from proxy.core.model.charsets import InCharset, body_in_charset
from proxy.core.model.exchange import Body, Exchange, Headers, header_value, source_text
from proxy.core.model.json_text import dump_json, loads_exact, pretty_json
from proxy.core.rules.findings import SEVERITIES, Finding
from proxy.store.traffic_entries import Answered, Entry

HEX_BYTES = 4096  # of a binary body, shown as hex
TEXT_LONGEST = 2 * 1024 * 1024  # characters of a text or JSON body shown


def indexed_identity(exchange: Exchange) -> str:
    """What names one (redacted) exchange as the index keeps it: its request line, status, recorded
    time, and a digest of its kept heads and bodies. An action on an indexed row compares it with the
    exchange now at that row's position (`row_identity`), so it never acts on another one."""
    entry = entry_of(exchange, [], cassette=None, index=None, endpoint=None)
    detail = entry.detail
    return _identity(
        entry.method, entry.target, entry.status, entry.time, detail["request"], detail["response"]
    )


def row_identity(row: dict[str, Any], stored: dict[str, Any]) -> str:
    """`indexed_identity` of an exchange from its index row and kept document."""
    return _identity(
        row["method"], row["path"], row["status"], row["time"], stored["request"], stored["response"]
    )


def shown_identity(row: dict[str, Any], stored: dict[str, Any]) -> str:
    """What a page names the exchange it shows by, beside its id (which is a position, and moves): its
    `row_identity` and its cassette, since two cassettes may hold the same exchange."""
    return f"{row_identity(row, stored)} in {row.get('cassette')}"


def _identity(
    method: str, target: str, status: int | None, time: str | None, request: Any, response: Any
) -> str:
    text = json.dumps([method, target, status, time, request, response], ensure_ascii=False, sort_keys=True)
    return f"{method} {target} {status} {time} {hashlib.sha256(text.encode()).hexdigest()[:32]}"


def entry_of(
    exchange: Exchange,
    findings: Sequence[Finding],
    *,
    cassette: str | None,
    index: int | None,
    endpoint: str | None,
    answered: Answered | None = None,
) -> Entry:
    """What the index keeps of one (redacted) exchange and its findings."""
    request, response = exchange.request, exchange.response
    request_body, response_body = _stored(request.body), _stored(response.body)
    counted = [sum(1 for finding in findings if finding.severity == severity) for severity in SEVERITIES]
    return Entry(
        method=request.method,
        target=request.target,
        route=request.path,
        size=_size(response.body, response_body),
        cassette=cassette,
        index=index,
        status=response.status,
        time=exchange.recorded_at,
        duration_ms=exchange.duration_ms,
        endpoint=endpoint,
        severities=(counted[0], counted[1], counted[2]),
        rules=frozenset(finding.rule for finding in findings),
        answered=answered,
        request_text=_searched(request_body, request.headers),
        response_text=_searched(response_body, response.headers),
        detail={
            "request": _decoded(
                {"headers": [list(pair) for pair in request.headers], "body": request_body}, request.body
            ),
            "response": _decoded(
                {
                    "status": response.status,
                    "reason": response.reason,
                    "headers": [list(pair) for pair in response.headers],
                    "body": response_body,
                },
                response.body,
            ),
            "findings": [finding_document(finding) for finding in findings],
        },
    )


def searched_texts(exchange: Exchange) -> tuple[str, str]:
    """The request's and the response's body text as `entry_of` gives the text search (for an entry
    made in another process, which need not send back what this one has)."""
    request, response = exchange.request, exchange.response
    return (
        _searched(_stored(request.body), request.headers),
        _searched(_stored(response.body), response.headers),
    )


def _searched(stored: list[Any], headers: Headers) -> str:
    """A body's text as the text filter searches it, as the page shows it: a body in another charset as
    its text, JSON with its escapes undone (`\\u00e9` is searched as the `é` the page shows)."""
    in_charset = kept_in_charset(stored, headers)
    if in_charset is not None:
        text = in_charset[0].text
        return _unescaped(text) if is_json_type(header_value(_pairs(headers), "Content-Type")) else text
    if stored[0] == "json":
        return _unescaped(str(stored[1]))
    return str(stored[1]) if stored[0] == "text" else ""


def _unescaped(text: str) -> str:
    """JSON text with its `\\u` escapes written as the characters they stand for (compact, as
    `dump_json` writes it); as it is when it holds none (most bodies) or is not JSON after all."""
    if "\\u" not in text:
        return text
    try:
        return dump_json(loads_exact(text)).decode("utf-8", "surrogatepass")
    except ValueError:
        return text


def _decoded(kept: dict[str, Any], body: Body) -> dict[str, Any]:
    """A kept message with the Content-Encoding its body was decoded from, when it was (an action
    rebuilds the exchange, and a cassette exported from it, with it)."""
    if body.decoded_from is not None:
        kept["decoded_from"] = body.decoded_from
    return kept


def finding_document(finding: Finding, compared_with: int | None = None) -> dict[str, Any]:
    """A finding as the detail document shows it; `compared_with` only when known (never guessed)."""
    return {
        "rule": finding.rule,
        "severity": finding.severity,
        "message": finding.message,
        "where": finding.where,
        "expected": finding.expected,
        "found": finding.found,
        "citation": finding.citation,
        "section": finding.section,
        "compared_with": compared_with,
    }


def detail_document(row: dict[str, Any], stored: dict[str, Any]) -> dict[str, Any]:
    """The API's detail document: the row, the request and response with their bodies shown, the
    findings."""
    request, response = stored["request"], stored["response"]
    return {
        **row,
        "request": {
            "headers": request["headers"],
            "body": body_document(request["body"], request["headers"]),
        },
        "response": {
            "status": response["status"],
            "reason": response.get("reason"),
            "headers": response["headers"],
            "body": body_document(response["body"], response["headers"]),
        },
        "findings": stored["findings"],
        "identity": shown_identity(row, stored),
    }


def body_document(stored: list[Any], headers: Sequence[Sequence[str]] = ()) -> dict[str, Any]:
    """A kept body (`[kind, text]`, binary as base64) as the API's BODY; one in another charset its
    message's Content-Type declares (or a byte order mark shows) as its text, that charset named."""
    kind, text = stored
    if kind == "empty":
        return {"kind": "empty", "size": 0, "text": None, "hex": None, "truncated": False}
    in_charset = kept_in_charset(stored, headers)
    if in_charset is not None:
        read, size = in_charset
        json_kind = is_json_type(header_value(_pairs(headers), "Content-Type"))
        shown_kind, shown = "text", read.text
        if json_kind:
            with contextlib.suppress(ValueError):  # else shown as text
                shown_kind, shown = "json", pretty_json(loads_exact(read.text))
        cut = shown[:TEXT_LONGEST]
        return {
            "kind": shown_kind,
            "size": size,
            "text": cut,
            "hex": None,
            "truncated": len(cut) < len(shown),
            "charset": read.codec,
        }
    if kind == "binary":
        try:
            data = base64.b64decode(text)
        except (binascii.Error, ValueError):
            data = b""
        return {
            "kind": "binary",
            "size": len(data),
            "text": None,
            "hex": data[:HEX_BYTES].hex(),
            "truncated": len(data) > HEX_BYTES,
        }
    size = len(text.encode("utf-8", "surrogatepass"))
    if kind == "json":
        with contextlib.suppress(ValueError):  # else shown as recorded
            text = pretty_json(loads_exact(text))
    shown = text[:TEXT_LONGEST]
    return {"kind": kind, "size": size, "text": shown, "hex": None, "truncated": len(shown) < len(text)}


def kept_in_charset(stored: list[Any], headers: Sequence[Sequence[str]]) -> tuple[InCharset, int] | None:
    """A kept binary or text body's text in another charset (`body_in_charset`), and its size in bytes."""
    kind, text = stored
    if kind not in ("binary", "text"):
        return None
    try:
        read = body_in_charset(Body("base64" if kind == "binary" else "text", text), _pairs(headers))
    except (binascii.Error, ValueError):  # a kept binary body that is not base64: shown as binary
        return None
    return None if read is None else (read, len(read.encode(read.text)))


def _pairs(headers: Sequence[Sequence[str]]) -> Headers:
    return tuple((str(pair[0]), str(pair[1])) for pair in headers if len(pair) == 2)


def _stored(body: Body) -> list[Any]:
    """`[kind, text]`: JSON as its exact recorded text, text as is, binary as base64, or empty."""
    if body.kind == "json":
        exact = source_text(body)
        return ["json", exact if exact is not None else dump_json(body.value).decode("utf-8")]
    if body.kind == "text":
        return ["text", str(body.value)]
    if body.kind == "base64":
        return ["binary", str(body.value)]
    return ["empty", None]


def _size(body: Body, stored: list[Any]) -> int:
    """The body's size in bytes as sent."""
    kind, text = stored
    if kind in ("json", "text"):
        return len(text.encode("utf-8", "surrogatepass"))
    if kind == "binary":
        return len(body_to_bytes(body))
    return 0
