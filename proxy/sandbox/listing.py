"""List windows: page parameters, sort and filter, and the paginated envelope, as the spec states.

Spec sections: "Paginated list envelope", "List endpoints that support pagination", "Limits".
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import quote

DEFAULT_LIMIT = 25
MAX_LIMIT = 100
OFFSET_LIMIT = 10_000
COUNT_LIMIT = 10_000  # api-notes: lower_bound counts up to 10,000
TOTAL_METHODS = ("exact", "lower_bound", "observed")
SORTABLE = ("created_at", "updated_at", "id")
# The documentation names ge and gt "such as"; the published specs and docs also filter with eq and
# like (`like(name,*swan*)` on accounts, `eq(file_name,...)` on files): where the documentation is
# silent the sandbox follows them, on timestamps, ids and the records' own text fields.
FILTER_OPERATORS = ("eq", "like", "gt", "ge", "lt", "le")
TIMESTAMPS = ("created_at", "updated_at")
FILTER_TERM = re.compile(r"(?P<op>[a-z]+)\((?P<field>[a-z_]+),(?P<value>[^()]*)\)")


class ListError(Exception):
    """A list request the service refuses with 400; `source` names the parameter."""

    def __init__(self, source: str, detail: str) -> None:
        super().__init__(detail)
        self.source = source
        self.detail = detail


@dataclass(frozen=True, slots=True)
class Filter:
    """One `op(field,value)` term of the `filter` parameter."""

    operator: str
    field: str
    value: str


@dataclass(frozen=True, slots=True)
class PageRequest:
    """The page parameters of one list request, already validated."""

    limit: int
    offset: int
    total_method: str | None
    sort: str | None
    filter_text: str | None
    filters: tuple[Filter, ...]


def parse_page_request(
    query: Mapping[str, str], hard_offset_limit: bool, default_limit: int = DEFAULT_LIMIT
) -> PageRequest:
    """Validate page[limit], page[offset], page[total_method], sort and filter.

    Spec, Pagination rule 1: both page parameters must be integers. Limits: page length at most 100
    (a larger one is clamped), offsets past 10,000 refused on /v2/orders and /v2/files.
    """
    limit = _integer(query, "page[limit]", default_limit)
    if limit < 1:
        raise ListError("page[limit]", f"page[limit] must be at least 1, found {limit}")
    offset = _integer(query, "page[offset]", 0)
    if offset < 0:
        raise ListError("page[offset]", f"page[offset] must not be negative, found {offset}")
    if hard_offset_limit and offset > OFFSET_LIMIT:
        raise ListError(
            "page[offset]",
            f"page[offset] must not exceed {OFFSET_LIMIT} on this endpoint, found {offset}; "
            "use sort and filter to reach further records",
        )
    method = query.get("page[total_method]")
    if method is not None and method not in TOTAL_METHODS:
        raise ListError(
            "page[total_method]",
            f"page[total_method] must be one of {', '.join(TOTAL_METHODS)}, found {method!r}",
        )
    sort = query.get("sort")
    if sort is not None and sort.lstrip("-") not in SORTABLE:
        raise ListError("sort", f"sort must be one of {', '.join(SORTABLE)} (or -name), found {sort!r}")
    filter_text = query.get("filter")
    filters = _parse_filter(filter_text) if filter_text is not None else ()
    return PageRequest(min(limit, MAX_LIMIT), offset, method, sort, filter_text, filters)


def _integer(query: Mapping[str, str], name: str, default: int) -> int:
    raw = query.get(name)
    if raw is None:
        return default
    shown = repr(raw) if len(raw) <= 40 else f"{raw[:40]!r}... ({len(raw)} characters)"
    if not re.fullmatch(r"-?[0-9]+", raw.strip()):
        raise ListError(name, f"{name} must be an integer, found {shown}")
    digits = raw.strip().lstrip("-").lstrip("0")
    if len(digits) > 12:  # int() of thousands of digits raises
        raise ListError(name, f"{name} is out of range, found {shown}")
    return -int(digits or "0") if raw.strip().startswith("-") else int(digits or "0")


def _parse_filter(text: str) -> tuple[Filter, ...]:
    terms = []
    position = 0
    while position < len(text):
        match = FILTER_TERM.match(text, position)
        if match is None:
            raise ListError("filter", f"filter: expected op(field,value) at {text[position:]!r}")
        operator, field = match["op"], match["field"]
        if operator not in FILTER_OPERATORS:
            raise ListError("filter", f"filter: unknown operator {operator!r}")
        if operator == "like" and field in TIMESTAMPS:
            raise ListError("filter", f"filter: like compares text, and {field!r} is a timestamp")
        terms.append(Filter(operator, field, match["value"]))
        position = match.end()
        if position < len(text):
            if text[position] != ":":
                raise ListError("filter", f"filter: expected ':' between terms at {text[position:]!r}")
            position += 1
    return tuple(terms)


def _field(record: Mapping[str, Any], field: str) -> Any:
    if field in TIMESTAMPS:
        return _moment(record["meta"]["timestamps"][field])
    value = record.get(field)
    if not isinstance(value, str):
        raise ListError("filter", f"filter: cannot filter on {field!r}")
    return value


def _moment(value: str) -> datetime | str:
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return value


def _passes(record: Mapping[str, Any], term: Filter) -> bool:
    left = _field(record, term.field)
    if term.operator == "like":  # `*` stands for any characters, case ignored
        pattern = ".*".join(re.escape(piece) for piece in term.value.split("*"))
        return re.fullmatch(pattern, left, re.IGNORECASE) is not None
    right: Any = _moment(term.value) if term.field in TIMESTAMPS else term.value
    if type(left) is not type(right):
        raise ListError("filter", f"filter: {term.value!r} is not a timestamp")
    comparisons = {
        "eq": left == right,
        "gt": left > right,
        "ge": left >= right,
        "lt": left < right,
        "le": left <= right,
    }
    return bool(comparisons[term.operator])


def select(records: list[dict[str, Any]], page: PageRequest) -> list[dict[str, Any]]:
    """The records the filter keeps, in the order `sort` asks for (ties broken by id)."""
    chosen = [record for record in records if all(_passes(record, term) for term in page.filters)]
    if page.sort:
        field = page.sort.lstrip("-")
        chosen.sort(
            key=lambda record: (_field(record, field), record["id"]),
            reverse=page.sort.startswith("-"),
        )
    return chosen


def list_page(
    records: list[dict[str, Any]], all_count: int, page: PageRequest, base_url: str
) -> dict[str, Any]:
    """The paginated envelope for one window of the selected records.

    Spec, rules 3 to 6: exact counts; lower_bound is "at least"; observed is one more than the
    current page when more exist; the response may use another method and says which.
    """
    count = len(records)
    window = records[page.offset : page.offset + page.limit]
    more = page.offset + len(window) < count
    requested = page.total_method or "lower_bound"
    if requested == "observed":
        method, total = "observed", min(page.offset, count) + len(window) + (1 if more else 0)
    elif count <= COUNT_LIMIT:
        method, total = "exact", count
    else:
        # api-notes: lower_bound counts up to 10,000, so a larger list reports exactly that, even to a
        # page past it (the documentation's "at least" still holds); the notes win where it is silent.
        method, total = "lower_bound", COUNT_LIMIT
    pages = math.ceil(total / page.limit)
    last_offset = max(pages - 1, 0) * page.limit
    links = {
        "current": _link(base_url, page, page.offset),
        "first": _link(base_url, page, 0),
        "last": _link(base_url, page, last_offset),
        "prev": _link(base_url, page, max(page.offset - page.limit, 0)) if page.offset > 0 else None,
        "next": _link(base_url, page, page.offset + page.limit) if more else None,
    }
    return {
        "data": window,
        "links": links,
        "meta": {
            "page": {
                "limit": page.limit,
                "offset": page.offset,
                "current": page.offset // page.limit + 1,
                "total": pages,
            },
            "results": {"total": total, "all": all_count, "total_method": method},
        },
    }


def _link(base_url: str, page: PageRequest, offset: int) -> str:
    parts = [f"page[limit]={page.limit}", f"page[offset]={offset}"]
    if page.total_method:
        parts.append(f"page[total_method]={page.total_method}")
    if page.sort:
        parts.append(f"sort={quote(page.sort, safe='-_')}")
    if page.filter_text is not None:
        parts.append(f"filter={quote(page.filter_text, safe='(),:.-_~')}")
    return f"{base_url}?{'&'.join(parts)}"
