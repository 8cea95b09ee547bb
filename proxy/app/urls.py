"""A URL a command was given for a service (`--upstream`, `--to`, `--origin`): an http(s) URL with a
host, whose secrets (a password, an api_key) are never echoed, in an error or anywhere else."""

from __future__ import annotations

from urllib.parse import urlsplit

from proxy.core.model.links import without_credentials
from proxy.core.redaction.book import KNOWN
from proxy.core.redaction.urls import url_without_secrets
from proxy.errors import UsageError


def checked_url(url: str, option: str) -> str:
    """`url` without its secrets and its trailing slash; a usage error naming `option` when it is not
    an http(s) URL with a host. Its secrets join those redacted from every output."""
    try:
        shown, secrets = url_without_secrets(url)
    except ValueError as error:  # `http://[::1` cannot be split, so it is not shown (it may hold a password)
        raise UsageError(f"{option}: not a URL ({error})") from None
    KNOWN.add(secrets)
    KNOWN.add([value for value in [without_credentials(url)[1]] if value])
    parts = urlsplit(url)
    try:
        host, port = parts.hostname, parts.port  # `port` reads the port: 99999, -5 and 8x are refused
    except ValueError as error:
        raise UsageError(f"{option} {shown!r}: {error}") from None
    if parts.scheme not in ("http", "https") or not host:
        raise UsageError(f"{option} {shown!r}: expected an http:// or https:// URL with a host")
    written = parts.netloc.rpartition("@")[2].lower().removesuffix(":")
    read = (f"[{host}]" if ":" in host else host) + ("" if port is None else f":{port}")
    if written != read:  # `[::1]x`, `host: 80`: something else after the host than `:PORT`
        raise UsageError(f"{option} {shown!r}: expected HOST or HOST:PORT after the scheme")
    if parts.query or parts.fragment or url.rstrip().endswith(("?", "#")):
        raise UsageError(f"{option} {shown!r}: a service's base URL takes no ?query or #fragment")
    return shown.rstrip("/")
