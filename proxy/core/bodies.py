"""Turning body bytes into stored bodies and back.

JSON is kept as a parsed document in the key order the sender used; other text as text; anything else
as base64. gzip and deflate content encodings are decoded for storage and noted.
"""

from __future__ import annotations

import base64
import json
import math
from collections.abc import Callable
from typing import Any

import orjson

from proxy.core.content_coding import codings_of, decoded
from proxy.core.exchange import EMPTY_BODY, Body, Headers, JSONFromText, JSONValue, header_value

MAX_DECODED_BYTES = 50 * 1024 * 1024  # what a compressed body may inflate to, unless told otherwise
JSON_MAX_DEPTH = 500  # a deeper body is kept as text: the recursive walks over it would overflow


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
    data, decoded_from = decode_content(raw, header_value(headers, "Content-Encoding"), limit)
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


def parse_json(text: str) -> JSONValue:
    """Strict JSON: NaN and Infinity are not JSON and are refused (ValueError), as is nesting past
    `JSON_MAX_DEPTH` (checks, redaction and reports walk a body recursively) and any other error.

    orjson (C) parses about three times as fast as the standard library; integers beyond 64 bits,
    which it refuses, go to the standard library.
    """
    try:
        if _inexact_for_orjson(text):
            raise orjson.JSONDecodeError("a number orjson may not keep exactly", text, 0)
        document = orjson.loads(text)
    except orjson.JSONDecodeError:
        try:
            document = json.loads(text, parse_float=_exact_float, parse_constant=_not_json)
        except RecursionError:  # orjson stops at 1,024 levels; the standard library recurses
            raise ValueError(f"nested more than {JSON_MAX_DEPTH} levels deep") from None
        _refuse_lone_surrogates(text, document)
    deep = JSON_MAX_DEPTH
    if len(text) > 2 * deep and not _written_by_orjson(document) and _deeper_than(document, deep):
        raise ValueError(f"nested more than {JSON_MAX_DEPTH} levels deep")
    return document  # type: ignore[no-any-return]


def _written_by_orjson(document: Any) -> bool:
    """Whether orjson writes `document`: it refuses more than 254 levels (3.11.6 on), so a document it
    writes is shallower than JSON_MAX_DEPTH. Writing costs about half of counting the brackets in the
    text, which the walk would need to be worth skipping (a 5 KB page: 4 us against 10)."""
    try:
        orjson.dumps(document)
    except orjson.JSONEncodeError:
        return False
    return True


def _deeper_than(document: Any, limit: int) -> bool:
    """Whether `document` nests more than `limit` levels, counted level by level without recursion."""
    level = [document]
    for _ in range(limit):  # after n rounds `level` holds the containers n + 1 levels down
        level = [
            child
            for item in level
            if isinstance(item, dict | list)
            for child in (item.values() if isinstance(item, dict) else item)
            if isinstance(child, dict | list)
        ]
        if not level:
            return False
    return True


def _not_json(constant: str) -> None:
    raise ValueError(f"{constant} is not JSON")


# orjson turns an integer past 64 bits into a float, and a float below the double's range into zero,
# without a word (one past it is an error). A text holding 19 digits in a row, or `e-` and three digits,
# goes to the standard library instead (digits inside strings send it there too: slower, never wrong),
# which keeps integers exact and, through `_exact_float`, refuses a float it cannot hold: such a body is
# kept as text, so replay gives back the number the upstream sent. A regular expression over the text
# would cost about three orjson parses; one translate and two substring tests about a third of one.
_DIGITS_AS_ZERO = bytes.maketrans(b"123456789E", b"000000000e")
_LONG_DIGIT_RUN = b"0" * 19


def _inexact_for_orjson(text: str | bytes) -> bool:
    raw = text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass")
    shape = raw.translate(_DIGITS_AS_ZERO)
    return _LONG_DIGIT_RUN in shape or (b"e-" in shape and b"e-000" in shape)


def loads_exact(line: bytes) -> Any:
    """A JSON document that orjson would change (an integer past 64 bits made a float) read by the
    standard library instead: journal lines, written from exact documents, read back exact."""
    if _inexact_for_orjson(line):
        return json.loads(line)
    return orjson.loads(line)


def _exact_float(literal: str) -> float:
    number = float(literal)
    mantissa = literal.lower().partition("e")[0]
    if math.isinf(number) or (number == 0.0 and mantissa.strip("-+0.")):
        raise ValueError(f"the number {literal[:40]} does not fit a double")
    return number


def _refuse_lone_surrogates(text: str, document: JSONValue) -> None:
    """A `\\ud800` escape alone decodes to a string UTF-8 cannot hold: such a body is kept as its text."""
    if "\\u" not in text:
        return
    try:
        dump_json(document)
    except UnicodeEncodeError:
        raise ValueError("a string holds a lone surrogate escape, which UTF-8 cannot hold") from None


def pretty_json(document: JSONValue) -> str:
    """Indented JSON in the document's own key order, as cassettes store it."""
    try:
        return orjson.dumps(document, option=orjson.OPT_INDENT_2).decode("utf-8")
    except TypeError:  # an integer beyond 64 bits
        return json.dumps(document, indent=2, ensure_ascii=False)


def body_to_bytes(body: Body) -> bytes:
    """The bytes to send for a stored body (decoded: a replayed answer carries no Content-Encoding)."""
    if body.kind == "json":
        return dump_json(body.value)
    if body.kind == "text":
        return str(body.value).encode("utf-8")
    if body.kind == "base64":
        return base64.b64decode(str(body.value))
    return b""


def dump_json(document: JSONValue) -> bytes:
    """Compact JSON in the document's own key order."""
    try:
        return orjson.dumps(document)
    except TypeError:  # an integer beyond 64 bits
        return json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


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
