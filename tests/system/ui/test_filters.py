"""Filters: every parameter in the page's URL, restored from it, evaluated by the API, with counts."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs, urlsplit

from playwright.sync_api import expect

from tests.system.ui.conftest import Opened, Served
from tests.system.ui.exchanges import body, detail, finding
from tests.system.ui.fake_api import FakeTraffic

RULE = "pagination.links.next"


def traffic() -> FakeTraffic:
    exchanges = []
    for number in range(1, 31):
        findings = []
        if number % 3 == 0:
            findings.append(finding(RULE, "error"))
        if number % 5 == 0:
            findings.append(finding("etag.strong", "warning"))
        exchanges.append(
            detail(
                number,
                method="POST" if number % 2 else "GET",
                path=f"/v2/carts/{number}" if number % 4 == 0 else f"/v2/products/{number}",
                status=404 if number % 10 == 0 else 200,
                endpoint="getCart" if number % 4 == 0 else "getProduct",
                cassette="night" if number > 20 else "day",
                findings=findings,
                response_body=body(f'{{"marker": "needle-{number}"}}'),
            )
        )
    return FakeTraffic(exchanges, mode="offline", sources=["day.yaml", "night.yaml"])


def shown_ids(page: Any, expected: list[int]) -> list[int]:
    """The ids of the rows in view, once as many as `expected` are there (a window arrives after the counts)."""
    expect(page.locator(".spacer .row[data-id]")).to_have_count(len(expected))
    return sorted(
        int(i)
        for i in page.locator(".spacer .row[data-id]").evaluate_all("(rows) => rows.map((r) => r.dataset.id)")
    )


def query_of(page: Any) -> dict[str, list[str]]:
    return parse_qs(urlsplit(page.url).query)


def test_a_filter_in_the_url_is_restored_and_counted(
    serve_ui: Callable[..., Served], open_page: Callable[..., Opened]
) -> None:
    served = serve_ui(traffic())
    opened = open_page(served.ui_url + f"&rule={RULE}&method=GET")
    page = opened.page
    expect(page.locator("#matching")).to_have_text("5")  # 6, 12, 18, 24, 30
    assert shown_ids(page, [6, 12, 18, 24, 30]) == [6, 12, 18, 24, 30]
    assert page.locator("select[name=method]").input_value() == "GET"
    assert page.locator("input[name=rule]").input_value() == RULE
    assert query_of(page) == {"rule": [RULE], "method": ["GET"]}
    rules = page.locator("#counts ul.rules")
    expect(rules.locator(f"button[data-value='{RULE}'] .count")).to_have_text("5")
    expect(rules.locator("button[data-value='etag.strong'] .count")).to_have_text("1")  # 30
    assert opened.problems == []


def test_clicking_a_count_filters_and_the_url_follows_with_history(
    serve_ui: Callable[..., Served], open_page: Callable[..., Opened]
) -> None:
    served = serve_ui(traffic())
    opened = open_page(served.ui_url)
    page = opened.page
    expect(page.locator("#matching")).to_have_text("30")
    page.locator("#counts ul.rules button[data-value='etag.strong']").click()
    expect(page.locator("#matching")).to_have_text("6")
    assert shown_ids(page, [5, 10, 15, 20, 25, 30]) == [5, 10, 15, 20, 25, 30]
    assert query_of(page) == {"rule": ["etag.strong"]}
    expect(page.locator("#counts ul.rules button.active")).to_have_attribute("data-value", "etag.strong")

    page.locator("#counts ul.severities button[data-value='error']").click()
    expect(page.locator("#matching")).to_have_text("2")  # 15 and 30
    assert shown_ids(page, [15, 30]) == [15, 30]
    assert query_of(page) == {"rule": ["etag.strong"], "severity": ["error"]}

    page.go_back()
    expect(page.locator("#matching")).to_have_text("6")
    assert query_of(page) == {"rule": ["etag.strong"]}
    assert page.locator("input[name=rule]").input_value() == "etag.strong"
    page.locator("#counts ul.rules button[data-value='etag.strong']").click()  # off again
    expect(page.locator("#matching")).to_have_text("30")
    assert query_of(page) == {}
    assert opened.problems == []


def test_every_field_of_the_form_filters_on_the_server(
    serve_ui: Callable[..., Served], open_page: Callable[..., Opened]
) -> None:
    served = serve_ui(traffic())
    opened = open_page(served.ui_url)
    page = opened.page
    expect(page.locator("#matching")).to_have_text("30")
    steps = [
        ("status", "4xx", [10, 20, 30]),
        ("cassette", "night", [30]),
    ]
    for name, value, expected in steps:
        page.locator(f"[name={name}]").fill(value)
        page.locator(f"[name={name}]").press("Enter")
        expect(page.locator("#matching")).to_have_text(str(len(expected)))
        assert shown_ids(page, expected) == expected
    page.locator("#clear").click()
    expect(page.locator("#matching")).to_have_text("30")
    page.locator("[name=path]").fill("/v2/carts/*")
    page.locator("[name=path]").press("Enter")
    expect(page.locator("#matching")).to_have_text("7")
    page.locator("[name=has_findings]").select_option("true")
    expect(page.locator("#matching")).to_have_text("3")  # 12, 20, 24
    assert shown_ids(page, [12, 20, 24]) == [12, 20, 24]
    page.locator("[name=endpoint]").fill("getProduct")
    page.locator("[name=endpoint]").press("Enter")
    expect(page.locator("#list p.empty")).to_have_text("No exchange matches.")
    page.locator("#clear").click()
    page.locator("[name=text]").fill("needle-17")
    page.locator("[name=text]").press("Enter")
    expect(page.locator("#matching")).to_have_text("1")
    assert shown_ids(page, [17]) == [17]
    assert query_of(page) == {"text": ["needle-17"]}
    assert opened.problems == []


def test_a_bad_filter_value_shows_the_servers_one_line(
    serve_ui: Callable[..., Served], open_page: Callable[..., Opened]
) -> None:
    served = serve_ui(traffic())
    opened = open_page(served.ui_url)
    page = opened.page
    page.locator("[name=status]").fill("abc")
    page.locator("[name=status]").press("Enter")
    expect(page.locator("#status.error")).to_have_text(
        "400: filter parameter 'status': expected a class such as 2xx or a status such as 404, found 'abc'"
    )
    # The browser reports the failed requests themselves on the console; nothing else went wrong.
    assert [p for p in opened.problems if "400" not in p] == []
