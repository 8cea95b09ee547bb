"""The list: windowed over the API at 100,000 exchanges, and every recorded value shown as text."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import expect

from tests.system.ui.conftest import Opened, Served
from tests.system.ui.exchanges import body, detail, finding, numbered
from tests.system.ui.fake_api import FakeTraffic

LARGE = 100_000
MOST_ROWS_IN_DOM = 300


def api_windows(requests: list[str]) -> list[dict[str, list[str]]]:
    return [
        parse_qs(urlsplit(url).query) for url in requests if urlsplit(url).path.endswith("/api/exchanges")
    ]


def rows_in_dom(page: Any) -> int:
    return int(page.locator(".spacer .row").count())


def test_a_hundred_thousand_rows_scroll_to_the_end_with_a_few_hundred_in_the_page(
    serve_ui: Callable[..., Served], open_page: Callable[..., Opened]
) -> None:
    served = serve_ui(FakeTraffic(mode="offline", sources=["big"], count=LARGE, make=numbered))
    opened = open_page(served.ui_url)
    page = opened.page
    assert page.locator(".spacer .row[data-id='1'] .c-path").inner_text() == "/v2/getproduct/1"
    assert rows_in_dom(page) <= MOST_ROWS_IN_DOM

    scroller = page.locator(".scroller")
    for fraction in (0.25, 0.5, 0.75, 1.0):
        scroller.evaluate(
            "(node, f) => { node.scrollTop = (node.scrollHeight - node.clientHeight) * f; }", fraction
        )
        page.wait_for_selector(".spacer .row[data-id] >> nth=0")
        assert rows_in_dom(page) <= MOST_ROWS_IN_DOM
    last = page.locator(f".spacer .row[data-id='{LARGE}']")
    last.wait_for()
    assert last.locator(".c-path").inner_text() == f"/v2/{'listproducts'}/{LARGE}"
    assert last.is_visible()
    expect(page.locator(".spacer .row:not([data-id])")).to_have_count(0)
    assert rows_in_dom(page) <= MOST_ROWS_IN_DOM

    # The keyboard walks on from the end's neighbours without loading everything either.
    page.keyboard.press("Home")
    page.locator(".spacer .row.selected[data-id='1']").wait_for()
    page.keyboard.press("End")
    page.locator(f".spacer .row.selected[data-id='{LARGE}']").wait_for()

    windows = api_windows(opened.requests)
    assert windows, opened.requests
    asked = [int(window["limit"][0]) for window in windows]
    assert max(asked) <= 500
    # Only windows near the places scrolled to were fetched: far fewer rows than exist.
    assert sum(asked) < LARGE / 10, sum(asked)
    assert opened.problems == []


PROBES = (
    "<script>window.__probe = 'script'</script>",
    "<img src=x onerror=\"window.__probe='img'\">",
    "javascript:window.__probe='link'",
)


def hostile_exchanges() -> list[dict[str, Any]]:
    script, image, link = PROBES
    return [
        detail(
            1,
            path=f"/v2/products?q={image}",
            endpoint=script,
            cassette=link,
            request_headers=[[script, image], ["Referer", link]],
            request_body=body(f'{{"name": "{script}"}}'),
            response_headers=[["X-Note", script], ["Link", f"<{link}>; rel=next"]],
            response_body=body(f'<html><body>{image}<a href="{link}">x</a></body></html>', kind="text"),
            findings=[
                finding(
                    script,
                    "error",
                    f"the name {image} is not allowed",
                    where=link,
                    expected=image,
                    found={"link": link},
                )
            ],
            answered={"by": "recording", "recording": script, "detail": image},
            reason=script,
        ),
        detail(2, path=f"/v2/{script}", method="POST", findings=[finding("etag.strong", "warning", link)]),
    ]


@pytest.mark.parametrize("csp", [True, False], ids=["with-csp", "page-alone"])
def test_recorded_markup_shows_as_text_and_runs_nothing(
    serve_ui: Callable[..., Served], open_page: Callable[..., Opened], csp: bool
) -> None:
    served = serve_ui(FakeTraffic(hostile_exchanges(), mode="replay"), csp=csp)
    opened = open_page(served.ui_url)
    page = opened.page
    script, image, link = PROBES
    assert page.locator(".spacer .row[data-id='1'] .c-path").inner_text() == f"/v2/products?q={image}"
    assert page.locator(".spacer .row[data-id='2'] .c-path").inner_text() == f"/v2/{script}"
    assert page.locator(".spacer .row[data-id='1'] .c-recording").inner_text() == f"{link}#0"
    assert script in page.locator("#counts").inner_text()

    page.locator(".spacer .row[data-id='1']").click()
    pane = page.locator("#pane")
    pane.locator(".finding").wait_for()
    shown = pane.inner_text()
    for probe in PROBES:
        assert probe in shown
    assert f"the name {image} is not allowed" in shown
    assert f'{{"name": "{script}"}}' in shown
    assert pane.locator("section.part h3").nth(1).inner_text() == f"Response: 200 {script}"  # the reason
    # Nothing recorded became an element or a link, and nothing ran or was blocked from running.
    assert page.evaluate("document.querySelectorAll('#main script, #main img, #main iframe').length") == 0
    hrefs = page.evaluate("[...document.querySelectorAll('a[href]')].map((a) => a.getAttribute('href'))")
    assert not any("javascript" in href for href in hrefs), hrefs
    page.locator(".spacer .row[data-id='2']").click()
    expect(pane.locator("h2 .path")).to_have_text(f"/v2/{script}")
    assert pane.locator(".finding .message").inner_text() == link
    assert page.evaluate("window.__probe") is None
    assert page.evaluate("window.__violations") == []
    assert opened.problems == []
