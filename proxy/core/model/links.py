"""Rewriting absolute URLs from one origin to another, so a client that follows links stays on us.

Only strings that are themselves absolute URLs at the old origin change; text that merely mentions
the origin does not.
"""

from __future__ import annotations

import base64
import functools
import json
import re
from urllib.parse import unquote, urlsplit, urlunsplit

from proxy.core.model.bodies import map_strings
from proxy.core.model.exchange import Headers, JSONValue

DEFAULT_PORTS = {"http": 80, "https": 443}
BACKSLASH = ord("\\")
# The rest of a JSON string from where the origin ends: its characters, the closing quote, and a colon
# when the string is a key.
STRING_REST = re.compile(rb'[^"\\]*(?:\\.[^"\\]*)*"(\s*:)?')


@functools.lru_cache(maxsize=256)  # record and replay ask for every request's Host: a handful of values
def origin_of(url: str) -> str:
    """`scheme://host[:port]` of a URL, lower-cased, the default port left out."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if ":" in host:
        host = f"[{host}]"
    port = parts.port
    if port is None or DEFAULT_PORTS.get(scheme) == port:
        return f"{scheme}://{host}"
    return f"{scheme}://{host}:{port}"


class OriginRewriter:
    """Rewrites URLs under `old` (an origin, maybe with a base path) to the origin `new`.

    The old origin may be spelled with or without its default port; a base path such as
    `https://gateway/commerce` is removed, since the proxy serves the API at its root (unless
    `keep_new_path`, for moving a cassette to another base URL).
    """

    def __init__(self, old: str, new: str, keep_new_path: bool = False) -> None:
        origin = origin_of(old)
        prefix = urlsplit(old).path.rstrip("/")
        self.old = origin + prefix
        self.new = origin_of(new) + (urlsplit(new).path.rstrip("/") if keep_new_path else "")
        scheme, _, host = origin.partition("://")
        self._spellings = [self.old]
        if ":" not in host.rsplit("]", 1)[-1] and scheme in DEFAULT_PORTS:
            self._spellings.append(f"{origin}:{DEFAULT_PORTS[scheme]}{prefix}")
        # The bytes path compares lower case as ASCII does; a spelling with other capitals declines. It
        # writes the new origin into JSON text as is: one that JSON must escape (a quote) declines too.
        self._json_ready = all(spelling == spelling.lower() for spelling in self._spellings) and (
            json.dumps(self.new, ensure_ascii=False)[1:-1] == self.new
        )

    @property
    def needed(self) -> bool:
        """False when both origins are the same and nothing would change."""
        return self.old != self.new

    def url(self, value: str) -> str:
        """The URL moved to the new origin when it is at the old one, else unchanged."""
        lowered = value[: len(self._spellings[-1]) + 1].lower()
        for spelling in self._spellings:
            if lowered.startswith(spelling) and (
                len(value) == len(spelling) or value[len(spelling)] in "/?#"
            ):
                return self.new + value[len(spelling) :]
        return value

    def mentions_old(self, raw: bytes) -> bool:
        """Cheap test before walking a document: does the old origin appear in the bytes at all?"""
        return any(spelling.encode() in raw.lower() for spelling in self._spellings)

    def json_bytes(self, raw: bytes) -> bytes | None:
        """JSON text with the strings `json` would move moved, found in the text without parsing it.

        About twenty times faster than walking the parsed document. In valid JSON an unescaped quote
        followed by the origin opens a string (a closing quote is never followed by a letter), and a
        string followed by a colon is a key, which stays. None when only parsing can tell: an escape
        right after the origin, or a character whose lower case is ASCII (the walk compares lower case).
        The origin is found with `bytes.find` in an ASCII-lowered copy (same offsets), many times faster
        than a regular expression's scan.
        """
        if not self._json_ready or (not raw.isascii() and (b"\xe2\x84\xaa" in raw or b"\xc4\xb0" in raw)):
            return None
        new = self.new.encode()
        for spelling in self._spellings:
            opening = b'"' + spelling.encode()
            lowered = raw.lower()
            pieces: list[bytes] = []
            done = 0
            start = lowered.find(opening)
            while start >= 0:
                rest_start = start + len(opening)
                string_end = STRING_REST.match(lowered, rest_start)
                if string_end is None:
                    return None  # no closing quote: not JSON text
                after = string_end.end()
                first = lowered[rest_start : rest_start + 1]
                if start and lowered[start - 1] == BACKSLASH:
                    pass  # an escaped quote inside a string, not one that opens a URL string
                elif string_end.group(1) is not None or (first != b'"' and first not in b"/?#"):
                    if first == b"\\":
                        return None
                    # a key, or a longer host that only starts like the origin: stays
                else:
                    pieces += [raw[done:start], b'"', new, raw[rest_start:after]]
                    done = after
                start = lowered.find(opening, rest_start)
            if pieces:
                pieces.append(raw[done:])
                raw = b"".join(pieces)
        return raw

    def json(self, value: JSONValue) -> JSONValue:
        """The document with every absolute URL string at the old origin moved (the same object if none)."""
        return map_strings(value, lambda text: self.url(text) if "://" in text else text)

    def headers(
        self, headers: Headers, names: frozenset[str] = frozenset({"location", "content-location"})
    ) -> Headers:
        """Headers whose URL values (Location...) point at the old origin, moved."""
        return tuple((name, self.url(value) if name.lower() in names else value) for name, value in headers)


def without_credentials(url: str) -> tuple[str, str | None]:
    """A URL without its `user:password@`, and the `Authorization` value those credentials mean (Basic,
    as HTTP clients use them), or None. The URL is what gets written and logged; the credentials are
    a secret like any other and only go on the wire."""
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url, None
    host = parts.netloc.rpartition("@")[2]
    user, password = unquote(parts.username or ""), unquote(parts.password or "")
    token = base64.b64encode(f"{user}:{password}".encode()).decode("ascii")
    return urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment)), f"Basic {token}"


def credential_parts(authorization: str | None) -> frozenset[str]:
    """The secrets in a Basic `Authorization` value: the encoded value and the password, which an
    upstream that echoes what it was sent would otherwise put in a recorded answer."""
    if not authorization:
        return frozenset()
    encoded = authorization.partition(" ")[2]
    password = base64.b64decode(encoded).decode("utf-8", "replace").partition(":")[2]
    return frozenset(part for part in (encoded, password) if part)
