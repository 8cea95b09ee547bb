"""Who may use a `/_proxy/` route: the one access decision of every server, as docs/security.md names it.

The UI's data and every call that changes state need the server's token in the X-Commerce-Proxy-Token
header: a browser sends cookies to every server on the same host whatever its port, but no page on
another origin can set a header on a request it makes. The printed address (`?token=T`) is answered with
a redirect to the page with the token in the fragment (`#token=T`, never sent to a server), where the
page's script keeps it; the redirect also sets a cookie that opens the page and its files alone (they
hold no data), named after the server's port so two servers never overwrite each other's, and whose
value is derived from the token, so a server on another port that receives it learns nothing of use.
A change also passes the cross-site check. The read-only admin routes scripts poll (health, findings,
usage) need no token. Pure: the token is given.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import re
import unicodedata
from dataclasses import dataclass
from urllib.parse import quote, unquote, unquote_plus, urlencode, urlsplit

from proxy.core.model.exchange import Headers
from proxy.core.model.hosts import HostPolicy, cross_site_refusal

OURS = "/_proxy/"
UI_PATH = "/_proxy/ui/"
PAGE_FILES = UI_PATH + "assets/"  # the page's script and style: no data, so the cookie opens them
TOKEN_COOKIE = "commerce_proxy_token"  # and `_PORT`: see `cookie_name`
TOKEN_HEADER = "X-Commerce-Proxy-Token"
TOKEN_PARAMETER = "token"
TOKEN_VARIABLE = "COMMERCE_PROXY_UI_TOKEN"  # a fixed token from the environment (scripts that POST)
READS = frozenset({"GET", "HEAD"})
# What every answer of a server with a UI carries outside the UI (docs/security.md): whatever its type, a
# document opened from it has an opaque origin (`sandbox`: no script, no storage, no cookie of ours), no
# page may frame it, and no browser guesses it into another type.
OUTSIDE_UI = (
    ("Content-Security-Policy", "sandbox; frame-ancestors 'none'"),
    ("X-Content-Type-Options", "nosniff"),
)
# What every answer under /_proxy/ (and every answer a server makes itself: its wire's errors, every
# answer of `commerce-proxy ui`'s server) carries: no script but the page's own files, no framing, no
# guessing of types, no address sent on, nothing kept by a cache.
UI_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' "
    "data:; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}
_PLAIN = re.compile(
    r"(?:/[A-Za-z0-9_~!$&'()*+,=:@-]+)*/?"
)  # ASCII; no escape, empty segment, dot, `\`, `;`, `#`
_DECODINGS = 4  # `%255F` is `%5F` once decoded, `_` twice: decoded until it stays, at most this often
_ESCAPE = re.compile(r"%[0-9A-Fa-f]{2}")
_ENDS = re.compile(r"[?#]")  # decoded, they end the path for an upstream that decodes before it splits
_TRAILING = ". \t\r\n\x0b\x0c\x00"  # what a file system or a lenient server drops from a name's end
_OUR_SEGMENT = OURS.strip("/")


def unreadable_target(target: str) -> str | None:
    """Why a request target is refused (400) before any server reads it, or None. A `#` has no place
    in an origin-form target (RFC 9112, 3.2.1): an upstream would cut the path there. A path still
    percent-encoded after the decoding limit could be read as anything by a server that decodes once
    more, so it is never forwarded."""
    if "#" in target:
        return "a request target holding '#' (a fragment) is not an origin-form target (RFC 9112)"
    if _decoded(target.partition("?")[0]) is None:
        return f"a request path still percent-encoded after {_DECODINGS} decodings is not served"
    return None


def ours(path: str) -> str | None:
    """The route a request's path names when any spelling of it is under `/_proxy/` (None: a path of
    the API, to forward or match): the one decision of what is ours, for every server and the wire.

    An upstream or a server in front of it may decode `%5F` (up to the limit), merge `//`, resolve `.`
    and `..`, take `\\` for `/`, drop `;parameters`, read `//host:port/...` as an authority and a path,
    fold Unicode (NFKC) or case, or drop a name's trailing dots, spaces, tabs and NULs, so each of those
    spellings is ours too: it is answered here as the route its plain spelling names (`/_proxy/...`,
    which the access decision judges: a route, or 404), never forwarded with our token's cookie beside
    it. A path past the decoding limit is ours as well (the
    wire refuses it first: `unreadable_target`)."""
    if _PLAIN.fullmatch(path) is not None:  # most paths: nothing to undo, one comparison
        return OURS[:-1] + path[len(OURS) - 1 :] if path[: len(OURS)].lower() in (OURS, OURS[:-1]) else None
    plain = _decoded(path)
    if plain is None:
        return path
    plain = _ENDS.split(plain, maxsplit=1)[0].replace("\\", "/")
    readings = [plain]
    if plain.startswith("//"):  # urlsplit and yarl read an authority here: judged that way too
        with contextlib.suppress(ValueError):  # `//[::1` : no authority a server could read either
            readings.append(urlsplit(plain).path)
    for reading in readings:
        route = _route(reading)
        if route is not None:
            return route
    return None


def _decoded(path: str) -> str | None:
    """The path with its escapes decoded until it stays; None when still escaped after the limit."""
    plain = path
    for _ in range(_DECODINGS):
        decoded = unquote(plain, errors="replace")
        if decoded == plain:
            return plain
        plain = decoded
    return plain if _ESCAPE.search(plain) is None else None


def _route(plain: str) -> str | None:
    """`plain`'s dot segments, `//` and `;parameters` resolved: the route when its first segment, folded,
    is ours."""
    segments: list[str] = []
    for segment in plain.split("/"):
        segment = segment.partition(";")[0]
        if segment == "..":
            if segments:
                segments.pop()
        elif segment not in ("", "."):
            segments.append(segment)
    if not segments or _folded(segments[0]) != _OUR_SEGMENT:
        return None
    trailing = "/" if plain.endswith(("/", "/.", "/..")) else ""
    return "/" + "/".join([_OUR_SEGMENT, *segments[1:]]) + trailing


def _folded(segment: str) -> str:
    return unicodedata.normalize("NFKC", segment).casefold().rstrip(_TRAILING)


def without_our_credentials(headers: Headers) -> Headers:
    """The headers less our token's header and our cookies (`commerce_proxy_token`, `..._PORT`) in
    any case, a Cookie header keeping its other cookies: what may leave this process for an upstream."""
    kept: list[tuple[str, str]] = []
    for name, value in headers:
        lowered = name.lower()
        if lowered == TOKEN_HEADER.lower():
            continue
        if lowered == "cookie":
            parts = [part for part in value.split(";") if not _our_cookie(part)]
            if len(parts) != value.count(";") + 1:
                value = ";".join(parts).strip()
                if not value:
                    continue
        kept.append((name, value))
    return tuple(kept)


def _our_cookie(part: str) -> bool:
    name = part.partition("=")[0].strip().lower()
    rest = name.removeprefix(TOKEN_COOKIE)
    return name.startswith(TOKEN_COOKIE) and (rest == "" or rest.startswith("_"))


@dataclass(frozen=True, slots=True)
class Allow:
    """Serve the request."""


@dataclass(frozen=True, slots=True)
class Refuse:
    """Answer `status` (403) with a one-line reason; nothing else happens."""

    status: int
    detail: str


@dataclass(frozen=True, slots=True)
class SetCookie:
    """Answer 303 to `location` (the URL with its token moved into the fragment), setting the page's
    cookie."""

    location: str
    cookie: str


Access = Allow | Refuse | SetCookie


def decide_access(
    method: str,
    target: str,
    headers: Headers,
    token: str,
    hosts: HostPolicy,
    reached_at: str | None,
    port: int | None,
) -> Access:
    """Whether a request for a `/_proxy/` target may be served. `token` is the server's; `hosts` and
    `reached_at` say which Host and Origin are this machine's; `port` is the one the server listens on
    (its cookie's name)."""
    path, _, query = target.partition("?")
    foreign = hosts.refusal(headers, reached_at) or hosts.page_refusal(headers, reached_at)
    if foreign is not None:
        return Refuse(403, foreign.detail)
    header = _same(_header(headers, TOKEN_HEADER), token)
    if method.upper() not in READS:
        why = cross_site_refusal(headers, hosts, reached_at)
        if why is not None:
            return Refuse(403, f"{method} {path} changes this server's state; refused because {why}")
        if not header:
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
        cookie = f"{cookie_name(port)}={page_pass(token)}; HttpOnly; SameSite=Strict; Path={UI_PATH}"
        fragment = f"#{TOKEN_PARAMETER}={quote(token, safe='')}"
        return SetCookie(path + (f"?{rest}" if rest else "") + fragment, cookie)
    if header:
        return Allow()
    page = path == UI_PATH or path.startswith(PAGE_FILES)
    if page and token and _same(_cookie(headers, cookie_name(port)), page_pass(token)):
        return Allow()
    if page:
        return Refuse(
            403,
            f"{UI_PATH} needs this server's token: open the address printed at start (ui: ...?token=...)",
        )
    return Refuse(
        403,
        f"{path} needs this server's token in the {TOKEN_HEADER} header (the page sends it; a cookie "
        "opens the page alone)",
    )


def cookie_name(port: int | None) -> str:
    """The page's cookie, named after the server's port: a browser keeps cookies per host, not per
    port, so two servers on one machine would otherwise overwrite each other's."""
    return TOKEN_COOKIE if port is None else f"{TOKEN_COOKIE}_{port}"


def page_pass(token: str) -> str:
    """The page cookie's value: derived from the token, from which the token cannot be had back, so a
    server on another port the browser sends it to can open no data or action with it."""
    return hmac.new(token.encode("utf-8", "replace"), b"commerce-proxy page", hashlib.sha256).hexdigest()


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
