"""The page's browser tests: Debian's chromium driven by Playwright, and the server the page talks to.

`serve_ui` is the one place that says which server that is. Today it is the fake in fake_api.py (the
routes and documents docs/ui.md describes, over in-test exchanges); pointing these tests at the real
server means changing `serve_ui` alone: it hands back a base URL and the access token, and a way to add
exchanges while the page is open.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from proxy.server.background import BackgroundServer
from tests.browsers import launched_chromium
from tests.running import sandbox_process
from tests.system.ui.fake_api import Detail, FakeTraffic, fake_app

VIEWPORT = {"width": 1280, "height": 800}
# Set by a probe if it ever runs; a CSP violation is recorded too (an inline handler the policy blocked).
WATCH = """
window.__probe = undefined;
window.__violations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__violations.push(event.violatedDirective + " " + event.blockedURI);
});
"""


@dataclass
class Served:
    """A UI server for one test: where it is, its token, and how to add exchanges while it serves."""

    base_url: str
    token: str
    add: Callable[[Sequence[Detail]], None]

    @property
    def ui_url(self) -> str:
        return f"{self.base_url}/_proxy/ui/?token={self.token}"

    def url(self, query: str = "") -> str:
        return f"{self.base_url}/_proxy/ui/{query}"


@pytest.fixture
def serve_ui() -> Iterator[Callable[..., Served]]:
    """serve_ui(traffic, csp=True) -> Served: a server for the page over `traffic`, stopped after the test."""
    servers: list[BackgroundServer] = []

    def serve(traffic: FakeTraffic, csp: bool = True) -> Served:
        token = secrets.token_urlsafe(32)
        server = BackgroundServer(lambda: fake_app(traffic, token, csp))
        servers.append(server)
        return Served(server.start(), token, traffic.add)

    yield serve
    for server in servers:
        server.stop()


@pytest.fixture
def sandbox() -> Iterator[str]:
    """The sandbox, as an upstream for a `record` of the test's."""
    with sandbox_process() as upstream:
        yield upstream


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    # Module, not session: Playwright's sync API keeps an event loop running in this thread while it is
    # open, and every asyncio test that xdist runs after it in the same worker would then fail
    # ("Runner.run() cannot be called from a running event loop"). A module fixture is closed as soon as
    # the worker moves to another module's test.
    with launched_chromium("the UI's browser tests") as launched:
        yield launched


@dataclass
class Opened:
    """A browser page, with what went wrong in it (console errors, page errors, dialogs) and every
    request it made."""

    page: Any
    problems: list[str]
    requests: list[str]


@pytest.fixture
def open_page(browser: Any) -> Iterator[Callable[[str], Opened]]:
    """open_page(url) -> Opened: a fresh 1280x800 page at `url`, waiting for the list's first rows."""
    contexts: list[Any] = []

    def open_(url: str, wait_for: str | None = ".spacer .row[data-id], .empty:not(:empty)") -> Opened:
        context = browser.new_context(viewport=VIEWPORT)
        contexts.append(context)
        context.add_init_script(WATCH)
        page = context.new_page()
        page.set_default_timeout(15_000)
        problems: list[str] = []
        requests: list[str] = []
        page.on(
            "console",
            lambda message: (
                problems.append(f"console {message.type}: {message.text}")
                if message.type in ("error", "warning")
                else None
            ),
        )
        page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
        page.on("dialog", lambda dialog: (problems.append(f"dialog: {dialog.message}"), dialog.dismiss()))
        page.on("request", lambda request: requests.append(request.url))
        page.goto(url)
        if wait_for:
            page.wait_for_selector(wait_for)
        return Opened(page, problems, requests)

    yield open_
    for context in contexts:
        context.close()


from tests.system.ui.real_servers import real_server  # noqa: E402, F401  (the real servers' fixture)
