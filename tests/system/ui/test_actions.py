"""The exchange's actions in the page, against the fake's action routes: curl to the clipboard and as
text, diffs (marked, compared with, previous of the endpoint) in tiers, export as a download, a finding
accepted into the baseline, delete and edit offline, resend live; every POST with the token header."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from playwright.sync_api import expect

from tests.system.ui.conftest import Opened, Served
from tests.system.ui.exchanges import body, detail, finding, numbered
from tests.system.ui.fake_api import FakeTraffic
from tests.system.ui.test_list import PROBES

REDACTED = "Bearer <redacted:token-1>"


def shop(mode: str = "offline", baseline: bool = True) -> FakeTraffic:
    script, image, link = PROBES
    first = json.dumps({"total_count": 40, "items": [], "gone": 1}, indent=2)
    second = json.dumps({"total_count": 41, "items": [], "new": link}, indent=2)
    return FakeTraffic(
        [
            detail(
                1,
                path="/v2/products?page=1",
                response_body=body(first),
                response_headers=[["Content-Type", "application/json"], ["Date", "Mon"]],
            ),
            detail(
                2,
                path="/v2/products?page=2",
                response_body=body(second),
                request_headers=[["Host", "api.example.test"], ["Authorization", REDACTED]],
                response_headers=[["Content-Type", "application/json"], ["Date", "Tue"]],
                findings=[finding("pagination.total.stable", "error", script, compared_with=1)],
            ),
            detail(3, method="POST", path=f"/v2/carts?{image}", endpoint="addCartItem"),
        ],
        mode=mode,
        sources=["shop.yaml"],
        baseline=baseline,
    )


def opened_on(served: Served, open_page: Callable[..., Opened], exchange: int) -> Opened:
    opened = open_page(f"{served.ui_url}&exchange={exchange}")
    expect(opened.page.locator("#pane .actions")).to_be_visible()
    return opened


def test_copy_as_curl_puts_the_command_on_the_clipboard_and_shows_it(
    serve_ui: Callable[..., Served], open_page: Callable[..., Opened]
) -> None:
    served = serve_ui(shop())
    opened = opened_on(served, open_page, 2)
    page = opened.page
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.locator("#pane .act-curl").click()
    command = "curl -X GET 'http://127.0.0.1:9/v2/products?page=2' -H 'Host: api.example.test' " + (
        f"-H 'Authorization: {REDACTED}'"
    )
    expect(page.locator("#pane pre.curl")).to_have_text(command)
    assert page.evaluate("navigator.clipboard.readText()") == command
    expect(page.locator("#status")).to_contain_text("copied to the clipboard")
    assert opened.problems == [] and page.evaluate("window.__probe") is None


def test_two_marked_exchanges_diff_in_tiers_only_what_changed_until_asked(
    serve_ui: Callable[..., Served], open_page: Callable[..., Opened]
) -> None:
    traffic = shop()
    served = serve_ui(traffic)
    opened = opened_on(served, open_page, 1)
    page = opened.page
    page.locator("#pane .act-mark").click()
    expect(page.locator("#pane .act-mark")).to_have_text("marked for diff")
    page.locator(".spacer .row[data-id='2']").click()
    page.locator("#pane .act-diff-marked").click()
    diff = page.locator("#pane .diff")
    expect(diff.locator("h3")).to_have_text("diff #1 → #2")
    expect(diff.locator(".tiers")).to_have_text("breaking 1additive 1data 1volatile 1")
    changes = diff.locator(".changes.response tr.change")
    expect(changes).to_have_count(3)  # the volatile Date is counted, not listed
    assert changes.locator("td.tier").all_inner_texts() == ["data", "breaking", "additive"]
    new = diff.locator("tr.change.additive td").nth(3)
    assert new.inner_text() == PROBES[2]  # a javascript: value, as text
    assert diff.locator(".changes.request tr.change td").all_inner_texts()[0] == "request.target"

    diff.locator("input.all-tiers").check()
    expect(diff.locator(".changes.response tr.change")).to_have_count(4)
    expect(page.locator("#pane .diff tr.change.volatile td").nth(1)).to_have_text("headers.Date")
    assert [asked.get("all") for kind, asked in traffic.asked if kind == "diff"] == [None, "1"]
    page.locator("#pane .diff a.open-side").first.click()
    expect(page.locator("#pane h2")).to_have_text("GET /v2/products?page=1")
    assert opened.problems == [] and page.evaluate("window.__probe") is None


def test_any_two_rows_picked_in_the_list_diff_with_ctrl_click_or_space(
    serve_ui: Callable[..., Served], open_page: Callable[..., Opened]
) -> None:
    traffic = shop()
    opened = open_page(serve_ui(traffic).ui_url)
    page = opened.page
    page.locator(".spacer .row[data-id='3']").click(modifiers=["Control"])
    expect(page.locator("#status")).to_contain_text("#3 picked")
    expect(page.locator("#pane")).to_be_hidden()  # a pick opens nothing
    page.locator(".spacer .row[data-id='1']").click(modifiers=["Control"])
    expect(page.locator("#pane .diff h3")).to_have_text("diff #3 → #1")
    expect(page.locator("#pane h2")).to_have_text("GET /v2/products?page=1")
    assert page.locator(".spacer .row.picked").evaluate_all("rows => rows.map(r => r.dataset.id)") == [
        "1",
        "3",
    ]
    # A third pick starts a new pair, a picked row clicked again is unpicked, the keyboard picks too.
    row_2 = page.locator(".spacer .row[data-id='2']")
    row_2.click(modifiers=["Control"])
    expect(page.locator(".spacer .row.picked")).to_have_count(1)
    expect(page.locator("#status")).to_contain_text("#2 picked")
    row_2.click(modifiers=["Control"])
    expect(page.locator(".spacer .row.picked")).to_have_count(0)
    row_2.click(modifiers=["Control"])
    page.locator(".scroller").focus()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Space")
    expect(page.locator("#pane .diff h3")).to_have_text("diff #2 → #3")
    assert [(q["a"], q["b"]) for kind, q in traffic.asked if kind == "diff"] == [("3", "1"), ("2", "3")]
    assert opened.problems == [] and page.evaluate("window.__probe") is None


def test_a_finding_diffs_with_the_exchange_it_compares_with(
    serve_ui: Callable[..., Served], open_page: Callable[..., Opened]
) -> None:
    opened = opened_on(serve_ui(shop()), open_page, 2)
    opened.page.locator("#pane .finding .act-diff-compared").click()
    expect(opened.page.locator("#pane .diff h3")).to_have_text("diff #1 → #2")
    assert opened.page.evaluate("window.__probe") is None and opened.problems == []


def test_the_previous_exchange_of_the_endpoint_is_found_in_few_windows(
    serve_ui: Callable[..., Served], open_page: Callable[..., Opened]
) -> None:
    traffic = FakeTraffic(mode="offline", sources=["big"], count=30_000, make=numbered)
    served = serve_ui(traffic)
    opened = opened_on(served, open_page, 20_003)  # listProducts is every 5th: 19,998 is the one before
    before = len(opened.requests)
    opened.page.locator("#pane .act-diff-previous").click()
    expect(opened.page.locator("#pane .diff h3")).to_have_text("diff #19998 → #20003", timeout=30_000)
    windows = [parse_qs(urlsplit(url).query) for url in opened.requests[before:]]
    asked = [w for w in windows if "endpoint" in w]
    assert 1 < len(asked) <= 6, len(asked)  # 6,000 rows of the endpoint: a search, not a walk
    assert all(int(w["limit"][0]) <= 500 for w in asked)
    assert opened.problems == []


def test_a_finding_accepted_into_the_baseline_posts_with_the_token(
    serve_ui: Callable[..., Served], open_page: Callable[..., Opened]
) -> None:
    traffic = shop()
    opened = opened_on(serve_ui(traffic), open_page, 2)
    opened.page.locator("#pane .act-accept").click()
    expect(opened.page.locator("#status")).to_have_text(
        "pagination.total.stable accepted into baseline.yaml: 1 added, 1 in the baseline"
    )
    assert traffic.baseline == [(2, "pagination.total.stable")]  # the fake refuses a POST without it
    assert opened.problems == []


def test_no_baseline_configured_is_said_in_one_line(
    serve_ui: Callable[..., Served], open_page: Callable[..., Opened]
) -> None:
    opened = opened_on(serve_ui(shop(baseline=False)), open_page, 2)
    opened.page.locator("#pane .act-accept").click()
    expect(opened.page.locator("#status.error")).to_have_text(
        "409: no baseline file is configured (name one in the project's config)"
    )


def test_export_downloads_the_filtered_view(
    serve_ui: Callable[..., Served], open_page: Callable[..., Opened]
) -> None:
    opened = open_page(serve_ui(shop()).ui_url + "&method=GET")
    page = opened.page
    with page.expect_download() as download:
        page.locator("#export-har").click()
    assert download.value.suggested_filename == "exchanges.har"
    document = json.loads(Path(download.value.path()).read_text())
    assert document["kind"] == "har" and [row["id"] for row in document["exchanges"]] == [1, 2]
    with page.expect_download() as download:
        page.locator("#export-cassette").click()
    assert download.value.suggested_filename == "exchanges.yaml"


def test_delete_and_edit_offline_show_what_changed_and_reload_the_window(
    serve_ui: Callable[..., Served], open_page: Callable[..., Opened]
) -> None:
    opened = opened_on(serve_ui(shop()), open_page, 1)
    page = opened.page
    page.locator("#pane .act-delete").click()
    expect(page.locator("#pane")).to_be_hidden()
    expect(page.locator(".spacer .row[data-id]")).to_have_count(2)
    expect(page.locator(".spacer .row[data-id='1'] .c-path")).to_have_text("/v2/products?page=2")
    expect(page.locator("#status")).to_have_text("deleted exchange 0 of shop")

    page.locator(".spacer .row[data-id='1']").click()
    page.locator("#pane .edit-field").fill("status")
    page.locator("#pane .edit-value").fill("418")
    page.locator("#pane .act-edit").click()
    expect(page.locator("#pane .action-output h4").first).to_have_text("new findings: 1")
    expect(page.locator("#pane .action-output li")).to_have_text(
        "status.documented error: status not documented"
    )
    expect(page.locator(".spacer .row[data-id='1'] .c-status")).to_have_text("418")
    expect(page.locator("#pane .findings h3")).to_have_text("Findings (2)")
    assert opened.problems == [] and page.evaluate("window.__probe") is None


def test_live_modes_resend_and_show_the_diff_and_offer_no_edit(
    serve_ui: Callable[..., Served], open_page: Callable[..., Opened]
) -> None:
    opened = opened_on(serve_ui(shop(mode="spy")), open_page, 1)
    page = opened.page
    assert page.locator("#pane .act-delete, #pane form.edit").count() == 0
    page.locator("#pane .act-resend").click()
    expect(page.locator("#pane .resent")).to_have_text("resent: the upstream answered 503")
    expect(page.locator("#pane .diff tr.change.breaking td").nth(1)).to_have_text("status")
    assert opened.problems == []
