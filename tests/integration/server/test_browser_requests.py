"""A browser's own requests, provoked by a page of ours (its site icon), are answered by record, spy and
replay themselves: never forwarded, recorded or matched. Failed before: a 403 page opened in a browser
made `record` forward and record `GET /favicon.ico`."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from proxy.store.journal import journal_path
from tests.integration.server.test_same_machine import Started, servers, status_for

__all__ = ["servers"]  # the fixture, shared with the Host table's tests

ICONS = ["/favicon.ico", "/FAVICON.ICO", "/apple-touch-icon.png", "/apple-touch-icon-precomposed.png"]
BROWSER_MARKS = ["Sec-Fetch-Dest: image", "sec-fetch-dest: Image", "Sec-Fetch-Dest:  image "]


@pytest.mark.parametrize("kind", ["record", "spy", "replay"])
async def test_a_browsers_icon_request_is_answered_here_and_an_api_clients_goes_on(
    servers: dict[str, Started], kind: str, tmp_path: Path
) -> None:
    url = await servers[kind]()
    port = url.rsplit(":", 1)[1]
    hits: dict[str, int] = servers["hits"]  # type: ignore[assignment]
    for path, mark, method in itertools.product(ICONS, BROWSER_MARKS, ["GET", "HEAD"]):
        head = (
            f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{mark}\r\nSec-Fetch-Mode: no-cors\r\n"
            "Connection: close\r\n\r\n"
        )
        status, body = await status_for(url, head)
        assert status == 404, (path, mark, method)
        assert method == "HEAD" or b"neither forwards nor records" in body
    assert not hits, hits
    journal = journal_path(tmp_path / "r.yaml")
    assert not journal.exists() or '"seq"' not in journal.read_text()  # its head line, no exchange
    # Not a browser's icon fetch: an API client (no Sec-Fetch headers), a page's own call (empty), a POST.
    for path, extra, method in [
        ("/favicon.ico", "", "GET"),
        ("/favicon.ico", "Sec-Fetch-Dest: empty\r\n", "GET"),
        ("/favicon.ico", "Sec-Fetch-Dest: image\r\nContent-Length: 0\r\n", "POST"),
        ("/v2/favicon.ico", "Sec-Fetch-Dest: image\r\n", "GET"),
    ]:
        head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{extra}Connection: close\r\n\r\n"
        status, body = await status_for(url, head)
        assert b"neither forwards nor records" not in body, (path, extra, method)
        if kind != "replay":
            assert hits.get(path), (path, extra, method)
