"""Live rows: exchanges the server adds while the page is open arrive through /api/events."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.system.ui.conftest import Opened, Served
from tests.system.ui.exchanges import detail, finding
from tests.system.ui.fake_api import FakeTraffic

RULE = "cart.total.sum"


def last_in_view(page: Any, number: int) -> None:
    """Row `number` is drawn and in the list's view."""
    expect(page.locator(f".spacer .row[data-id='{number}']")).to_be_in_viewport()


def event_streams(requests: list[str]) -> list[str]:
    return [url for url in requests if "/api/events" in url]


def test_new_exchanges_appear_with_their_findings_and_counts(
    serve_ui: Callable[..., Served], open_page: Callable[..., Opened]
) -> None:
    served = serve_ui(FakeTraffic([detail(n) for n in (1, 2, 3)], mode="record", sources=["live.yaml"]))
    opened = open_page(served.ui_url)
    page = opened.page
    expect(page.locator("#info")).to_contain_text("live")
    served.add([detail(0, method="POST", path="/v2/carts/7/items", findings=[finding(RULE)])])
    new_row = page.locator(".spacer .row[data-id='4']")
    expect(new_row.locator(".c-path")).to_have_text("/v2/carts/7/items")
    expect(new_row.locator(".badge.error")).to_have_text("1")
    expect(page.locator(f"#counts ul.rules button[data-value='{RULE}'] .count")).to_have_text("1")
    expect(page.locator("#matching")).to_have_text("4")
    expect(page.locator("#info")).to_contain_text("4 exchanges")
    # Pushed, not polled: one stream from the cursor the page started at, and no window asked again.
    assert [url.split("?")[1] for url in event_streams(opened.requests)] == ["cursor=3"]
    assert [url for url in opened.requests if "/api/exchanges?" in url] == [
        f"{served.base_url}/_proxy/ui/api/exchanges?offset=0&limit=200"
    ]
    assert opened.problems == []


def test_under_a_filter_only_matching_new_exchanges_appear(
    serve_ui: Callable[..., Served], open_page: Callable[..., Opened]
) -> None:
    served = serve_ui(FakeTraffic([detail(n) for n in (1, 2, 3)], mode="spy"))
    opened = open_page(served.ui_url + f"&rule={RULE}", wait_for="#list p.empty:not(:empty)")
    page = opened.page
    expect(page.locator("#info")).to_contain_text("live")
    served.add([detail(0, path="/v2/plain"), detail(0, path="/v2/broken", findings=[finding(RULE)])])
    expect(page.locator(".spacer .row[data-id='5'] .c-path")).to_have_text("/v2/broken")
    expect(page.locator("#matching")).to_have_text("1")
    assert page.locator(".spacer .row[data-id='4']").count() == 0
    assert opened.problems == []


def test_the_list_follows_the_end_while_it_is_scrolled_there(
    serve_ui: Callable[..., Served], open_page: Callable[..., Opened]
) -> None:
    served = serve_ui(FakeTraffic([detail(n) for n in range(1, 101)], mode="record"))
    opened = open_page(served.ui_url)
    page: Any = opened.page
    expect(page.locator("#info")).to_contain_text("live")
    page.keyboard.press("End")
    expect(page.locator(".spacer .row.selected")).to_have_attribute("data-id", "100")
    served.add([detail(0, path=f"/v2/later/{n}") for n in range(30)])
    last = page.locator(".spacer .row[data-id='130']")
    expect(last).to_be_in_viewport()
    assert opened.problems == []


def test_the_list_resumes_after_the_event_stream_drops_with_every_exchange_once(
    serve_ui: Callable[..., Served], open_page: Callable[..., Opened]
) -> None:
    traffic = FakeTraffic([detail(n) for n in (1, 2, 3)], mode="record", sources=["live.yaml"])
    served = serve_ui(traffic)
    opened = open_page(served.ui_url)
    page: Any = opened.page
    expect(page.locator("#info")).to_contain_text("live")
    page.evaluate("window.__same_page = true")  # gone if the page reloads
    served.add([detail(0, path=f"/v2/before/{n}") for n in (4, 5)])
    expect(page.locator(".spacer .row[data-id='5'] .c-path")).to_have_text("/v2/before/5")
    # The server drops the stream, refuses the next try, and exchanges arrive while the page is away.
    traffic.drop_streams(refuse=1)
    served.add([detail(0, path=f"/v2/after/{n}") for n in (6, 7, 8)])
    expect(page.locator(".spacer .row[data-id='8'] .c-path")).to_have_text("/v2/after/8")
    expect(page.locator("#info")).to_contain_text("8 exchanges")
    expect(page.locator("#info")).to_contain_text("live")
    ids = page.locator(".spacer .row[data-id]").evaluate_all("rows => rows.map(row => row.dataset.id)")
    assert ids == [str(n) for n in range(1, 9)]
    assert page.evaluate("window.__same_page") is True
    # It resumed from its cursor each time (never from the start), through one refused try.
    assert traffic.streams[0] == 3 and len(traffic.streams) >= 3
    assert all(cursor >= 5 for cursor in traffic.streams[1:])
    assert [p for p in opened.problems if "503" not in p] == []


def test_an_exchange_opened_before_it_is_indexed_is_shown_when_it_arrives(
    serve_ui: Callable[..., Served], open_page: Callable[..., Opened]
) -> None:
    """A live page opened at `exchange=N` before N is in the index (the address printed as an exchange
    is sent) says so, then shows N when its row is pushed; an empty list's notice goes with its first
    pushed rows."""
    served = serve_ui(FakeTraffic([], mode="record", sources=["live.yaml"]))
    opened = open_page(served.ui_url + "&exchange=2", wait_for="#pane p.empty")
    page = opened.page
    expect(page.locator("#pane p.empty")).to_have_text("No exchange #2.")
    expect(page.locator("#list p.empty")).to_have_text("No exchange matches.")
    served.add([detail(0, path="/v2/first")])
    expect(page.locator(".spacer .row[data-id='1'] .c-path")).to_have_text("/v2/first")
    expect(page.locator("#list p.empty")).to_have_text("")
    expect(page.locator("#pane p.empty")).to_have_text("No exchange #2.")
    served.add([detail(0, path="/v2/second")])
    expect(page.locator("#pane h2 .path")).to_have_text("/v2/second")
    assert [
        problem for problem in opened.problems if "404 (Not Found)" not in problem
    ] == []  # #2 asked early


def test_a_page_following_a_long_session_keeps_only_the_pages_near_its_view(
    serve_ui: Callable[..., Served], open_page: Callable[..., Opened]
) -> None:
    """Rows pushed while the list follows the end are not all kept: the page holds the pages near its view
    (as scrolling does), so a page left open on a busy `record` does not grow without bound; the rows it
    let go are fetched again when scrolled back to."""
    served = serve_ui(FakeTraffic([detail(n) for n in range(1, 11)], mode="record"))
    opened = open_page(served.ui_url)
    page: Any = opened.page
    expect(page.locator("#info")).to_contain_text("live")
    page.keyboard.press("End")
    long_path = "/v2/products/" + "p" * 400
    batches, size = 30, 1_000
    for batch in range(batches):
        served.add([detail(0, path=f"{long_path}/{batch}/{n}") for n in range(size)])
        last_in_view(page, 10 + (batch + 1) * size)
    # Only the rows in view and a small margin are in the document, not every row that scrolled past.
    in_view = page.eval_on_selector(".scroller", "node => Math.ceil(node.clientHeight / 24)")
    assert page.locator(".spacer .row").count() <= in_view + 25
    session = page.context.new_cdp_session(page)
    session.send("HeapProfiler.collectGarbage")
    heap_mb = session.send("Runtime.getHeapUsage")["usedSize"] / 1e6
    # 30,000 rows of 0.4 KB paths would be about 15 MB held; 12 pages of 200 rows are about 1 MB.
    assert heap_mb < 8, f"the page holds {heap_mb:.1f} MB after {batches * size:,} pushed rows"
    page.keyboard.press("Home")
    expect(page.locator(".spacer .row[data-id='1'] .c-path")).to_have_text("/v2/products")
    expect(page.locator(".spacer .row[data-id='11'] .c-path")).to_have_text(f"{long_path}/0/0")
    assert opened.problems == []


@pytest.mark.parametrize("query", ["", "&method=POST", "&status=2xx", "&path=/v2/carts/*"])
def test_a_list_sent_to_its_end_follows_it_however_the_new_rows_come(
    serve_ui: Callable[..., Served], open_page: Callable[..., Opened], query: str
) -> None:
    """End pressed while the list is far from its end (its last page not fetched), with or without a
    filter: rows that come after, pushed or fetched again under the filter, keep the list at its end."""
    served = serve_ui(
        FakeTraffic([detail(n, method="POST", path=f"/v2/carts/{n}") for n in range(1, 601)], mode="record")
    )
    opened = open_page(served.ui_url + query)
    page: Any = opened.page
    expect(page.locator("#info")).to_contain_text("live")
    total = 600
    for batch in range(4):
        served.add([detail(0, method="POST", path=f"/v2/carts/new/{batch}/{n}") for n in range(40)])
        total += 40
        if batch == 0:
            page.locator(".scroller").focus()
            page.keyboard.press("End")
        last_in_view(page, total)
    assert opened.problems == []


def test_the_counts_column_shows_the_largest_counts_not_every_endpoint(
    serve_ui: Callable[..., Served], open_page: Callable[..., Opened]
) -> None:
    """Traffic can name endpoints without end (a path per slug): the column shows the 50 largest counts
    and says how many more, so it does not grow with the traffic; the endpoint in force stays shown."""
    served = serve_ui(
        FakeTraffic(
            [detail(n, endpoint=f"GET /v2/things/slug-{n}") for n in range(1, 201)]
            + [detail(n, endpoint="listProducts") for n in range(201, 204)],
            mode="record",
        )
    )
    opened = open_page(served.ui_url)
    page: Any = opened.page
    expect(page.locator("#counts ul.endpoints li.more")).to_have_text(
        "and 151 more: type one in the endpoint box"
    )
    assert page.locator("#counts ul.endpoints button").count() == 50
    expect(page.locator("#counts ul.endpoints button").first).to_have_attribute("data-value", "listProducts")
    served.add([detail(0, endpoint=f"GET /v2/things/later-{n}") for n in range(300)])
    expect(page.locator("#counts ul.endpoints li.more")).to_have_text(
        "and 451 more: type one in the endpoint box"
    )
    assert page.locator("#counts ul.endpoints button").count() == 50
    assert page.locator("#endpoint-names option").count() <= 1000
    page.goto(served.url("?endpoint=GET%20/v2/things/slug-7"))
    expect(page.locator("#counts ul.endpoints button.active")).to_have_attribute(
        "data-value", "GET /v2/things/slug-7"
    )
    assert opened.problems == []


def test_an_error_left_by_a_cut_goes_once_the_page_is_back(
    serve_ui: Callable[..., Served], open_page: Callable[..., Opened]
) -> None:
    """What failed while the server could not be reached said so on the status line; once the event
    stream is back, it is asked again and the line no longer says it failed."""
    traffic = FakeTraffic([detail(n) for n in (1, 2, 3)], mode="record")
    served = serve_ui(traffic)
    opened = open_page(served.ui_url)
    page: Any = opened.page
    expect(page.locator("#info")).to_contain_text("live")
    cut = re.compile(r".*/api/(counts|exchanges)\b.*")  # the event stream is cut by the server
    page.route(cut, lambda route: route.abort())
    traffic.drop_streams(refuse=3)
    page.locator("#filters select[name='method']").select_option("GET")
    expect(page.locator("#status.error")).not_to_be_empty()
    page.unroute(cut)
    expect(page.locator("#status")).to_have_text("", timeout=20_000)
    expect(page.locator("#status")).not_to_have_class("error")
    expect(page.locator("#matching")).to_have_text("3")
    expect(page.locator("#info")).to_contain_text("live")
