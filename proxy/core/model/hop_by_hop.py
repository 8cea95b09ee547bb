"""Hop-by-hop headers (RFC 9110, section 7.6.1): they describe one connection and are never passed on."""

from __future__ import annotations

from proxy.core.model.exchange import Headers

HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "proxy-connection",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
    }
)


def end_to_end(headers: Headers, also_drop: frozenset[str] = frozenset()) -> Headers:
    """The headers a proxy passes on: less hop-by-hop ones and those the Connection header names."""
    dropped = set(HOP_BY_HOP) | also_drop
    for name, value in headers:
        if name.lower() == "connection":
            dropped.update(token.strip().lower() for token in value.split(",") if token.strip())
    return tuple((name, value) for name, value in headers if name.lower() not in dropped)
