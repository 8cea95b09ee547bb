"""The UI's screenshots in docs/ui.md, taken from the real page: `commerce-proxy ui` over the shipped
example cassettes, driven in Chromium at 1280x800. Writes docs/images/ui-list.png (the list with
findings), ui-exchange.png (an exchange and its findings) and ui-diff.png (a diff of two exchanges)."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
IMAGES = ROOT / "docs" / "images"
UI_LINE = re.compile(r"ui: (http://127\.0\.0\.1:[0-9]+/_proxy/ui/\?token=[A-Za-z0-9_-]+)")
VIEWPORT: Any = {"width": 1280, "height": 800}


def started_ui(paths: list[Path]) -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "proxy", "ui", "--port", "0", "--", *map(str, paths)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), "COMMERCE_PROXY_UI_TOKEN": ""},
    )
    assert process.stdout is not None
    lines = [process.stdout.readline(), process.stdout.readline()]
    found = UI_LINE.search(lines[1])
    if found is None:
        process.kill()
        sys.exit(f"screenshots: commerce-proxy ui printed {lines!r}")
    return process, found.group(1)


def shoot(page: Any, name: str) -> None:
    page.wait_for_timeout(300)  # let the counts and the pane settle before the picture
    page.screenshot(path=str(IMAGES / name))
    print(f"screenshots: wrote docs/images/{name}")


def take(address: str, chromium: str) -> list[str]:
    """Each picture in turn; the names of those the page could not show (an error in its status line)."""
    missing = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        page = browser.new_context(viewport=VIEWPORT).new_page()
        page.goto(f"{address}&has_findings=true")
        page.wait_for_selector(".spacer .row[data-id]")
        page.locator(".spacer .row[data-id]").nth(1).click()
        page.locator(".spacer .row[data-id]").nth(0).click()
        page.locator("#pane .finding").first.wait_for()
        page.locator("#pane .close").click()
        shoot(page, "ui-list.png")
        page.locator(".spacer .row[data-id]").nth(1).click()
        page.locator("#pane .finding").first.wait_for()
        shoot(page, "ui-exchange.png")
        page.locator(".spacer .row[data-id]").nth(
            4
        ).click()  # two pages of one listing: a diff that says much
        page.locator("#pane .act-mark").click()
        page.locator(".spacer .row[data-id]").nth(5).click()
        page.locator("#pane .act-diff-marked").click()
        try:
            page.locator("#pane .diff, #status.error").first.wait_for()
        finally:
            if page.locator("#pane .diff").count():
                shoot(page, "ui-diff.png")
            else:
                missing.append(f"ui-diff.png: {page.locator('#status').inner_text()}")
        browser.close()
    return missing


def main() -> int:
    chromium = os.environ.get("COMMERCE_PROXY_CHROMIUM") or shutil.which("chromium")
    if chromium is None:
        sys.exit("screenshots: no chromium on this machine (apt-get install chromium)")
    IMAGES.mkdir(parents=True, exist_ok=True)
    examples = sorted(path.relative_to(ROOT) for path in (ROOT / "cassettes").glob("*.yaml"))
    process, address = started_ui(examples)  # named as a user in the repository names them
    try:
        missing = take(address, chromium)
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=60)
    for line in missing:
        print(f"screenshots: not written: {line}", file=sys.stderr)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
