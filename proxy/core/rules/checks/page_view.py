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
    """The numbers of one paginated response. `data`, `links` (an object, maybe empty), `limit` and
    `offset` are always there; `current`, `pages` and `total` are None when missing or not integers
    (the `envelope` shape reports that), so the checks that do not read them still judge the page. A
    named tuple: one is built for every list page checked, in a fifth of a frozen dataclass's time."""

    data: list[Any]
    limit: int
    offset: int
    current: int | None
    pages: int | None
    total: int | None
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


def whole(value: Any) -> int | None:
    """A JSON number that is an integer (`10` or `10.0`, as JSON Schema counts integers), else None:
    booleans are not integers here."""
    if type(value) is int:  # JSON integers are ints, never a subclass
        return value
    if type(value) is float and value.is_integer():
        return int(value)
    return None


def page_view(context: CheckContext) -> PageView | None:
    """The envelope's numbers, or None without a data array, a page limit or an offset (the shape
    reports what is missing)."""
    if "page" in context.memo:
        remembered: PageView | None = context.memo["page"]
        return remembered
    body = context.response_json
    meta: Any = body.get("meta") if isinstance(body, dict) else None
    page: Any = meta.get("page") if isinstance(meta, dict) else None
    results: Any = meta.get("results") if isinstance(meta, dict) else None
    view: PageView | None = None
    if isinstance(page, dict):  # (so body is a dict too)
        data, links = body.get("data"), body.get("links")
        limit, offset = whole(page.get("limit")), whole(page.get("offset"))
        if isinstance(data, list) and limit is not None and offset is not None:
            method = results.get("total_method") if isinstance(results, dict) else None
            view = PageView(
                data,
                limit,
                offset,
                whole(page.get("current")),
                whole(page.get("total")),
                whole(results.get("total")) if isinstance(results, dict) else None,
                method if isinstance(method, str) else None,
                links if isinstance(links, dict) else {},
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
    return int(text) if text is not None and text.isascii() and text.isdigit() and len(text) < 19 else None


def names_count(text: str | None, number: int) -> bool:
    """Whether a link's parameter value names this count (`010` names 10: the same integer)."""
    return text is not None and (as_count(text) == number or text == str(number))
