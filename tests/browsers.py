"""Debian's chromium driven by Playwright, for the tests that open a page in a real browser (the HTML
report, the web UI): found in one place, skipped on a machine without it, never skipped in CI."""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator
from typing import Any

import pytest


def chromium_path() -> str | None:
    return (
        os.environ.get("COMMERCE_PROXY_CHROMIUM")
        or shutil.which("chromium")
        or shutil.which("chromium-browser")
    )


@contextlib.contextmanager
def launched_chromium(tests: str) -> Iterator[Any]:
    """A headless chromium for `tests` (named in the skip reason), closed at the end."""
    executable = chromium_path()
    if executable is None:
        reason = f"no chromium on this machine (apt-get install chromium): {tests} need it"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"{reason}; .ci/run installs it, so CI never skips these", pytrace=False)
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        yield launched
        launched.close()
