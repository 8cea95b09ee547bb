"""JSON text in and out, exactly: strict parsing that refuses what cannot be kept as sent (numbers a
double cannot hold, lone surrogates, nesting past a limit), and writing in the document's own key order.

The exchange model parses stored JSON lazily with it, so it imports nothing else of ours.
"""

from __future__ import annotations

import json
import math
from typing import Any, TypeAlias

import orjson

JSONValue: TypeAlias = "dict[str, JSONValue] | list[JSONValue] | str | int | float | bool | None"
JSON_MAX_DEPTH = 500  # a deeper body is kept as text: the recursive walks over it would overflow


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


def dump_json(document: JSONValue) -> bytes:
    """Compact JSON in the document's own key order."""
    try:
        return orjson.dumps(document)
    except TypeError:  # an integer beyond 64 bits
        return json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
