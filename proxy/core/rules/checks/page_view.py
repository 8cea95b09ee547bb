"""The numbers of one paginated answer, read once per exchange, and the page a link names.

Spec (`commerce-api.md`), "Paginated list envelope". A view exists only when every number is an integer:
the `envelope` shape reports what is missing or mistyped, and no arithmetic guesses around it.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, NamedTuple
from urllib.parse import unquote, urlsplit

from proxy.core.model.json_text import is_integral
from proxy.core.rules.checks.context import CheckContext
from proxy.core.rules.checks.requests import requested_integer
from proxy.core.rules.endpoints import routed_path

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
    limit_stated: bool = True  # False: meta.page.limit was missing or unusable (see `page_view`)
    offset_stated: bool = True
    listed: str = ""  # the list the request read, in its routed spelling (`routed_path`)

    @property
    def seen(self) -> int:
        """Records up to the end of this page."""
        return self.offset + len(self.data)

    @property
    def short(self) -> bool:
        """Fewer records than the limit: nothing follows."""
        return len(self.data) < self.limit


def whole(value: Any) -> int | None:
    """A JSON number that is an integer (`10`, `10.0`, `1E1`, as JSON Schema counts integers), else None:
    booleans are not integers here. Numbers spelled otherwise than plainly are parsed to subclasses of
    int and float (`json_text.SpelledInt`, `SpelledFloat`): the same numbers."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float) and is_integral(value):
        return int(value)
    return None


def page_view(context: CheckContext) -> PageView | None:
    """The envelope's numbers, or None without a data array or `meta.page`. A page limit or offset that
    is missing or no usable number (the shape or its own rule reports it) is taken from what else states
    it, the request's `page[limit]`/`page[offset]` or the current link, so the checks that do not judge
    it still judge the rest of the page; `limit_stated`/`offset_stated` say which were the page's own."""
    if "page" in context.memo:
        remembered: PageView | None = context.memo["page"]
        return remembered
    body = context.response_json
    meta: Any = body.get("meta") if isinstance(body, dict) else None
    page: Any = meta.get("page") if isinstance(meta, dict) else None
    results: Any = meta.get("results") if isinstance(meta, dict) else None
    view: PageView | None = None
    data = body.get("data") if isinstance(body, dict) else None
    if isinstance(page, dict) and isinstance(data, list):
        links = body.get("links")
        links = links if isinstance(links, dict) else {}
        limit, offset = whole(page.get("limit")), whole(page.get("offset"))
        limit_stated = limit is not None and limit >= 1
        offset_stated = offset is not None and offset >= 0
        current_link = links.get("current")
        linked = link_page(current_link) if isinstance(current_link, str) else (None, None)
        if not limit_stated:
            limit = _first_count(_requested(context, "page[limit]", MAX_LIMIT), as_count(linked[1]), least=1)
        if not offset_stated:
            offset = _first_count(_requested(context, "page[offset]", None), as_count(linked[0]), 0, least=0)
        if limit is not None and offset is not None:
            method = results.get("total_method") if isinstance(results, dict) else None
            view = PageView(
                data,
                limit,
                offset,
                whole(page.get("current")),
                whole(page.get("total")),
                whole(results.get("total")) if isinstance(results, dict) else None,
                method if isinstance(method, str) else None,
                links,
                limit_stated,
                offset_stated,
                routed_path(context.exchange.request.path),
            )
    context.memo["page"] = view
    return view


MAX_LIMIT = 100  # Limits: the maximum page length; a larger page[limit] is answered with 100 at most


def _requested(context: CheckContext, name: str, most: int | None) -> int | None:
    """A page parameter as sent, when an integer (capped at `most`), read once with the checks' own."""
    number = requested_integer(context, name)
    if not isinstance(number, int):
        return None
    return min(number, most) if most is not None else number


def _first_count(*candidates: int | None, least: int) -> int | None:
    return next((number for number in candidates if number is not None and number >= least), None)


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


@lru_cache(maxsize=4096)  # the links of a walk repeat their numbers
def as_count(text: str | None) -> int | None:
    """A link's page number as a count of records, when it is a plain non-negative integer."""
    return int(text) if text is not None and text.isascii() and text.isdigit() and len(text) < 19 else None


def names_count(text: str | None, number: int) -> bool:
    """Whether a link's parameter value names this count (`010` names 10: the same integer)."""
    return text is not None and as_count(text) == number


VERSION_PREFIX = re.compile(r"^/[vV][0-9]+(?=/|$)")


@lru_cache(maxsize=4096)
def addresses_list(link: str, listed: str) -> bool:
    """Whether a link is an address of the list the request read: http(s) or relative, its path the
    list's in any spelling the service routes alike, with or without the version prefix (the custom
    API examples link without `/v2`) or a base path before it; a link of a query alone is the same list.
    Another host is no defect (a recording's origin is not the service's)."""
    try:
        parts = urlsplit(link)
    except ValueError:
        return False
    if parts.scheme and parts.scheme.lower() not in ("http", "https"):
        return False
    if not parts.path:
        return True
    path = routed_path(parts.path)
    return path == listed or path.endswith(VERSION_PREFIX.sub("", listed) or "/")
