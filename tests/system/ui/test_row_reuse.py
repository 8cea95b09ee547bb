"""The windowed list keeps the row elements still showing the same row while rows are pushed (only the
new ones are made: a page open on a busy `record` draws less), and a row's marks (selected, open,
picked) still reach exactly its element."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from playwright.sync_api import expect

from tests.system.ui.conftest import Opened, Served
from tests.system.ui.exchanges import detail
from tests.system.ui.fake_api import FakeTraffic

# Tags every row element in the list now; the tag stays on an element the page keeps.
TAG_ROWS = "() => { for (const row of document.querySelectorAll('.spacer .row')) row.__kept = true; }"
TAGGED = (
    "() => [...document.querySelectorAll('.spacer .row')].filter((r) => r.__kept).map((r) => r.dataset.id)"
)
ROW_IDS = "() => [...document.querySelectorAll('.spacer .row')].map((r) => Number(r.dataset.id))"


def marked(page: Any, mark: str) -> list[str]:
    return list(page.locator(f".spacer .row.{mark}").evaluate_all("rows => rows.map((r) => r.dataset.id)"))


def test_pushed_rows_keep_the_rows_already_drawn_and_their_marks(
    serve_ui: Callable[..., Served], open_page: Callable[..., Opened]
) -> None:
    served = serve_ui(FakeTraffic([detail(n) for n in range(1, 11)], mode="record"))
    opened = open_page(served.ui_url)
    page: Any = opened.page
    expect(page.locator("#info")).to_contain_text("live")
    expect(page.locator(".spacer .row[data-id='10']")).to_be_attached()
    # Each mark, set on one row, then rows pushed: the rows drawn before are the same elements, in
    # order, the new ones made, and the mark on its row only, before and after the push.
    marks: list[tuple[str, Callable[[], None]]] = [
        ("selected", lambda: page.locator(".spacer .row[data-id='3']").click()),
        ("open", lambda: page.locator(".spacer .row[data-id='3']").click()),
        ("picked", lambda: page.locator(".spacer .row[data-id='5']").click(modifiers=["Control"])),
    ]
    total = 10
    for mark, set_mark in marks:
        set_mark()
        expect(page.locator(f".spacer .row.{mark}")).to_have_count(1)
        wanted = marked(page, mark)
        before = page.evaluate(ROW_IDS)
        page.evaluate(TAG_ROWS)
        served.add([detail(0, path=f"/v2/pushed/{mark}/{n}") for n in range(3)])
        total += 3
        expect(page.locator(f".spacer .row[data-id='{total}']")).to_be_attached()
        assert page.evaluate(ROW_IDS) == list(range(1, total + 1))
        assert page.evaluate(TAGGED) == [str(number) for number in before], mark
        assert marked(page, mark) == wanted, mark
    # A mark moved is drawn on its new row and off its old one (a ctrl-click selected row 5 too).
    page.keyboard.press("ArrowDown")
    expect(page.locator(".spacer .row.selected")).to_have_attribute("data-id", "6")
    assert marked(page, "selected") == ["6"]
    page.keyboard.press("Space")
    expect(page.locator(".spacer .row.picked")).to_have_count(2)
    assert marked(page, "picked") == ["5", "6"]
    assert opened.problems == []


def test_a_pushed_batch_larger_than_the_view_is_listed_whole_while_following_the_end(
    serve_ui: Callable[..., Served], open_page: Callable[..., Opened]
) -> None:
    """Rows pushed in one event while the list follows its end: the rows in view after it are drawn, and
    every row of the batch is in the list, in order, though the list scrolled past most of them at once
    (a busy `record`: 80 rows in one push). The page draws what can be seen and drops nothing."""
    served = serve_ui(FakeTraffic([detail(n) for n in range(1, 41)], mode="record"))
    opened = open_page(served.ui_url)
    page: Any = opened.page
    expect(page.locator("#info")).to_contain_text("live")
    page.keyboard.press("End")
    expect(page.locator(".spacer .row.selected")).to_have_attribute("data-id", "40")
    total = 40
    for size in (20, 50, 80):  # each batch at once, after the last is drawn
        served.add([detail(0, path=f"/v2/batch/{size}/{n}") for n in range(size)])
        total += size
        expect(page.locator(f".spacer .row[data-id='{total}']")).to_be_in_viewport()
    listed: list[int] = []
    page.eval_on_selector(".scroller", "node => { node.scrollTop = 0; }")
    while True:
        page.wait_for_timeout(100)
        listed += [number for number in page.evaluate(ROW_IDS) if number not in listed]
        moved = page.eval_on_selector(
            ".scroller",
            "node => { const before = node.scrollTop; node.scrollTop += node.clientHeight;"
            " return node.scrollTop !== before; }",
        )
        if not moved:
            break
    page.wait_for_timeout(100)
    listed += [number for number in page.evaluate(ROW_IDS) if number not in listed]
    assert listed == list(range(1, total + 1))
    assert opened.problems == []
