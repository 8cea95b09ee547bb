"""The sandbox answers only requests whose Host names this machine, as the proxies' servers do.

A web page on another site could otherwise reach it on loopback by DNS rebinding. The sandbox imports
nothing else of ours (it is built from the documentation alone), so this is its own small copy of the
rule in `proxy/core/model/hosts.py`: loopback names, the address a client reached it at, and the names
given with --allow-host, any port.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Awaitable, Callable

from aiohttp import web

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
NAME = re.compile(r"[a-z0-9_](?:[a-z0-9_-]{0,62})(?:\.[a-z0-9_](?:[a-z0-9_-]{0,62}))*\.?")
PORT = re.compile(r"[0-9]{1,5}")
ALLOWED = web.AppKey("sandbox_allowed_hosts", frozenset)
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def host_name(value: str) -> str | None:
    """The host a Host value names, lower-cased and without its port; None when malformed."""
    text = value.strip().lower()
    if text.startswith("["):
        address, bracket, rest = text[1:].partition("]")
        if not bracket or (rest and not rest.startswith(":")):
            return None
        port = rest[1:] if rest else None
    else:
        address, colon, port_text = text.partition(":")
        port = port_text if colon else None
    if port is not None and not (PORT.fullmatch(port) and int(port) <= 65535):
        return None
    if text.startswith("["):
        try:
            return canonical(str(ipaddress.IPv6Address(address)))
        except ValueError:
            return None
    if not address or len(address) > 253 or not NAME.fullmatch(address):
        return None
    return canonical(address)


def canonical(name: str) -> str:
    """An IP literal in one spelling (IPv4-mapped IPv6 as IPv4); a name as given."""
    try:
        address = ipaddress.ip_address(name.partition("%")[0])
    except ValueError:
        return name
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return str(address.ipv4_mapped)
    return address.compressed


def error(status: int, title: str, detail: str) -> web.Response:
    """An `{"errors": [...]}` answer (api-notes, Errors)."""
    document = {"errors": [{"status": str(status), "title": title, "detail": detail}]}
    return web.json_response(document, status=status)


@web.middleware
async def same_machine(request: web.Request, handler: Handler) -> web.StreamResponse:
    """400 for a malformed Host, 421 for one naming another machine; a request without Host passes."""
    values = request.headers.getall("Host", [])
    if not values:
        return await handler(request)
    name = host_name(values[0]) if len(values) == 1 else None
    if name is None:
        return error(400, "Bad Request", f"malformed Host header {values[0][:80]!r}")
    local = request.transport.get_extra_info("sockname") if request.transport is not None else None
    reached_at = canonical(str(local[0]).lower()) if isinstance(local, tuple) else None
    answered = name in LOOPBACK_NAMES or name == reached_at or name in request.app[ALLOWED]
    if answered and not name.endswith("."):  # a trailing dot never names this machine, as in the proxies
        return await handler(request)
    detail = (
        f"Host {values[0][:80]!r} does not name this machine: the sandbox answers to localhost, "
        "127.0.0.1, [::1] and the address it listens on; start it with --allow-host NAME for another name"
    )
    return error(421, "Misdirected Request", detail)
