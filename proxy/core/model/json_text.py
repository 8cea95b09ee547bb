"""JSON text in and out, exactly: strict parsing that refuses what cannot be kept as sent (numbers past
a double's range, lone surrogates, nesting past a limit), and writing in the document's own key order
with every number spelled as it was read (`-0`, `1E2` and `0.10` stay so, in cassettes and on replay).

The exchange model parses stored JSON lazily with it, so it imports nothing else of ours.
"""

from __future__ import annotations

import contextlib
import decimal
import json
import math
import re
import secrets
from typing import Any, TypeAlias

import orjson

JSONValue: TypeAlias = "dict[str, JSONValue] | list[JSONValue] | str | int | float | bool | None"
JSON_MAX_DEPTH = 500  # a deeper body is kept as text: the recursive walks over it would overflow


def parse_json(text: str) -> JSONValue:
    """Strict JSON: NaN and Infinity are not JSON and are refused (ValueError), as are a key repeated in
    one object (a document cannot keep both members), nesting past `JSON_MAX_DEPTH` (checks, redaction
    and reports walk a body recursively) and any other error.

    Every number keeps its text: one that `dump_json` would spell otherwise (`-0`, `1E2`, `1.50`, more
    digits than a double holds, an integer past 64 bits) is read as a `SpelledInt` or `SpelledFloat`.
    orjson (C) parses about three times as fast as the standard library and is used whenever its
    numbers are spelled as it writes them; other texts go to the standard library.
    """
    document, written_by_orjson = _parsed(text)
    deep = JSON_MAX_DEPTH
    if (
        len(text) > 2 * deep
        and not written_by_orjson
        and not _written_by_orjson(document)
        and _deeper_than(document, deep)
    ):
        raise ValueError(f"nested more than {JSON_MAX_DEPTH} levels deep")
    return document  # type: ignore[no-any-return]


def _parsed(text: str | bytes) -> tuple[Any, bool]:
    """The document with every number as its text reads (see `parse_json`), lone surrogates refused;
    and whether orjson wrote it already (see `_written_by_orjson`)."""
    raw = text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass")
    try:
        document = orjson.loads(raw)
        if not _spelled_as_orjson_writes(document, raw):
            raise orjson.JSONDecodeError("a number orjson would spell otherwise", "", 0)
    except orjson.JSONDecodeError:
        try:
            source = text if isinstance(text, str) else text.decode("utf-8")  # no guessing of encodings
            document = json.loads(
                source,
                parse_float=_float_of,
                parse_int=_int_of,
                parse_constant=_not_json,
                object_pairs_hook=_members_once,
            )
        except RecursionError:  # orjson stops at 1,024 levels; the standard library recurses
            raise ValueError(f"nested more than {JSON_MAX_DEPTH} levels deep") from None
        _refuse_lone_surrogates(raw, document)
        return document, False
    return document, True


def _members_once(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object whose keys are each named once: a document repeating one cannot be kept as sent (a
    parse keeps one of the members), so its body is kept as its text. orjson keeps the last member
    silently, but then writes the object shorter than the text, and the text comes here."""
    members = dict(pairs)
    if len(members) != len(pairs):
        seen: set[str] = set()
        twice = next(key for key, _ in pairs if key in seen or seen.add(key))  # type: ignore[func-returns-value]
        raise ValueError(f"the key {twice[:40]!r} is repeated in one object")
    return members


def _written_by_orjson(document: Any) -> bool:
    """Whether orjson writes `document`: it refuses more than 254 levels (3.11.6 on), so a document it
    writes is shallower than JSON_MAX_DEPTH. Writing costs about half of counting the brackets in the
    text, which the walk would need to be worth skipping (a 5 KB page: 4 us against 10)."""
    try:
        _orjson_dumps(document)
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


def is_integral(number: float) -> bool:
    """Whether a JSON number is a whole number, judged on its text when it keeps one: a double rounds
    `12.0000000000000000000001` to 12, and `1e-400` to 0, neither of which it is (JSON Schema counts a
    number with a zero fraction, `10.0` or `1E1`, as an integer)."""
    text = getattr(number, "text", None)
    if isinstance(text, str) and math.isfinite(number):
        with contextlib.suppress(decimal.InvalidOperation):
            exact = decimal.Decimal(text)
            return exact.is_finite() and exact == exact.to_integral_value()
    return math.isfinite(number) and number.is_integer()


class SpelledInt(int):
    """An integer that writes back as the text it was read from (`-0`, or past orjson's 64 bits): a
    plain `int` to every check, arithmetic and comparison."""

    text: str

    def __new__(cls, text: str) -> SpelledInt:
        number = super().__new__(cls, text)
        number.text = text
        return number

    def __repr__(self) -> str:
        return self.text

    def __reduce__(self) -> tuple[type[SpelledInt], tuple[str]]:
        return SpelledInt, (self.text,)

    def __copy__(self) -> SpelledInt:
        return self

    def __deepcopy__(self, memo: object) -> SpelledInt:
        return self


class SpelledFloat(float):
    """A float that writes back as the text it was read from (`1E2`, `1.50`, `-0.00`, more digits than a
    double holds): a plain `float` to every check, arithmetic and comparison."""

    __slots__ = ("text",)
    text: str

    def __new__(cls, text: str) -> SpelledFloat:
        number = super().__new__(cls, text)
        number.text = text
        return number

    def __repr__(self) -> str:
        return self.text

    def __reduce__(self) -> tuple[type[SpelledFloat], tuple[str]]:
        return SpelledFloat, (self.text,)

    def __copy__(self) -> SpelledFloat:
        return self

    def __deepcopy__(self, memo: object) -> SpelledFloat:
        return self


_ORJSON_INTS = (-(2**63), 2**64 - 1)  # what orjson reads and writes as integers


def _int_of(literal: str) -> int:
    number = int(literal)
    if literal == "-0" or not _ORJSON_INTS[0] <= number <= _ORJSON_INTS[1]:
        return SpelledInt(literal)
    return number


def _float_of(literal: str) -> float:
    """The float a literal means, spelled as sent when orjson would write it otherwise; one past a
    double's range (infinite, or a nonzero mantissa made zero) is refused: its body is kept as text."""
    number = float(literal)
    mantissa = literal.lower().partition("e")[0]
    if math.isinf(number) or (number == 0.0 and mantissa.strip("-+0.")):
        raise ValueError(f"the number {literal[:40]} does not fit a double")
    return number if orjson.dumps(number) == literal.encode("ascii") else SpelledFloat(literal)


_BLANKS = b" \t\n\r"


def _spelled_as_orjson_writes(document: Any, raw: bytes) -> bool:
    """Whether every number in `raw` is spelled as orjson writes `document`'s: the text and orjson's
    writing, blanks deleted, are then the same. Strings, blanks deleted from both, stay alike (or differ
    by an escape, and the standard library reads the text: slower, never wrong); a number orjson spells
    otherwise (`-0`, `1E2`, an integer past 64 bits it made a float, a float below a double's range it
    made zero) or a repeated key it kept once makes them differ. Writing and comparing cost about a
    third of the parse; a regular expression finding the numbers would cost several parses."""
    try:
        written = orjson.dumps(document)
    except orjson.JSONEncodeError:  # deeper than orjson writes: the standard library reads it
        return False
    return written == raw or written.translate(None, _BLANKS) == raw.translate(None, _BLANKS)


def loads_exact(line: str | bytes) -> Any:
    """A JSON document with its numbers as spelled (see `parse_json`): journal lines, written from
    exact documents, read back exact."""
    raw = line.encode("utf-8") if isinstance(line, str) else line
    return _parsed(raw.removesuffix(b"\n"))[0]


def _refuse_lone_surrogates(raw: bytes, document: JSONValue) -> None:
    """A `\\ud800` escape alone decodes to a string UTF-8 cannot hold: such a body is kept as its text."""
    if b"\\u" not in raw:
        return
    try:
        dump_json(document)
    except UnicodeEncodeError:
        raise ValueError("a string holds a lone surrogate escape, which UTF-8 cannot hold") from None


def pretty_json(document: JSONValue) -> str:
    """Indented JSON in the document's own key order and numbers' spelling, as cassettes store it."""
    try:
        return _orjson_dumps(document, orjson.OPT_INDENT_2).decode("utf-8")
    except TypeError:  # an integer beyond 64 bits, nesting orjson refuses, a lone surrogate
        return _stdlib_dumps(document, indent=2)


def dump_json(document: Any, sort_keys: bool = False) -> bytes:
    """Compact JSON in the document's own key order (or sorted) and numbers' spelling."""
    try:
        return _orjson_dumps(document, orjson.OPT_SORT_KEYS if sort_keys else 0)
    except TypeError:  # an integer beyond 64 bits, nesting orjson refuses, a lone surrogate
        return _stdlib_dumps(document, sort_keys=sort_keys).encode("utf-8")


def _orjson_dumps(document: Any, option: int = 0) -> bytes:
    return orjson.dumps(document, option=option | orjson.OPT_PASSTHROUGH_SUBCLASS, default=_spelling)


def _spelling(value: Any) -> Any:
    """How orjson writes what it passes through: a spelled number as its text, another subclass of a
    JSON type as that type."""
    if isinstance(value, SpelledInt | SpelledFloat):
        return orjson.Fragment(value.text)
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, int | float):
        return (int if isinstance(value, int) else float)(value)
    if isinstance(value, dict | list):
        return (dict if isinstance(value, dict) else list)(value)
    raise TypeError(f"{type(value).__name__} is not JSON")


def _stdlib_dumps(document: Any, indent: int | None = None, sort_keys: bool = False) -> str:
    """The standard library's writing, each spelled number first swapped for a marker string made with
    a random nonce (found in no document), then the marker's quoted text for the number's."""
    nonce = secrets.token_hex(16)
    texts: list[str] = []

    def marked(value: Any) -> Any:
        if isinstance(value, dict):
            return {key: marked(child) for key, child in value.items()}
        if isinstance(value, list):
            return [marked(item) for item in value]
        if isinstance(value, SpelledInt | SpelledFloat):
            texts.append(value.text)
            return f"{nonce}-{len(texts) - 1}"
        return value

    separators = (",", ": ") if indent is not None else (",", ":")
    text = json.dumps(
        marked(document), ensure_ascii=False, indent=indent, separators=separators, sort_keys=sort_keys
    )
    if not texts:
        return text
    return re.sub(f'"{nonce}-([0-9]+)"', lambda found: texts[int(found.group(1))], text)
