"""The UI bench's browser side: Debian's chromium driven by Playwright. The first paint of the list (from
opening the page to its first row of data drawn), the JS heap after scrolling through it (Chrome's
DevTools protocol: `Runtime.getHeapUsage`), and, for a live server, the time from an answer to its row
appearing in the page (a MutationObserver stamps each row as it is added)."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

ROW = ".scroller .row:not(.head) .c-id"
# Stamps each row's path with the time it was first drawn (epoch ms), for the live lag.
STAMP_ROWS = """() => {
  window.__seen = {};
  new MutationObserver((records) => {
    const now = Date.now();
    for (const record of records) for (const node of record.addedNodes) {
      const cells = node.querySelectorAll ? node.querySelectorAll('.c-path') : [];
      for (const cell of cells) {
        if (!(cell.textContent in window.__seen)) window.__seen[cell.textContent] = now;
      }
    }
  }).observe(document.body, {childList: true, subtree: true});
}"""


def chromium() -> str | None:
    return (
        os.environ.get("COMMERCE_PROXY_CHROMIUM")
        or shutil.which("chromium")
        or shutil.which("chromium-browser")
    )


@contextmanager
def opened_browser() -> Iterator[Any]:
    executable = chromium()
    if executable is None:
        raise RuntimeError("no chromium (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        try:
            yield browser
        finally:
            browser.close()


def heap_mb(page: Any) -> float:
    session = page.context.new_cdp_session(page)
    session.send("HeapProfiler.collectGarbage")
    used = session.send("Runtime.getHeapUsage")["usedSize"]
    return float(used) / 1e6


def measure(address: str, log: Callable[[str], None]) -> dict[str, float]:
    """First paint (ms, median of 3 fresh pages) and the heap (MB) after scrolling end to end."""
    figures: dict[str, float] = {}
    try:
        with opened_browser() as browser:
            paints = []
            for _ in range(3):
                page = browser.new_page(viewport={"width": 1400, "height": 900})
                started = time.perf_counter()
                page.goto(address, wait_until="commit")
                page.wait_for_selector(ROW, timeout=60_000)
                paints.append((time.perf_counter() - started) * 1000)
                page.close()
            figures["first_paint"] = sorted(paints)[1]
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.goto(address)
            page.wait_for_selector(ROW, timeout=60_000)
            for share in (0.1, 0.3, 0.5, 0.7, 0.9, 1.0, 0.0):
                page.eval_on_selector(
                    ".scroller", "(node, share) => { node.scrollTop = node.scrollHeight * share; }", share
                )
                page.wait_for_timeout(300)
                page.wait_for_selector(ROW, timeout=60_000)
            figures["heap_mb"] = heap_mb(page)
            page.close()
    except Exception as error:  # no browser here: the rest of the table still stands
        log(f"  browser: {type(error).__name__}: {str(error).splitlines()[0]}")
    return figures


class Watched:
    """A page open on a live server: the rows it drew (path -> epoch ms when first drawn), and the
    whole list read back by scrolling it end to end (what the page lists, drawn or not as it came)."""

    def __init__(self, page: Any) -> None:
        self.page = page

    def seen(self) -> dict[str, int]:
        return dict(self.page.evaluate("() => window.__seen"))

    def listed(self) -> set[str]:
        """Every path the page's list holds: scrolled from the top, a view at a time, each view's rows
        drawn before the next (at most 10 minutes)."""
        self.page.eval_on_selector(".scroller", "node => { node.scrollTop = 0; }")
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            self.page.wait_for_timeout(150)
            self.page.wait_for_selector(ROW, timeout=60_000)
            moved = self.page.eval_on_selector(
                ".scroller",
                "node => { const before = node.scrollTop; node.scrollTop += node.clientHeight;"
                " return node.scrollTop !== before; }",
            )
            if not moved:
                break
        self.page.wait_for_timeout(300)
        return set(self.seen())


@contextmanager
def watching(address: str) -> Iterator[Watched]:
    """A page open on a live server's UI, stamping rows as they are drawn."""
    with opened_browser() as browser:
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.goto(address)
        page.wait_for_selector(".scroller", timeout=60_000)
        page.evaluate(STAMP_ROWS)
        try:
            yield Watched(page)
        finally:
            page.close()
