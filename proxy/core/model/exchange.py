"""The exchange model: one recorded request and the response it got, as frozen values.

Headers keep their order, their case and their repeats; bodies are already decoded into JSON, text or
base64 (see `proxy.core.model.bodies`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Literal, TypeAlias

from proxy.core.model.json_text import JSONValue as JSONValue
from proxy.core.model.json_text import dump_json, parse_json

Headers: TypeAlias = tuple[tuple[str, str], ...]
BodyKind: TypeAlias = Literal["empty", "json", "text", "base64"]
BODY_KINDS: tuple[BodyKind, ...] = ("empty", "json", "text", "base64")


@dataclass(frozen=True, slots=True)
class Body:
    """A message body as stored: parsed JSON, text, base64 of binary bytes, or nothing.

    `decoded_from` names the Content-Encoding (gzip, deflate) that was removed before storing.
    """

    kind: BodyKind = "empty"
    value: JSONValue = None
    decoded_from: str | None = None


EMPTY_BODY = Body()
_UNPARSED = object()  # a JSONFromText's document before its first use


class JSONFromText(Body):
    """A JSON body parsed from its text on first use: a cassette loaded from its parse cache holds
    thousands of bodies, and replaying or checking one part of it should not pay for building them all.

    A value like any `Body`: it equals, and hashes as, the `Body` of the same kind, value and coding
    (so it is exactly as hashable as that `Body`: not when its value is an object or an array).
    `dataclasses.replace` gives one without text (`source_text` None) holding the new value.
    """

    __slots__ = ("_document", "_text")
    _text: str | None  # the JSON text; None once `dataclasses.replace` made it
    _document: JSONValue | object  # its parsed value, or _UNPARSED until first used

    def __init__(
        self,
        kind: BodyKind = "json",
        value: JSONValue | object = _UNPARSED,
        decoded_from: str | None = None,
        *,
        text: str | None = None,
    ) -> None:
        # Body is frozen: its fields are set once, here, as its own generated __init__ sets them.
        # Body's `value` slot stays unused: the property below stands in its place.
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "decoded_from", decoded_from)
        object.__setattr__(self, "_text", text)
        object.__setattr__(self, "_document", value)

    @property
    def value(self) -> JSONValue:
        if self._document is _UNPARSED:
            object.__setattr__(self, "_document", parse_json(self._text or "null"))
        return self._document  # type: ignore[return-value]

    def _key(self) -> tuple[BodyKind, JSONValue, str | None]:
        return (self.kind, self.value, self.decoded_from)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Body):
            return NotImplemented
        return self._key() == (other.kind, other.value, other.decoded_from)

    def __hash__(self) -> int:
        return hash(self._key())  # as Body's own (frozen dataclass) hash: equal bodies hash alike

    def __repr__(self) -> str:
        return f"JSONFromText(kind={self.kind!r}, value={self.value!r}, decoded_from={self.decoded_from!r})"


@dataclass(frozen=True, slots=True)
class Request:
    """A request as the client sent it: the raw query string is kept exactly (brackets unencoded)."""

    method: str
    path: str
    query: str = ""
    headers: Headers = ()
    body: Body = EMPTY_BODY

    @property
    def target(self) -> str:
        """Path plus query, as on the request line."""
        return f"{self.path}?{self.query}" if self.query else self.path


@dataclass(frozen=True, slots=True)
class Response:
    """A response as the upstream sent it."""

    status: int
    headers: Headers = ()
    body: Body = EMPTY_BODY
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class Exchange:
    """One request and its response, with when it arrived and how long the upstream took."""

    request: Request
    response: Response
    recorded_at: str | None = None
    duration_ms: float | None = None
    # Its cassette's `confirmed_at` (proxy.core.model.confirmation), given by the readers: stored once per
    # cassette, never per exchange, and no part of what the exchange says (not compared).
    confirmed_at: str | None = field(default=None, compare=False)


def fresh_value(body: Body) -> JSONValue:
    """A body's value, parsed for this use only when it has not been parsed yet: a check reads each
    exchange once, and keeping 50,000 parsed documents would cost memory and garbage collection."""
    if isinstance(body, JSONFromText) and body._document is _UNPARSED:
        return parse_json(body._text or "null")
    return body.value


HEADS_HELD = 1024  # bytes, about, that holding one exchange's request line and heads costs
PARSED_FACTOR = 8  # a parsed JSON document's memory, about, per byte of its text (CPython: about 7)


def held_lightly(exchange: Exchange) -> tuple[Exchange, int]:
    """The exchange as a server holds it for later (the UI's backlog), and about how many bytes that
    costs: a JSON body that still has its text is held without its parsed document, which takes about
    seven times the text's memory and is parsed again only if used."""
    request, request_size = _body_held(exchange.request.body)
    response, response_size = _body_held(exchange.response.body)
    size = HEADS_HELD + request_size + response_size
    if request is exchange.request.body and response is exchange.response.body:
        return exchange, size
    return (
        replace(
            exchange,
            request=replace(exchange.request, body=request),
            response=replace(exchange.response, body=response),
        ),
        size,
    )


def _body_held(body: Body) -> tuple[Body, int]:
    if isinstance(body, JSONFromText) and (text := body._text) is not None:
        if body._document is not _UNPARSED:
            body = JSONFromText(body.kind, decoded_from=body.decoded_from, text=text)
        return body, len(text)
    if body.kind == "json":  # a document built or changed (redacted), held parsed
        return body, PARSED_FACTOR * len(dump_json(body.value))
    return body, len(body.value) if isinstance(body.value, str) else 0


def source_text(body: Body) -> str | None:
    """The JSON text a body was parsed from, when it still has it (not for a body built or changed)."""
    return body._text if isinstance(body, JSONFromText) else None


def with_source_text(body: Body, text: str | None) -> Body:
    """A JSON body read back from a journal (which keeps the document) with the text it was first
    parsed from, as it came: what the UI shows of it. The body itself when `text` is None."""
    return body if text is None else JSONFromText(body.kind, body.value, body.decoded_from, text=text)


def header_value(headers: Headers, name: str) -> str | None:
    """The first value of a header, matched without regard to case."""
    wanted = name.lower()
    for key, value in headers:
        if key.lower() == wanted:
            return value
    return None


def is_bearer(authorization: str | None) -> bool:
    """Whether an Authorization value is `Bearer <token>` with a token (spec, Authentication)."""
    scheme, _, token = (authorization or "").strip().partition(" ")
    return scheme.lower() == "bearer" and bool(token.strip())


def without_headers(headers: Headers, names: Iterable[str]) -> Headers:
    """The headers less every one named (case-insensitive)."""
    dropped = {name.lower() for name in names}
    return tuple((key, value) for key, value in headers if key.lower() not in dropped)


def with_header(headers: Headers, name: str, value: str) -> Headers:
    """The headers with `name` set to `value`, in place of the first one of that name."""
    result: list[tuple[str, str]] = []
    placed = False
    for key, old in headers:
        if key.lower() == name.lower():
            if not placed:
                result.append((key, value))
                placed = True
            continue
        result.append((key, old))
    if not placed:
        result.append((name, value))
    return tuple(result)
