"""The HTML report's template, CSS and script: package data beside the pure code that fills them."""

from __future__ import annotations

from functools import cache
from importlib import resources

from proxy.core.reports.html import PageTemplate


@cache
def page_template() -> PageTemplate:
    folder = resources.files("proxy.core.reports") / "templates"
    return PageTemplate(
        page=(folder / "page.html").read_text(encoding="utf-8"),
        style=(folder / "style.css").read_text(encoding="utf-8"),
        script=(folder / "script.js").read_text(encoding="utf-8"),
    )
