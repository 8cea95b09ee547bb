"""Bodies the recorder cannot read are not stored: a Content-Encoding it does not know (`compress`, a
private one) or bytes that do not decode as their coding says (a truncated gzip still inflates in
part) may hold a secret no scan can see. The message keeps its headers, without the coding, and one
more header saying why its body is missing. No I/O.
"""

from __future__ import annotations

from proxy.core.model.content_coding import coding_header, codings_of
from proxy.core.model.exchange import EMPTY_BODY, Body, Exchange, Headers, header_value

WITHHELD_HEADER = "X-Commerce-Proxy-Withheld"
_DROPPED = frozenset({"content-encoding", "content-length"})


def unread_coding(body: Body, headers: Headers) -> str | None:
    """The Content-Encoding still on a stored body (one that was not undone), or None."""
    if body.kind == "empty" or body.decoded_from is not None:
        return None
    encoding = coding_header(headers)
    if not encoding or codings_of(encoding) == []:  # none, or identity only
        return None
    return encoding.strip()


def withheld(body: Body, headers: Headers) -> tuple[Headers, Body] | None:
    """The headers and (empty) body to store instead of a body that could not be read, or None when
    the body was read."""
    coding = unread_coding(body, headers)
    if coding is None:
        return None
    kept = tuple((name, value) for name, value in headers if name.lower() not in _DROPPED)
    return (*kept, (WITHHELD_HEADER, withheld_reason(coding))), EMPTY_BODY


def withheld_reason(coding: str) -> str:
    """Why a body was not stored, as its header says it and the log says it once."""
    shown = "".join(character if character.isprintable() else "?" for character in coding[:60])
    return (
        f"body not stored: its Content-Encoding {shown!r} could not be undone, "
        "so it could not be searched for secrets"
    )


def withheld_in(exchange: Exchange) -> str | None:
    """Why a body of this (redacted) exchange was not stored, or None when both were."""
    for headers in (exchange.request.headers, exchange.response.headers):
        reason = header_value(headers, WITHHELD_HEADER)
        if reason is not None:
            return reason
    return None
