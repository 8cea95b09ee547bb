"""An answer of the wire server and its bytes, encoded once; and our own JSON answers."""

from __future__ import annotations

import json
from http import HTTPStatus
from typing import Any

from proxy.core.model.domain import response_fault
from proxy.core.model.exchange import Headers, Response
from proxy.core.redaction.book import KNOWN

NO_BODY_STATUSES = frozenset({204, 304})


class Outgoing:
    """An answer and its wire bytes, encoded once: a cached answer is written as is on every request."""

    __slots__ = ("_head", "body", "headers", "length", "reason", "status")

    def __init__(
        self,
        status: int,
        headers: Headers,
        body: bytes,
        reason: str | None = None,
        length: int | None = None,
    ) -> None:
        fault = response_fault(Response(status, headers, reason=reason))
        if fault is not None:  # the cassette reader refuses these already: this is the second line
            raise ValueError(f"an answer outside the cassette format: {fault}")
        self.status = status
        self.reason = reason
        self.headers = headers
        self.body = body
        self.length = len(body) if length is None else length  # a HEAD answer's differs from its body's
        self._head: bytes | None = None

    @property
    def head(self) -> bytes:
        """Status line and headers (with Content-Length), without the blank line that ends them."""
        if self._head is None:
            self._head = self._head_saying(self.length)
        return self._head

    def _head_saying(self, length: int) -> bytes:
        reason = self.reason or reason_phrase(self.status)
        lines = [f"HTTP/1.1 {self.status} {reason}"]
        lines.extend(f"{name}: {value}" for name, value in self.headers if not framing(name))
        if self.status not in NO_BODY_STATUSES:
            lines.append(f"Content-Length: {length}")
        return "\r\n".join(lines).encode("latin-1", "replace")

    def wire(self, head_only: bool, closing: bool, extra: bytes = b"") -> bytes:
        """The bytes to send: HEAD gets no body; a closing connection says so; `extra` header lines."""
        ending = b"\r\nConnection: close\r\n\r\n" if closing else b"\r\n\r\n"
        if head_only or self.status in NO_BODY_STATUSES:
            return self.head + extra + ending
        if self.length != len(self.body):  # a HEAD answer's length, sent with a body: the body's
            return self._head_saying(len(self.body)) + extra + ending + self.body
        return self.head + extra + ending + self.body


def reason_phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Unknown"


def framing(name: str) -> bool:
    """Headers this server writes itself, never copied from an answer."""
    return name.lower() in {"content-length", "transfer-encoding", "connection", "keep-alive"}


def json_answer(status: int, document: Any, headers: dict[str, str] | None = None) -> Outgoing:
    """A JSON answer of our own (admin endpoints, errors in the API's shape, near misses), scrubbed of
    every secret seen so far."""
    pairs = [("Content-Type", "application/json; charset=utf-8"), *(headers or {}).items()]
    text = json.dumps(document, ensure_ascii=False)
    return Outgoing(status, tuple(pairs), KNOWN.scrub(text).encode("utf-8"))
