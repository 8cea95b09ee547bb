"""The exchange pane: heads and bodies as recorded, binary as hex, each finding with its citation,
where/expected/found and the exchange it is compared with; the keyboard; the open exchange in the URL."""

from __future__ import annotations

import json
from collections.abc import Callable
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import expect

from tests.system.ui.conftest import Opened, Served
from tests.system.ui.exchanges import body, detail, finding
from tests.system.ui.fake_api import FakeTraffic

PRETTY = json.dumps({"items": [{"sku": "A-1", "price": {"amount": "10.00"}}], "next": None}, indent=2)
REDACTED = "Bearer <redacted:token-1>"


def traffic(left_out: int = 0, mode: str = "replay") -> FakeTraffic:
    return FakeTraffic(
        [
            detail(1, path="/v2/products?page=1", response_body=body(PRETTY)),
            detail(
                2,
                path="/v2/products?page=2",
                request_headers=[["Host", "api.example.test"], ["Authorization", REDACTED]],
                response_body=body(PRETTY),
                findings=[
                    finding(
                        "pagination.total.stable",
                        "error",
                        "total_count changed between pages",
                        where="response.body.total_count",
                        expected=40,
                        found=41,
                        compared_with=1,
                    ),
                    finding(
                        "etag.strong",
                        "info",
                        "a weak ETag",
                        where="response.headers.ETag",
                        expected=None,
                        found='W/"x"',
                    ),
                ],
            ),
            detail(
                3,
                method="GET",
                path="/v2/images/1",
                response_headers=[["Content-Type", "image/png"]],
                response_body=body(hex_="89504e470d0a1a0a" + "00" * 24, size=9000),
            ),
            detail(4, method="DELETE", path="/v2/carts/9", status=None, response_body=body()),
        ],
        mode=mode,
        sources=["shop.yaml"],
        left_out=left_out,
    )


def opened_exchange(page: object) -> list[str]:
    return parse_qs(urlsplit(page.url).query).get("exchange", [])  # type: ignore[attr-defined]


def test_an_exchange_shows_heads_bodies_and_findings_with_their_citations(
    serve_ui: Callable[..., Served], open_page: Callable[..., Opened]
) -> None:
    served = serve_ui(traffic())
    opened = open_page(served.ui_url)
    page = opened.page
    page.locator(".spacer .row[data-id='2']").click()
    pane = page.locator("#pane")
    expect(pane.locator("h2")).to_have_text("GET /v2/products?page=2")
    assert opened_exchange(page) == ["2"]
    assert pane.locator("pre.json").first.inner_text() == PRETTY  # the recorded text, pretty-printed as sent
    request_heads = pane.locator("section.part").first.locator("table.headers tr")
    assert request_heads.nth(1).locator("th").inner_text() == "Authorization"
    assert request_heads.nth(1).locator("td").inner_text() == REDACTED
    findings = pane.locator(".finding")
    assert findings.count() == 2
    first = findings.first
    assert first.locator(".rule").inner_text() == "pagination.total.stable"
    assert first.locator(".message").inner_text() == "total_count changed between pages"
    facts = dict(
        zip(first.locator("dt").all_inner_texts(), first.locator("dd").all_inner_texts(), strict=True)
    )
    assert facts == {
        "where": "response.body.total_count",
        "expected": "40",
        "found": "41",
        "documented in": "§ Pagination",
        "read it": "commerce-proxy rules pagination.total.stable",
        "compared with": "exchange #1",
    }
    assert "compared with" not in findings.nth(1).inner_text()

    first.locator("a.compared").click()
    expect(pane.locator("h2")).to_have_text("GET /v2/products?page=1")
    assert opened_exchange(page) == ["1"]
    expect(pane.locator(".findings h3")).to_have_text("Findings (0)")
    page.go_back()
    expect(pane.locator("h2")).to_have_text("GET /v2/products?page=2")
    expect(page.locator("#left-out")).to_have_count(0)  # replay left no answer out: no line says so
    assert opened.problems == []


@pytest.mark.parametrize(
    ("mode", "left_out", "said"),
    [
        (
            "record",
            2,
            "2 earlier exchanges were recorded before this page was first opened and are not listed",
        ),
        ("spy", 1, "1 earlier exchange was seen before this page was first opened and is not listed"),
    ],
)
def test_the_line_above_the_list_says_what_each_live_server_left_out(
    serve_ui: Callable[..., Served], open_page: Callable[..., Opened], mode: str, left_out: int, said: str
) -> None:
    opened = open_page(serve_ui(traffic(left_out=left_out, mode=mode)).ui_url)
    expect(opened.page.locator("#list > p#left-out:first-child")).to_have_text(said)
    assert opened.problems == []


def test_binary_as_size_and_hex_and_no_body_said_so(
    serve_ui: Callable[..., Served], open_page: Callable[..., Opened]
) -> None:
    served = serve_ui(traffic(left_out=12_345))
    opened = open_page(served.ui_url + "&exchange=3")
    expect(opened.page.locator("#list > p#left-out:first-child")).to_have_text(
        "12,345 earlier answers were served before this page was first opened and are not listed"
    )
    pane = opened.page.locator("#pane")
    expect(pane.locator("h2")).to_have_text("GET /v2/images/1")  # opened from the URL
    response = pane.locator("section.part").nth(1)
    assert "binary, 8.8 KB" in response.locator(".body-note").inner_text()
    assert response.locator("pre.hex").inner_text().splitlines()[0] == (
        "00000000  89 50 4e 47 0d 0a 1a 0a 00 00 00 00 00 00 00 00  .PNG............"
    )
    opened.page.locator(".spacer .row[data-id='4']").click()
    expect(pane.locator("h2")).to_have_text("DELETE /v2/carts/9")
    assert pane.locator("section.part").nth(1).locator(".body").inner_text() == "no body"
    assert opened.problems == []


def test_the_keyboard_walks_the_list_and_opens_an_exchange(
    serve_ui: Callable[..., Served], open_page: Callable[..., Opened]
) -> None:
    served = serve_ui(traffic())
    opened = open_page(served.ui_url)
    page = opened.page
    page.locator(".scroller").focus()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowUp")
    expect(page.locator(".spacer .row.selected")).to_have_attribute("data-id", "2")
    page.keyboard.press("Enter")
    expect(page.locator("#pane h2")).to_have_text("GET /v2/products?page=2")
    expect(page.locator(".spacer .row.open")).to_have_attribute("data-id", "2")
    page.keyboard.press("Escape")
    expect(page.locator("#pane")).to_be_hidden()
    assert opened_exchange(page) == []
    assert opened.problems == []


def test_a_missing_exchange_says_so(
    serve_ui: Callable[..., Served], open_page: Callable[..., Opened]
) -> None:
    served = serve_ui(traffic())
    opened = open_page(served.ui_url + "&exchange=99")
    expect(opened.page.locator("#pane")).to_have_text("closeNo exchange #99.")
    assert [p for p in opened.problems if "404" not in p] == []
