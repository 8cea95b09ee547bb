"""A body in another charset (UTF-16 here, as the server's detail document gives it) is shown in the
page as its text, the charset named in the note above it, never as hex; markup in it runs nothing."""

from __future__ import annotations

import base64
from collections.abc import Callable

from playwright.sync_api import expect

from proxy.app.traffic_rows import body_document
from tests.system.ui.conftest import Opened, Served
from tests.system.ui.exchanges import detail
from tests.system.ui.fake_api import FakeTraffic

TEXT = "note: café 日本 <img src=x onerror=alert(1)>\n"
HEADERS = [["Content-Type", "text/plain; charset=utf-16"]]


def test_a_utf16_body_is_shown_as_its_text_with_its_charset(
    serve_ui: Callable[..., Served], open_page: Callable[..., Opened]
) -> None:
    kept = ["binary", base64.b64encode(TEXT.encode("utf-16")).decode()]  # with its mark
    shown = body_document(kept, HEADERS)
    served = serve_ui(
        FakeTraffic(
            [detail(1, path="/v2/notes", response_headers=HEADERS, response_body=shown)],
            mode="offline",
            sources=["notes.yaml"],
        )
    )
    opened = open_page(served.ui_url + "&exchange=1")
    pane = opened.page.locator("#pane")
    expect(pane.locator("h2")).to_have_text("GET /v2/notes")
    response = pane.locator("section.part").nth(1)
    expect(response.locator(".body-note")).to_have_text(f"text in utf-16-le, {len(TEXT) * 2 + 2} B")
    assert response.locator("pre.text").inner_text() == TEXT
    assert response.locator("pre.hex").count() == 0 and pane.locator("img").count() == 0
    assert opened.problems == []
