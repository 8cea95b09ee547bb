"""Which requests may reach our servers from a browser: the Host they name, and where a change comes from.

A web page on another origin can reach a server on loopback by DNS rebinding: its own name, made to
resolve to 127.0.0.1, then names that page's origin in `Host`. So a server answers only a `Host` that
names this machine as the client reached it (loopback, the address it is bound to or was reached at,
any port) or a name the user allows. A page can also post a form to any address without rebinding:
a route that changes state refuses requests a browser marks as coming from another origin.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from functools import lru_cache

from proxy.core.model.exchange import Headers

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
NAME = re.compile(r"[a-z0-9_](?:[a-z0-9_-]{0,62})(?:\.[a-z0-9_](?:[a-z0-9_-]{0,62}))*\.?")
PORT = re.compile(r"[0-9]{1,5}")
SHOWN = 80  # characters of a refused value quoted back
# What a page on any origin can post without the browser asking the server first (CORS "simple").
FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data", "text/plain")
SAME_ORIGIN_FETCHES = frozenset({"same-origin", "none"})  # Sec-Fetch-Site of our own page or a typed URL
MARKS = ("origin", "sec-fetch-site")  # what a browser sends once; given twice, neither can be judged


@dataclass(frozen=True, slots=True)
class HostRefusal:
    """A request refused for its Host: 400 when the header is malformed, 421 when it names another host."""

    status: int
    detail: str


@lru_cache(maxsize=256)  # every request's Host is judged, and most come with one of a few values
def host_name(value: str) -> str | None:
    """The host a `Host` value (or an --allow-host name) names, lower-cased, its port checked and
    removed; None when it is not a host name or an IP literal with an optional port."""
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
            return _canonical(str(ipaddress.IPv6Address(address)))
        except ValueError:
            return None
    if not address or len(address) > 253 or not NAME.fullmatch(address):
        return None
    return _canonical(address)


@lru_cache(maxsize=256)
def _canonical(name: str) -> str:
    """An IP literal in one spelling (IPv4-mapped IPv6 as IPv4); a name as given."""
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return name
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return str(address.ipv4_mapped)
    return address.compressed


# The `Sec-Fetch-Site` values a request from this machine carries (none: not a browser's, or typed).
SITES_OF_THIS_MACHINE = frozenset(("", "same-origin", "same-site", "none"))


@dataclass(frozen=True, slots=True)
class HostPolicy:
    """The host names a server answers to besides loopback: the address it is bound to, and the names
    the user allows. The address a connection reached us at is allowed as well. `allowing` is how the
    user who started the server allows another name, in that adapter's words (`--allow-host NAME`), for
    a refusal to say; None when there is no such way."""

    allowed: frozenset[str] = frozenset()
    allowing: str | None = None

    @classmethod
    def of(
        cls, names: tuple[str, ...] | list[str] = (), bound: str | None = None, allowing: str | None = None
    ) -> HostPolicy:
        """From the allowed names (already checked with `host_name`) and the bound address (a wildcard,
        `0.0.0.0` or `::`, too: as a Host it names only this machine, and no other site's page is
        served there)."""
        given = {_canonical(name.strip().lower().strip("[]").removesuffix(".")) for name in names}
        if bound:
            given.add(_canonical(bound.strip().lower().strip("[]")))
        return cls(frozenset(given), allowing)

    def refusal(self, headers: Headers, reached_at: str | None) -> HostRefusal | None:
        """Why a request with these headers is not ours to answer, or None. A request without a Host
        (HTTP/1.0, a script) is no browser's; `reached_at` is the local address the connection came in on."""
        values = [value for name, value in headers if name.lower() == "host"]
        if not values:
            return None
        if len(values) > 1:
            return HostRefusal(400, "more than one Host header")
        name = host_name(values[0])
        if name is None:
            return HostRefusal(400, f"malformed Host header {values[0][:SHOWN]!r}")
        if self.answers_to(name, reached_at):
            return None
        return HostRefusal(
            421,
            f"Host {values[0][:SHOWN]!r} does not name this machine: this server answers to localhost, "
            "127.0.0.1, [::1] and the address it listens on (a web page on another site must not "
            "drive it)"
            + (f"; start it with {self.allowing} to answer to another name" if self.allowing else ""),
        )

    def page_refusal(self, headers: Headers, reached_at: str | None) -> HostRefusal | None:
        """Why a request is a page's on another origin, or None: an `Origin` (every cross-origin fetch and
        every form post carries one) that does not name this machine, or, without one, a browser's
        `Sec-Fetch-Site: cross-site` (an image or script tag). A page on this machine, a typed URL and a
        script pass; so `record` never forwards a foreign page's request with the upstream credentials.
        A mark given twice is refused: judging either one alone would let the other pass unjudged."""
        doubled = doubled_mark(headers)
        if doubled is not None:
            return HostRefusal(403, f"more than one {doubled} header: a browser sends one")
        origin = next((value.strip() for name, value in headers if name.lower() == "origin"), None)
        if origin is not None:
            if self._local_origin(origin, reached_at):
                return None
            return HostRefusal(
                403,
                f"a page at Origin {origin[:SHOWN]!r} may not use this server: it "
                "answers pages on this machine only"
                + (f" ({self.allowing} allows another)" if self.allowing else ""),
            )
        site = next(
            (value.strip().lower() for name, value in headers if name.lower() == "sec-fetch-site"), ""
        )
        if site not in SITES_OF_THIS_MACHINE:  # `cross-site`, and what no browser sends (a list of them)
            return HostRefusal(
                403,
                f"a page on another site may not use this server (Sec-Fetch-Site: {site[:SHOWN]}); "
                "it answers pages on this machine only",
            )
        return None

    def _local_origin(self, origin: str, reached_at: str | None) -> bool:
        scheme, separator, authority = origin.partition("://")
        if not separator or scheme.lower() not in ("http", "https") or "/" in authority:
            return False
        name = host_name(authority)
        return name is not None and self.answers_to(name, reached_at)

    def answers_to(self, name: str, reached_at: str | None) -> bool:
        """Whether a host name (from `host_name`) is this machine as this server sees it. A name with a
        trailing dot (`localhost.`, `127.0.0.1.`) never is, whichever name it ends: a resolver may send
        it past the hosts file, and no page of ours is served at it."""
        if name.endswith("."):
            return False
        if name in LOOPBACK_NAMES or name in self.allowed:
            return True
        return reached_at is not None and name == _canonical(reached_at.lower().partition("%")[0])


def doubled_mark(headers: Headers) -> str | None:
    """The browser's mark (Origin, Sec-Fetch-Site) that appears more than once, or None."""
    for mark in MARKS:
        if sum(1 for name, _ in headers if name.lower() == mark) > 1:
            return "Sec-Fetch-Site" if mark == "sec-fetch-site" else "Origin"
    return None


def cross_site_refusal(headers: Headers, policy: HostPolicy, reached_at: str | None) -> str | None:
    """Why a state-changing request looks sent by a page on another origin, or None.

    Browsers mark what a page sends: `Sec-Fetch-Site`, and `Origin` on every POST. A form from any
    site may post with the types in FORM_TYPES without asking first; our own clients never need them.
    A script sends none of these marks, so it is unaffected. A mark given twice is refused.
    """
    doubled = doubled_mark(headers)
    if doubled is not None:
        return f"it carries more than one {doubled} header"
    fields = {name.lower(): value.strip() for name, value in reversed(headers)}
    site = fields.get("sec-fetch-site")
    if site is not None and site.lower() not in SAME_ORIGIN_FETCHES:
        return f"the browser marks this request Sec-Fetch-Site: {site[:SHOWN]}"
    origin = fields.get("origin")
    if origin is not None:
        scheme, separator, authority = origin.partition("://")
        name = host_name(authority) if separator and scheme.lower() in ("http", "https") else None
        if name is None or not policy.answers_to(name, reached_at):
            return f"it comes from a page at Origin {origin[:SHOWN]!r}, not from this machine"
    kind = fields.get("content-type", "").partition(";")[0].strip().lower()
    if kind in FORM_TYPES:
        return f"its Content-Type {kind} is what a form on any web page can post"
    return None
