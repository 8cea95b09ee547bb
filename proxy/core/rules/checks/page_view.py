"""The numbers of one paginated answer, read once per exchange, and the page a link names.

Spec (`commerce-api.md`), "Paginated list envelope". A view exists only when every number is an integer:
the `envelope` shape reports what is missing or mistyped, and no arithmetic guesses around it.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, NamedTuple
from urllib.parse import unquote

from proxy.core.rules.checks.context import CheckContext

LINK_NAMES = ("current", "first", "last", "prev", "next")


class PageView(NamedTuple):
    """The numbers of one paginated response, all integers (else there is no view). A named tuple:
    one is built for every list page checked, in a fifth of a frozen dataclass's time."""

    data: list[Any]
    limit: int
    offset: int
    current: int
    pages: int
    total: int
    method: str | None
    links: dict[str, Any]

    @property
    def seen(self) -> int:
        """Records up to the end of this page."""
        return self.offset + len(self.data)

    @property
    def short(self) -> bool:
        """Fewer records than the limit: nothing follows."""
        return len(self.data) < self.limit


def page_view(context: CheckContext) -> PageView | None:
    """The envelope's numbers, or None when any is missing or not an integer (the shape reports that)."""
    if "page" in context.memo:
        remembered: PageView | None = context.memo["page"]
        return remembered
    body = context.response_json
    meta: Any = body.get("meta") if isinstance(body, dict) else None
    page: Any = meta.get("page") if isinstance(meta, dict) else None
    results: Any = meta.get("results") if isinstance(meta, dict) else None
    view: PageView | None = None
    if isinstance(page, dict) and isinstance(results, dict):  # (so body is a dict too)
        data, links = body.get("data"), body.get("links")
        limit, offset, current, pages = (
            page.get("limit"),
            page.get("offset"),
            page.get("current"),
            page.get("total"),
        )
        total: Any = results.get("total")
        method = results.get("total_method")
        # `type(...) is int`: JSON integers are ints, never a subclass, and booleans are not integers here
        if (
            isinstance(data, list)
            and isinstance(links, dict)
            and type(limit) is int
            and type(offset) is int
            and type(current) is int
            and type(pages) is int
            and type(total) is int
        ):
            view = PageView(
                data, limit, offset, current, pages, total, method if isinstance(method, str) else None, links
            )
    context.memo["page"] = view
    return view


ENCODED_BRACKET = re.compile(r"%5[Bb]|%5[Dd]")


@lru_cache(maxsize=4096)  # a walk's next link is the following page's current and prev links
def link_page(link: str) -> tuple[str | None, str | None]:
    """A link's page[offset] and page[limit] values, brackets encoded or not (first value of each)."""
    offset = limit = None
    query = link.partition("?")[2].partition("#")[0]
    for pair in query.split("&"):
        name, _, value = pair.partition("=")
        if "%" in name:
            name = ENCODED_BRACKET.sub(lambda match: "[" if match[0][2] in "Bb" else "]", name)
        if name == "page[offset]" and offset is None:
            offset = unquote(value)
        elif name == "page[limit]" and limit is None:
            limit = unquote(value)
    return offset, limit


def as_count(text: str | None) -> int | None:
    """A link's page number as a count of records, when it is a plain non-negative integer."""
    return int(text) if text is not None and text.isdigit() and len(text) < 19 else None
