"""`commerce-proxy ui` over 100,000 generated exchanges: the page scrolls to the end with a few hundred
rows in the document and never asks for more than 500 rows at once. No timing is asserted (the
1,000,000-exchange timings are scripts/bench's)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import pytest
from playwright.sync_api import expect

from tests.system.ui.conftest import Opened
from tests.system.ui.generated import KINDS, write_cassettes
from tests.system.ui.real_servers import RealServer, start, stop
from tests.system.ui.test_list import MOST_ROWS_IN_DOM, api_windows, rows_in_dom

LARGE = 100_000
LAST_PATH = KINDS[LARGE % len(KINDS)][1].format(n=LARGE)


@pytest.fixture(scope="module")
def large(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RealServer]:
    folder = tmp_path_factory.mktemp("large")
    write_cassettes(folder, LARGE)
    server = start("ui", str(folder))
    yield server
    stop(server)


def test_a_hundred_thousand_real_exchanges_are_windowed(
    large: RealServer, open_page: Callable[..., Opened]
) -> None:
    assert large.api("info")["exchanges"] == LARGE
    opened = open_page(large.ui_url)
    page = opened.page
    expect(page.locator("#info")).to_contain_text(f"{LARGE} exchanges")
    assert rows_in_dom(page) <= MOST_ROWS_IN_DOM
    scroller = page.locator(".scroller")
    for fraction in (0.3, 0.6, 1.0):
        scroller.evaluate(
            "(node, f) => { node.scrollTop = (node.scrollHeight - node.clientHeight) * f; }", fraction
        )
        page.wait_for_selector(".spacer .row[data-id] >> nth=0")
        assert rows_in_dom(page) <= MOST_ROWS_IN_DOM
    last = page.locator(f".spacer .row[data-id='{LARGE}']")
    expect(last.locator(".c-path")).to_have_text(LAST_PATH, timeout=30_000)
    expect(page.locator(".spacer .row:not([data-id])")).to_have_count(0)
    assert rows_in_dom(page) <= MOST_ROWS_IN_DOM

    page.locator(".spacer .row[data-id]").last.click()
    expect(page.locator("#pane h2 .path")).to_have_text(LAST_PATH)
    windows = api_windows(opened.requests)
    asked = [int(window["limit"][0]) for window in windows]
    assert asked and max(asked) <= 500
    assert sum(asked) < LARGE / 10, sum(asked)
    assert opened.problems == []


def test_a_filter_of_a_hundred_thousand_answers_its_rows_before_its_total(
    large: RealServer, open_page: Callable[..., Opened]
) -> None:
    """A script asking a filter first gets its first rows and no total yet (`at_least` rows), then,
    asking again, the total; the page filtered shows rows, then the right count."""
    carts = [number for number in range(1, LARGE + 1) if number % len(KINDS) == 2]  # /v2/carts/{n}
    first = large.api("exchanges?path=/v2/carts/*&limit=100")
    assert (first["total"], first["at_least"]) == (None, 100)
    assert [row["id"] for row in first["exchanges"]] == carts[:100]
    assert answered_in_full(large, "exchanges?path=/v2/carts/*&offset=500&limit=5") == {
        "total": len(carts),
        "ids": carts[500:505],
    }

    opened = open_page(large.ui_url + "&status=2xx")
    page = opened.page
    expect(page.locator(".spacer .row[data-id='1']")).to_be_visible()
    kept = sum(1 for number in range(1, LARGE + 1) if number % 11)  # the generator's 404s every 11th
    expect(page.locator("#matching")).to_have_text(str(kept), timeout=60_000)
    assert opened.problems == []


def answered_in_full(server: RealServer, route: str) -> dict[str, object]:
    """A window asked again (every 0.1 s, at most 60 s) until its total is known."""
    for _ in range(600):
        window = server.api(route)
        if window["total"] is not None:
            return {"total": window["total"], "ids": [row["id"] for row in window["exchanges"]]}
        time.sleep(0.1)
    raise AssertionError(f"{route}: no total after 60 s")
