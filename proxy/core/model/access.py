"""Who may use a `/_proxy/` route: the one access decision of every server, as docs/security.md names it.

The UI shows recorded traffic, so it needs the server's token: a cookie set from the printed address
(`?token=T`, answered with a redirect that drops it from the URL), or the header scripts send. A call
that changes state needs the header itself, since a browser sends a cookie with any page's request but
no page on another origin can set a header on a plain request; and it passes the cross-site check. The
read-only admin routes scripts poll (health, findings, usage) need no token. Pure: the token is given.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from urllib.parse import unquote_plus, urlencode

from proxy.core.model.exchange import Headers
from proxy.core.model.hosts import HostPolicy, cross_site_refusal

OURS = "/_proxy/"
UI_PATH = "/_proxy/ui/"
TOKEN_COOKIE = "commerce_proxy_token"
TOKEN_HEADER = "X-Commerce-Proxy-Token"
TOKEN_PARAMETER = "token"
TOKEN_VARIABLE = "COMMERCE_PROXY_UI_TOKEN"  # a fixed token from the environment (scripts that POST)
READS = frozenset({"GET", "HEAD"})


@dataclass(frozen=True, slots=True)
class Allow:
    """Serve the request. `page`: it came with the token's cookie, so from the page the printed address
    opened (which cannot read its HttpOnly cookie, and learns the token for its POSTs from /api/info)."""

    page: bool = False


@dataclass(frozen=True, slots=True)
class Refuse:
    """Answer `status` (403) with a one-line reason; nothing else happens."""

    status: int
    detail: str


@dataclass(frozen=True, slots=True)
class SetCookie:
    """Answer 303 to `location` (the URL without its token), setting the token's cookie."""

    location: str
    cookie: str


Access = Allow | Refuse | SetCookie


def decide_access(
    method: str, target: str, headers: Headers, token: str, hosts: HostPolicy, reached_at: str | None
) -> Access:
    """Whether a request for a `/_proxy/` target may be served. `token` is the server's; `hosts` and
    `reached_at` say which Host and Origin are this machine's."""
    path, _, query = target.partition("?")
    foreign = hosts.refusal(headers, reached_at) or hosts.page_refusal(headers, reached_at)
    if foreign is not None:
        return Refuse(403, foreign.detail)
    changes = method.upper() not in READS
    if changes:
        why = cross_site_refusal(headers, hosts, reached_at)
        if why is not None:
            return Refuse(403, f"{method} {path} changes this server's state; refused because {why}")
        if not _same(_header(headers, TOKEN_HEADER), token):
            return Refuse(
                403,
                f"{method} {path} changes this server's state; send the token printed at start in the "
                f"{TOKEN_HEADER} header",
            )
        return Allow()
    if not path.startswith(UI_PATH):
        return Allow()  # health, findings, usage: for scripts on this machine, as documented
    parts = [part for part in query.split("&") if part]
    given = [unquote_plus(part.partition("=")[2]) for part in parts if _named_token(part)]
    if given:
        if not all(_same(value, token) for value in given):
            return Refuse(403, f"the token in this address is not this server's ({UI_PATH})")
        rest = "&".join(part for part in parts if not _named_token(part))  # the rest as it was written
        cookie = f"{TOKEN_COOKIE}={token}; HttpOnly; SameSite=Strict; Path={OURS}"
        return SetCookie(path + (f"?{rest}" if rest else ""), cookie)
    if _same(_cookie(headers, TOKEN_COOKIE), token):
        return Allow(page=True)
    if _same(_header(headers, TOKEN_HEADER), token):
        return Allow()
    return Refuse(
        403,
        f"{UI_PATH} needs this server's token: open the address printed at start (ui: ...?token=...), "
        f"or send the {TOKEN_HEADER} header",
    )


def ui_address(base_url: str, token: str) -> str:
    """The address printed at start: the page, with the token that sets its cookie."""
    return f"{base_url}{UI_PATH}?{urlencode({TOKEN_PARAMETER: token})}"


def _named_token(part: str) -> bool:
    return unquote_plus(part.partition("=")[0]) == TOKEN_PARAMETER


def _same(given: str | None, token: str) -> bool:
    """Constant-time: the time taken says nothing of how much of a guess was right."""
    if given is None or not token:
        return False
    return hmac.compare_digest(given.encode("utf-8", "replace"), token.encode("utf-8", "replace"))


def _header(headers: Headers, wanted: str) -> str | None:
    values = [value.strip() for name, value in headers if name.lower() == wanted.lower()]
    return values[0] if len(values) == 1 else None  # two tokens: neither is taken


def _cookie(headers: Headers, wanted: str) -> str | None:
    """The one value of a cookie among every Cookie header; None when absent or given twice."""
    found = [
        value.strip()
        for name, line in headers
        if name.lower() == "cookie"
        for key, _, value in (part.strip().partition("=") for part in line.split(";"))
        if key == wanted
    ]
    return found[0] if len(found) == 1 else None
