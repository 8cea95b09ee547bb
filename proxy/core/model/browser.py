"""A browser's own requests, provoked by a page of ours, that no client of the API made.

A browser that shows any document of ours (the UI, a 403 page, a JSON error) asks the same server for
its icon. Forwarded, that request would reach the upstream and be recorded into the cassette as if the
client under test had made it. Browsers mark such a fetch `Sec-Fetch-Dest: image`; an API client sends
no `Sec-Fetch-*` headers, and a page's own API calls say `empty`, so both are forwarded as before.
"""

from __future__ import annotations

from proxy.core.model.exchange import Headers

ICON_PATHS = ("/favicon.ico", "/apple-touch-icon")  # what browsers ask for on their own (prefixes)


def browser_icon_request(method: str, path: str, headers: Headers) -> bool:
    """Whether this is a browser fetching a site icon on its own (never forwarded or recorded)."""
    if method not in ("GET", "HEAD") or not path.lower().startswith(ICON_PATHS):
        return False
    return any(
        name.lower() == "sec-fetch-dest" and value.strip().lower() == "image" for name, value in headers
    )
