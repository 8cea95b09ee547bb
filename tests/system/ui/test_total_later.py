"""A filter whose total the server is still counting (`total: null`): the page shows its rows at once,
no number until the count comes, then the count and the scroll height of every matching row."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import expect

from tests.system.ui.conftest import Opened, Served
from tests.system.ui.exchanges import detail
from tests.system.ui.fake_api import FakeTraffic

ROW_HEIGHT = 24  # list.js


def test_the_rows_come_before_the_total_and_the_count_when_it_does(
    serve_ui: Callable[..., Served], open_page: Callable[..., Opened]
) -> None:
    exchanges = [detail(number, status=404 if number % 10 == 0 else 200) for number in range(1, 301)]
    traffic = FakeTraffic(exchanges, mode="offline", sources=["day.yaml"])
    traffic.counting = True
    served = serve_ui(traffic)
    page = open_page(served.ui_url + "&status=2xx").page
    spacer = page.locator(".spacer")
    expect(page.locator(".spacer .row[data-id='1']")).to_be_visible()
    expect(page.locator("#matching")).to_have_text("counting…")
    # As high as the 200 rows known so far (a page's worth), not a guessed total.
    assert spacer.evaluate("(node) => node.style.height") == f"{200 * ROW_HEIGHT}px"
    traffic.counting = False  # the count is in: the page, asking again, shows it
    expect(page.locator("#matching")).to_have_text("270")
    expect(spacer).to_have_attribute("style", f"height: {270 * ROW_HEIGHT}px;")
    expect(page.locator("ul.severities")).to_be_visible()
