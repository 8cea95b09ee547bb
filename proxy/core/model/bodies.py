"""Turning body bytes into stored bodies and back.

JSON is kept as a parsed document in the key order the sender used; other text as text; anything else
as base64. A Content-Encoding (gzip, deflate, br, zstd, or a chain of them) is decoded for storage and
noted.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

from proxy.core.model.content_coding import coding_header, codings_of, decoded
from proxy.core.model.exchange import EMPTY_BODY, Body, Headers, JSONFromText, JSONValue, header_value
from proxy.core.model.json_text import JSON_MAX_DEPTH as JSON_MAX_DEPTH
from proxy.core.model.json_text import dump_json as dump_json
from proxy.core.model.json_text import loads_exact as loads_exact
from proxy.core.model.json_text import parse_json as parse_json
from proxy.core.model.json_text import pretty_json as pretty_json

MAX_DECODED_BYTES = 50 * 1024 * 1024  # what a compressed body may inflate to, unless told otherwise


def is_json_type(content_type: str | None) -> bool:
    """Whether a Content-Type names JSON (application/json, application/vnd.api+json...)."""
    if not content_type:
        return False
    media = content_type.split(";", 1)[0].strip().lower()
    return media == "application/json" or media.endswith("+json")


def is_form_type(content_type: str | None) -> bool:
    """Whether a Content-Type names an HTML form body."""
    return bool(content_type) and "application/x-www-form-urlencoded" in str(content_type).lower()


def decode_content(
    raw: bytes, encoding: str | None, limit: int = MAX_DECODED_BYTES
) -> tuple[bytes, str | None]:
    """Undo a Content-Encoding (gzip, deflate, br, zstd, or a list of them) and name it; one not known
    here, or bytes that do not decode, are left as they are (and not noted).

    `BodyTooLarge` when the decoded bytes would pass `limit`: inflating is bounded, never done whole.
    """
    if not encoding or not raw or not codings_of(encoding):
        return raw, None
    data = decoded(raw, encoding, limit)
    return (raw, None) if data is None else (data, encoding.strip().lower())


def body_from_bytes(raw: bytes, headers: Headers, limit: int = MAX_DECODED_BYTES) -> Body:
    """Store body bytes in the most readable faithful form the headers allow (`BodyTooLarge` when a
    compressed body inflates past `limit`).

    A JSON body keeps the text it was parsed from (`source_text`): redaction searches it before walking.
    """
    data, decoded_from = decode_content(raw, coding_header(headers), limit)
    if not data:
        return Body("empty", None, decoded_from) if decoded_from else EMPTY_BODY
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return Body("base64", base64.b64encode(data).decode("ascii"), decoded_from)
    if is_json_type(header_value(headers, "Content-Type")):
        try:
            document = parse_json(text)
        except ValueError:
            pass
        else:
            return JSONFromText(value=document, decoded_from=decoded_from, text=text)
    return Body("text", text, decoded_from)


def body_to_bytes(body: Body) -> bytes:
    """The bytes to send for a stored body (decoded: a replayed answer carries no Content-Encoding)."""
    if body.kind == "json":
        return dump_json(body.value)
    if body.kind == "text":
        return str(body.value).encode("utf-8")
    if body.kind == "base64":
        return base64.b64decode(str(body.value))
    return b""


def map_strings(value: JSONValue, change: Callable[[str], str], keys: bool = False) -> JSONValue:
    """The document with `change` applied to every string value (and key, if asked).

    Returns the very same object when nothing changed, so callers can test with `is` and hot
    paths do not copy documents that needed no change.
    """
    if isinstance(value, str):
        return change(value)
    if isinstance(value, dict):
        changed = False
        result: dict[str, JSONValue] = {}
        for key, child in value.items():
            new_key = change(key) if keys else key
            new_child = map_strings(child, change, keys)
            changed = changed or new_key != key or new_child is not child
            result[new_key] = new_child
        return result if changed else value
    if isinstance(value, list):
        items = [map_strings(item, change, keys) for item in value]
        return items if any(new is not old for new, old in zip(items, value, strict=True)) else value
    return value


def error_document(status: int, title: str, detail: str, **extra: Any) -> dict[str, Any]:
    """An `{"errors": [...]}` body in the API's own error shape, for answers the proxies make up."""
    error: dict[str, Any] = {"status": str(status), "title": title, "detail": detail}
    error.update(extra)
    return {"errors": [error]}
