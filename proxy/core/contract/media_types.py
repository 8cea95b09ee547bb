"""Every comparison of a spec's media ranges (the keys of a `content`) with a Content-Type of the traffic,
in one place. No I/O.

Both are parsed by the standard library's `email.headerregistry` (RFC 2045's grammar, which HTTP's media
types share): the type and subtype case-insensitive, parameter names case-insensitive, quoted values
unquoted, whitespace around `;` and `=` ignored; the `charset` value is case-insensitive too. What
OpenAPI says of `content` keys (3.0 and 3.1, "Response Object"): the most specific range wins,
`text/plain; charset=utf-8` over `text/plain` over `text/*` over `*/*`. A range with parameters matches
a Content-Type that has each of them with the same value (it may have more); one without matches a
Content-Type with any. `application/*+json` matches every `+json` subtype.

`documenting` is the key that documents a Content-Type (None: the spec does not list it);
`judged_by` the key whose schema the body is judged against all the same when none documents it (the
same type with other parameters, or for a JSON body the spec's first JSON key with a schema), so a
content-type warning never hides what the body breaks.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from email.headerregistry import ContentTypeHeader, HeaderRegistry
from functools import lru_cache
from typing import Any

_PARSE = HeaderRegistry()
_CASELESS = frozenset({"charset"})  # parameters whose values are case-insensitive (RFC 2046 4.1.2)


@dataclass(frozen=True, slots=True)
class MediaType:
    """A media type or range: lower-case type and subtype, and its parameters (names lower-case)."""

    type: str
    subtype: str
    parameters: frozenset[tuple[str, str]] = frozenset()

    @property
    def essence(self) -> str:
        return f"{self.type}/{self.subtype}"

    def is_json(self) -> bool:
        """`application/json`, `application/vnd.api+json`..."""
        return self.essence == "application/json" or self.subtype.endswith("+json")

    def __str__(self) -> str:
        return self.essence + "".join(f"; {name}={value}" for name, value in sorted(self.parameters))


@lru_cache(maxsize=1024)
def parse(text: str) -> MediaType | None:
    """A Content-Type or a `content` key, or None when it is not a media type (`json`, `a/b/c`)."""
    header = _PARSE("content-type", text)
    if not isinstance(header, ContentTypeHeader):
        return None  # never: the registry's class for `content-type`
    if header.defects and not text.strip().lower().startswith(header.content_type):
        return None  # the parser's fallback (`text/plain`), not what was written
    parameters = frozenset(
        (name.lower(), value.lower() if name.lower() in _CASELESS else value)
        for name, value in header.params.items()
    )
    return MediaType(header.maintype, header.subtype, parameters)


def is_json(text: str) -> bool:
    """Whether a Content-Type or a `content` key names JSON."""
    media = parse(text)
    return media is not None and media.is_json()


def matches(key: MediaType, media: MediaType) -> bool:
    """Whether a spec's range `key` covers the traffic's `media`."""
    if key.type not in ("*", media.type):
        return False
    subtype = key.subtype in ("*", media.subtype)
    if not subtype and key.subtype.startswith("*+"):
        subtype = media.subtype.endswith(key.subtype[1:])
    return subtype and key.parameters <= media.parameters


def _specificity(key: MediaType) -> tuple[int, int, int]:
    return (key.type != "*", key.subtype != "*" and not key.subtype.startswith("*+"), len(key.parameters))


def documenting(content: Mapping[Any, Any], written: str) -> Any:
    """The key of `content` that documents this Content-Type (the most specific that covers it; the
    first written among equals), or None."""
    media = parse(written)
    if media is None:  # not a media type: only a key written the same way, or `*/*`, documents it
        return next((key for key in content if str(key).strip().lower() in (written.lower(), "*/*")), None)
    best: tuple[tuple[int, int, int], Any] | None = None
    for key in content:
        range_ = parse(str(key))
        if range_ is not None and matches(range_, media):
            rank = _specificity(range_)
            if best is None or rank > best[0]:
                best = (rank, key)
    return None if best is None else best[1]


def judged_by(content: Mapping[Any, Any], written: str) -> Any:
    """The key whose schema a body of this Content-Type is judged against when none documents it: the
    same type and subtype with other parameters, else for a JSON body the first JSON key with a
    schema; None when no schema fits it."""
    media = parse(written)
    if media is None:
        return None
    keys = [(key, parse(str(key))) for key in content]
    same = next((key for key, range_ in keys if range_ is not None and range_.essence == media.essence), None)
    if same is not None or not media.is_json():
        return same
    return next((key for key, kind in keys if kind is not None and with_schema(kind, content[key])), None)


def with_schema(range_: MediaType, node: Any) -> bool:
    """Whether a `content` entry documents a JSON body with a schema."""
    return range_.is_json() and isinstance(node, Mapping) and "schema" in node


def json_key(content: Mapping[Any, Any]) -> Any:
    """The first key of `content` documenting a JSON body with a schema, or None."""
    for key in content:
        range_ = parse(str(key))
        if range_ is not None and with_schema(range_, content[key]):
            return key
    return None
