"""The exchange model: one recorded request and the response it got, as frozen values.

Headers keep their order, their case and their repeats; bodies are already decoded into JSON, text or
base64 (see `proxy.core.bodies`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Literal, TypeAlias

JSONValue: TypeAlias = "dict[str, JSONValue] | list[JSONValue] | str | int | float | bool | None"
Headers: TypeAlias = tuple[tuple[str, str], ...]
BodyKind: TypeAlias = Literal["empty", "json", "text", "base64"]


@dataclass(frozen=True, slots=True)
class Body:
    """A message body as stored: parsed JSON, text, base64 of binary bytes, or nothing.

    `decoded_from` names the Content-Encoding (gzip, deflate) that was removed before storing.
    """

    kind: BodyKind = "empty"
    value: JSONValue = None
    decoded_from: str | None = None


EMPTY_BODY = Body()


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


def with_response(exchange: Exchange, response: Response) -> Exchange:
    """The exchange with another response."""
    return replace(exchange, response=response)
