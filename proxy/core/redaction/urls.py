"""A URL as it may be written and logged: without its `user:password@` and with the values of
secret-named query parameters (`api_key`, `access_token`...) replaced, and the secrets it held.

Pure: the caller adds the secrets to the process's book (`proxy.core.redaction.book.KNOWN`).
"""

from __future__ import annotations

from urllib.parse import unquote, unquote_plus, urlsplit, urlunsplit

from proxy.core.redaction.policy import PLACEHOLDER, RedactionPolicy, named_parts, secret_names


def url_without_secrets(url: str, policy: RedactionPolicy | None = None) -> tuple[str, frozenset[str]]:
    """(the URL to show, the secret values taken out of it)."""
    parts = urlsplit(url)
    found: set[str] = set()
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, _, netloc = netloc.rpartition("@")
        user, _, password = userinfo.partition(":")
        found.update({user, password, unquote(user), unquote(password), userinfo})
    pieces = parts.query.split("&") if parts.query else []
    for position, key, raw in list(named_parts(pieces, secret_names(policy or RedactionPolicy()))):
        found.update({raw, unquote_plus(raw)})
        pieces[position] = f"{key}={PLACEHOLDER}"
    shown = urlunsplit((parts.scheme, netloc, parts.path, "&".join(pieces), parts.fragment))
    return shown, frozenset(value for value in found if value)
