"""The page against the real servers: `commerce-proxy ui PATH` and `commerce-proxy record` (against
the sandbox, or a tiny upstream of the test's answering markup), driven in Chromium."""

from __future__ import annotations

import shutil
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest
from aiohttp import web
from playwright.sync_api import expect

from proxy.server.background import BackgroundServer
from tests.paths import ROOT
from tests.system.ui.conftest import Opened
from tests.system.ui.real_servers import RealServer
from tests.system.ui.test_list import PROBES

EXAMPLES = sorted((ROOT / "cassettes").glob("*.yaml"))


def test_the_page_opens_with_its_token_and_refuses_without(
    real_server: Callable[..., RealServer], open_page: Callable[..., Opened]
) -> None:
    server = real_server("ui", *map(str, EXAMPLES))
    opened = open_page(f"{server.base_url}/_proxy/ui/", wait_for=None)
    refused = opened.page.goto(f"{server.base_url}/_proxy/ui/api/info")
    assert refused is not None and refused.status == 403
    assert "needs this server's token" in opened.page.locator("body").inner_text()

    opened = open_page(server.ui_url)
    total = server.api("info")["exchanges"]
    assert total > 0
    expect(opened.page.locator("#info")).to_contain_text(f"offline · {total} exchanges")
    assert "token" not in opened.page.url  # out of the address bar: neither query nor fragment
    assert "token" not in server.api("info")
    assert opened.problems == []
    opened.page.evaluate("localStorage.clear()")  # the cookie alone: the page, and one line
    opened.page.reload()
    expect(opened.page.locator("#no-token")).to_contain_text("open the address commerce-proxy printed")


def listening_elsewhere(seen: list[dict[str, str]]) -> BackgroundServer:
    """Another server on 127.0.0.1 (another port), keeping the headers of every request it gets."""

    async def keep(request: web.Request) -> web.Response:
        seen.append(dict(request.headers))
        return web.Response(text="elsewhere")

    def app() -> web.Application:
        application = web.Application()
        application.router.add_route("*", "/{tail:.*}", keep)
        return application

    return BackgroundServer(app)


def test_another_server_on_this_machine_gets_no_credential_of_the_ui(
    tmp_path: Path, real_server: Callable[..., RealServer], open_page: Callable[..., Opened]
) -> None:
    """Finding 1: the browser sends the page's cookie to every port of 127.0.0.1. Whatever a server on
    another port receives, sent back to ours, reads no exchange and changes nothing (403)."""
    cassette = tmp_path / "shop.yaml"
    shutil.copyfile(EXAMPLES[0], cassette)
    before = cassette.read_bytes()
    server = real_server("ui", str(cassette))
    seen: list[dict[str, str]] = []
    other = listening_elsewhere(seen)
    try:
        opened = open_page(server.ui_url)
        base = other.start()
        for path in ("/_proxy/ui/", "/_proxy/ui/api/exchanges", "/_proxy/ui/assets/app.js", "/_proxy/x"):
            opened.page.goto(base + path)
        cookies = {headers.get("Cookie", "") for headers in seen}
        assert any(cookies), seen  # the browser did send it on: the leak the design must make worthless
        for cookie in cookies:
            assert server.token not in cookie
            for method, route, body in [
                ("GET", "/_proxy/ui/api/exchanges", None),
                ("GET", "/_proxy/ui/api/info", None),
                ("POST", "/_proxy/ui/api/exchanges/1/delete", b"{}"),
                ("POST", "/_proxy/reset", b"{}"),
            ]:
                asked = urllib.request.Request(
                    server.base_url + route,
                    data=body,
                    method=method,
                    headers={"Cookie": cookie, "Content-Type": "application/json"},
                )
                with pytest.raises(urllib.error.HTTPError) as refused:
                    urllib.request.urlopen(asked, timeout=30)
                refused.value.read()
                assert refused.value.code == 403, (method, route, cookie)
        assert cassette.read_bytes() == before
    finally:
        other.stop()


def test_two_servers_pages_in_one_browser_both_keep_working(
    real_server: Callable[..., RealServer], open_page: Callable[..., Opened]
) -> None:
    """Finding 2: each server's cookie is named after its port and each page keeps its token in its own
    origin's storage, so opening the second page takes nothing from the first."""
    first_server = real_server("ui", str(EXAMPLES[0]))
    second_server = real_server("ui", *map(str, EXAMPLES))
    first = open_page(first_server.ui_url)
    second = first.page.context.new_page()
    second.goto(second_server.ui_url)
    second.wait_for_selector(".spacer .row[data-id]")
    for page, server in [(first.page, first_server), (second, second_server), (first.page, first_server)]:
        page.bring_to_front()
        page.reload()
        total = server.api("info")["exchanges"]
        expect(page.locator("#info")).to_contain_text(f"offline · {total} exchanges")
        page.locator(".spacer .row[data-id='1']").click()
        expect(page.locator("#pane .facts")).to_contain_text("#1")
    names = sorted(cookie["name"] for cookie in first.page.context.cookies())
    ports = sorted(server.base_url.rsplit(":", 1)[1] for server in (first_server, second_server))
    assert names == [f"commerce_proxy_token_{port}" for port in ports]
    assert first.problems == []


def test_an_exchange_sent_through_record_appears_within_a_second(
    tmp_path: Path, sandbox: str, real_server: Callable[..., RealServer], open_page: Callable[..., Opened]
) -> None:
    server = real_server("record", "--upstream", sandbox, "--cassette", str(tmp_path / "shop.yaml"))
    opened = open_page(server.ui_url, wait_for="#info:has-text('record')")
    page = opened.page
    status = server.get("/v2/products?page=1")
    row = page.locator(".spacer .row[data-id='1']")
    expect(row.locator(".c-path")).to_have_text("/v2/products?page=1", timeout=1_000)
    expect(row.locator(".c-status")).to_have_text(str(status))
    server.get("/v2/brands")
    expect(page.locator(".spacer .row[data-id='2'] .c-path")).to_have_text("/v2/brands", timeout=1_000)
    assert opened.problems == []


def test_filtering_by_rule_and_opening_an_exchange_and_its_findings(
    real_server: Callable[..., RealServer], open_page: Callable[..., Opened]
) -> None:
    server = real_server("ui", *map(str, EXAMPLES))
    rules = server.api("counts")["rules"]
    assert rules, "the example cassettes break some rule"
    rule = sorted(rules)[0]
    expected = server.api(f"counts?rule={urllib.parse.quote(rule)}")["total"]
    opened = open_page(server.ui_url)
    page = opened.page
    page.locator(f"#counts ul.rules button[data-value='{rule}']").click()
    expect(page.locator("#matching")).to_have_text(str(expected))
    assert urllib.parse.parse_qs(urllib.parse.urlsplit(page.url).query)["rule"] == [rule]
    expect(page.locator(".spacer .row[data-id]")).to_have_count(min(expected, 200))
    first = page.locator(".spacer .row[data-id]").first
    number = first.get_attribute("data-id")
    first.click()
    pane = page.locator("#pane")
    expect(pane.locator(".facts")).to_contain_text(f"#{number}")
    shown_rules = pane.locator(".finding .rule").all_inner_texts()
    assert rule in shown_rules
    detail = server.api(f"exchanges/{number}")
    assert shown_rules == [finding["rule"] for finding in detail["findings"]]
    finding = pane.locator(".finding").nth(shown_rules.index(rule))
    assert finding.locator(".message").inner_text() == detail["findings"][shown_rules.index(rule)]["message"]
    assert opened.problems == []


def hostile_upstream() -> web.Application:
    script, image, link = PROBES

    async def answer(request: web.Request) -> web.Response:
        if request.path.endswith("/html"):
            return web.Response(
                text=f'<html><body>{script}{image}<a href="{link}">x</a></body></html>',
                content_type="text/html",
                headers={"X-Note": script, "Link": f"<{link}>"},
            )
        return web.json_response({"name": script, "image": image, "next": link}, headers={"X-Note": image})

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", answer)
    return app


def test_markup_recorded_from_a_real_upstream_runs_nothing(
    tmp_path: Path, real_server: Callable[..., RealServer], open_page: Callable[..., Opened]
) -> None:
    upstream = BackgroundServer(hostile_upstream)
    try:
        server = real_server("record", "--upstream", upstream.start(), "--cassette", str(tmp_path / "x.yaml"))
        script, image, link = PROBES
        server.get("/v2/products/html")
        server.get("/v2/products?q=" + urllib.parse.quote(image))
        opened = open_page(server.ui_url)
        page = opened.page
        expect(page.locator(".spacer .row[data-id]")).to_have_count(2)
        for number in (1, 2):
            page.locator(f".spacer .row[data-id='{number}']").click()
            expect(page.locator("#pane .facts")).to_contain_text(f"#{number}")
            shown = page.locator("#pane").inner_text()
            assert script in shown and image in shown and link in shown, shown
        assert page.evaluate("document.querySelectorAll('#main script, #main img, #main iframe').length") == 0
        hrefs = page.evaluate("[...document.querySelectorAll('a[href]')].map((a) => a.getAttribute('href'))")
        assert not any("javascript" in href for href in hrefs), hrefs
        assert page.evaluate("window.__probe") is None
        assert page.evaluate("window.__violations") == []
        assert opened.problems == []
    finally:
        upstream.stop()


FOREIGN_PAGE = """<!doctype html><title>elsewhere</title><script>
const target = new URLSearchParams(location.search).get("target");
async function attempt(path, init) {
  try { const r = await fetch(target + path, init); return r.type + " " + r.status; }
  catch (error) { return "refused " + error.name; }
}
window.__tried = (async () => [
  await attempt("/_proxy/reset", {method: "POST", mode: "no-cors", credentials: "include"}),
  await attempt("/_proxy/ui/api/exchanges/1/delete",
    {method: "POST", mode: "no-cors", credentials: "include", body: "{}", headers: {"Content-Type": "text/plain"}}),
  await attempt("/_proxy/ui/api/exchanges/1/delete",
    {method: "POST", credentials: "include", body: "{}",
     headers: {"Content-Type": "application/json", "X-Commerce-Proxy-Token": "guessed"}}),
  await attempt("/_proxy/ui/api/exchanges", {credentials: "include"}),
])();
</script>"""


def test_a_page_of_another_origin_can_post_nothing(
    tmp_path: Path, real_server: Callable[..., RealServer], open_page: Callable[..., Opened]
) -> None:
    cassette = tmp_path / "shop.yaml"
    shutil.copyfile(EXAMPLES[0], cassette)
    before = cassette.read_bytes()
    server = real_server("ui", str(cassette))

    async def page_of_elsewhere(request: web.Request) -> web.Response:
        return web.Response(text=FOREIGN_PAGE, content_type="text/html")

    def elsewhere() -> web.Application:
        app = web.Application()
        app.router.add_get("/", page_of_elsewhere)
        return app

    foreign = BackgroundServer(elsewhere)
    try:
        opened = open_page(server.ui_url)  # the browser holds the cookie: another port is the same site
        statuses: list[tuple[str, str, int]] = []
        page = opened.page
        page.on(
            "response",
            lambda r: statuses.append((r.request.method, urllib.parse.urlsplit(r.url).path, r.status)),
        )
        page.goto(f"{foreign.start()}/?target={urllib.parse.quote(server.base_url)}")
        tried = page.evaluate("window.__tried")
        assert tried[0] == "opaque 0" and tried[1] == "opaque 0", tried  # sent, its answer unreadable
        assert tried[2].startswith("refused") and tried[3].startswith("refused"), tried  # CORS: no answer
        posts = [(path, status) for method, path, status in statuses if method == "POST"]
        assert posts == [("/_proxy/reset", 403), ("/_proxy/ui/api/exchanges/1/delete", 403)], statuses
        assert cassette.read_bytes() == before
    finally:
        foreign.stop()
