"""Everything a check may look at for one exchange, computed once and only when a check asks."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any, Generic, Literal, TypeVar
from urllib.parse import unquote_plus

from proxy.core.model.exchange import Exchange, fresh_value, header_value
from proxy.core.model.json_text import parse_json
from proxy.core.rules.checks.session import Session
from proxy.core.rules.endpoints import EndpointHit
from proxy.core.rules.shapes import ROOT_PLACE, PartViolation, Shape

T = TypeVar("T")
MEDIA_TYPE = re.compile(r"[a-z0-9][a-z0-9!#$&^_.+-]{0,63}/[a-z0-9][a-z0-9!#$&^_.+-]{0,63}")


class memoised(Generic[T]):
    """`functools.cached_property` without its lock (Python 3.11 takes one on every first read): a
    context is read by one thread, and the first read of its views happens on every exchange."""

    def __init__(self, function: Callable[[Any], T]) -> None:
        self.function = function
        self.name = function.__name__
        self.__doc__ = function.__doc__

    def __get__(self, instance: Any, owner: type | None = None) -> T:
        if instance is None:  # read on the class (help(), inspect)
            return self  # type: ignore[return-value]
        value = instance.__dict__[self.name] = self.function(instance)
        return value


class CheckContext:
    """One exchange, the endpoint it hit, the session so far, and memoised parsing of its parts."""

    def __init__(
        self,
        exchange: Exchange,
        index: int,
        hit: EndpointHit,
        session: Session,
        shapes: Mapping[str, Shape],
    ) -> None:
        self.exchange = exchange
        self.index = index
        self.hit = hit
        self.session = session
        self.shapes = shapes
        self._shape_results: dict[tuple[str, str], list[PartViolation]] = {}
        self.memo: dict[str, Any] = {}  # derived views several checks share (the page envelope...)
        self.integers: dict[str, int | Literal["invalid"] | None] = {}  # see requests.requested_integer

    @property
    def status(self) -> int:
        return self.exchange.response.status

    @property
    def succeeded(self) -> bool:
        return 200 <= self.exchange.response.status < 300

    @memoised
    def response_json(self) -> Any:
        """The response body when it is JSON, else None."""
        body = self.exchange.response.body
        return fresh_value(body) if body.kind == "json" else None

    @memoised
    def request_json(self) -> Any:
        """The request body when it is JSON, else None."""
        body = self.exchange.request.body
        return fresh_value(body) if body.kind == "json" else None

    @memoised
    def query(self) -> dict[str, list[str]]:
        """The request's query, percent-decoded, every value of every name in order.

        The same pairs as `parse_qsl(query, keep_blank_values=True)`, at a fifth of its cost for the usual
        query with nothing to decode (every exchange's checks read it).
        """
        parsed: dict[str, list[str]] = {}
        for pair in self.exchange.request.query.split("&"):
            if not pair:
                continue
            name, _, value = pair.partition("=")
            if "%" in pair or "+" in pair:
                name, value = unquote_plus(name), unquote_plus(value)
            parsed.setdefault(name, []).append(value)
        return parsed

    def parameter(self, name: str) -> str | None:
        """The first value of a query parameter, or None."""
        values = self.query.get(name)
        return values[0] if values else None

    def response_header(self, name: str) -> str | None:
        return header_value(self.exchange.response.headers, name)

    def request_header(self, name: str) -> str | None:
        return header_value(self.exchange.request.headers, name)

    def shape_violations(self, shape: str, document: str) -> list[PartViolation]:
        """The violations of the request or response JSON against a shape, computed once per exchange."""
        key = (shape, document)
        found = self._shape_results.get(key)
        if found is None:
            value = self.request_json if document == "request" else self.response_json
            found = self.shapes[shape].violations(value)
            message = self.exchange.request if document == "request" else self.exchange.response
            if found and message.body.kind != "json":  # not `null`: say what came instead
                content_type = header_value(message.headers, "Content-Type")
                said = body_description(message.body.kind, content_type, message.body.value)
                found = [
                    PartViolation(item.part, replace(item.violation, found=said))
                    if item.violation.where == ROOT_PLACE
                    else item
                    for item in found
                ]
            self._shape_results[key] = found
        return found


def body_description(kind: str, content_type: str | None, value: object = None) -> str:
    """What a body that is not JSON is, for a finding's `found`: `no body`, `a text/html body`, `an
    application/json body that is not valid JSON`, or one that is JSON a parse cannot keep whole (a key
    repeated in one object: JSON allows it, and parsers keep one member or the other)."""
    if kind == "empty":
        return "no body"
    media = (content_type or "").partition(";")[0].strip().lower()
    if not MEDIA_TYPE.fullmatch(media):
        media = "binary" if kind == "base64" else "text"
    article = "an" if media[0] in "aeiou" else "a"
    if "json" not in media:
        return f"{article} {media} body"
    repeated = repeated_key(value) if kind == "text" and isinstance(value, str) else None
    if repeated is not None:
        return f"{article} {media} body that repeats the key {repeated} in one object (parsers keep either)"
    return f"{article} {media} body that is not valid JSON"


def repeated_key(text: str) -> str | None:
    """The key (quoted) a JSON text repeats in one object, when that is what keeps it from a parse."""
    try:
        parse_json(text)
    except ValueError as error:
        said = str(error)
        if said.startswith("the key ") and said.endswith(" is repeated in one object"):
            return said.removeprefix("the key ").removesuffix(" is repeated in one object")
    return None


def dig(document: Any, *steps: str) -> Any:
    """The value at a path of object keys, or None when any step is missing or not an object."""
    for step in steps:
        if not isinstance(document, dict):
            return None
        document = document.get(step)
    return document


def is_integer(value: Any) -> bool:
    """A JSON integer (not a boolean, which Python counts as one)."""
    return isinstance(value, int) and not isinstance(value, bool)


def record_value(record: Any, attribute: str) -> Any:
    """A record's value of a sort or filter attribute: in `attributes`, `meta.timestamps`, or on the
    record itself (custom API entries keep fields on `data`)."""
    for place in (dig(record, "attributes"), dig(record, "meta", "timestamps"), record):
        if isinstance(place, dict) and attribute in place:
            return place[attribute]
    return None
