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
    shown, secrets = url_without_secrets(url)
    KNOWN.add(secrets)
    KNOWN.add([value for value in [without_credentials(url)[1]] if value])
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(f"{option} {shown!r}: expected an http:// or https:// URL with a host")
    return shown.rstrip("/")
