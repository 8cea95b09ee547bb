"""Checks of what the client asked: page parameters, limits, and sort+filter walks that skip records.

Spec (`commerce-api.md`), "List endpoints that support pagination" rules 1, 7, 8 and "Limits". These are
warnings for the client; a 2xx answer to a request past the hard offset limit is the service's error.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any, Literal

from proxy.core.model.integers import integer_parameter
from proxy.core.rules.checks.context import CheckContext, dig, record_value
from proxy.core.rules.checks.registry import check, integer_parameters, observer
from proxy.core.rules.checks.session import WalkState
from proxy.core.rules.checks.timestamps import comparable
from proxy.core.rules.endpoints import EndpointHit, routed_path
from proxy.core.rules.findings import Violation

FILTER_TERM = re.compile(r"([a-z_]+)\(([^,()]+),([^()]*)\)")
TIMESTAMP_ATTRIBUTES = ("created_at", "updated_at")
TOTAL_METHODS = ("exact", "lower_bound", "observed")


def requested_integer(context: CheckContext, name: str) -> int | Literal["invalid"] | None:
    """A page parameter as sent: its integer, None when absent, "invalid" when not an integer (worked
    out once an exchange: six checks ask)."""
    known = context.integers
    if name in known:
        return known[name]
    raw = context.parameter(name)
    found: int | Literal["invalid"] | None = None
    if raw is not None:
        number = integer_parameter(raw)  # bounded: a 5,000-digit value is read, never int()'s ValueError
        found = "invalid" if number is None else number
    known[name] = found
    return found


def filter_terms(text: str | None) -> list[tuple[str, str, str]]:
    """The `op(attribute,value)` terms of a filter, joined by ':' (unparseable text gives none)."""
    if not text:
        return []
    return [(match[1], match[2], match[3]) for match in FILTER_TERM.finditer(text)]


@check("page_parameters_integers", needs=("page[limit]", "page[offset]"), judges="request")
def page_parameters_integers(context: CheckContext, params: Mapping[str, Any]) -> Iterator[Violation]:
    """Spec, Pagination rule 1: `page[limit]` and `page[offset]` must be integers."""
    for name in ("page[limit]", "page[offset]"):
        if requested_integer(context, name) == "invalid":
            yield Violation(f"query {name}", "an integer", repr(context.parameter(name)))


@check("page_limit_requested_max", integer_parameters("max"), needs=("page[limit]",), judges="request")
def page_limit_requested_max(context: CheckContext, params: Mapping[str, Any]) -> Iterator[Violation]:
    """Spec, Limits: the maximum page length is 100; more is refused or clamped."""
    limit = requested_integer(context, "page[limit]")
    if isinstance(limit, int) and limit > params["max"]:
        yield Violation("query page[limit]", f"at most {params['max']}", str(limit))


@check("offset_past_limit", integer_parameters("limit"), needs=("page[offset]",), judges="request")
def offset_past_limit(context: CheckContext, params: Mapping[str, Any]) -> Iterator[Violation]:
    """Spec, Limits: offsets past 10,000 records are refused on /v2/orders and /v2/files and perform
    badly elsewhere; sort and filter reach further records (Pagination rule 7)."""
    offset = requested_integer(context, "page[offset]")
    if isinstance(offset, int) and offset > params["limit"]:
        yield Violation(
            "query page[offset]", f"at most {params['limit']} (use sort and filter beyond it)", str(offset)
        )


@check("total_method_requested_value", needs=("page[total_method]",), judges="request")
def total_method_requested_value(context: CheckContext, params: Mapping[str, Any]) -> Iterator[Violation]:
    """Spec, Pagination query parameters: `page[total_method]` is exact, lower_bound or observed."""
    method = context.parameter("page[total_method]")
    if method is not None and method not in TOTAL_METHODS:
        yield Violation("query page[total_method]", "one of " + ", ".join(TOTAL_METHODS), repr(method))


def _sort_attribute(context: CheckContext) -> str | None:
    sort = context.parameter("sort")
    return sort.lstrip("-") if sort else None


def _sorted_values(context: CheckContext, attribute: str) -> list[Any]:
    data = dig(context.response_json, "data")
    return [record_value(record, attribute) for record in data] if isinstance(data, list) else []


@check("walk_skips_shared_timestamps", needs=("sort",), judges="request")
def walk_skips_shared_timestamps(context: CheckContext, params: Mapping[str, Any]) -> Iterator[Violation]:
    """Spec, Pagination rule 8: records can share a timestamp, so a walk that filters `gt` the last value
    seen, when the last page ended on several records with that value, can skip the rest of them."""
    found = _walk_of(context)
    if found is None or found[1].sharing < 2:
        return
    attribute, walk = found
    for text in _filtered_at(context, attribute, walk, "gt"):
        yield Violation(
            "query filter",
            f"ge({attribute},{text}): exchange {walk.exchange} ended on {walk.sharing} records "
            "sharing that value",
            f"gt({attribute},{text})",
        )


@check("page_within_one_timestamp", needs=("sort",), judges="request")
def page_within_one_timestamp(context: CheckContext, params: Mapping[str, Any]) -> Iterator[Violation]:
    """Spec, Pagination rule 8 (caveats of the sort-and-filter approach): when a full page's first and
    last timestamps are identical, the walk must still page further at that same value. Judged on the
    walk's next step, so a sorted read that walks no further (the newest three) is no walk at all: a
    step that filters `ge` that value again with no `page[offset]` gets the same page again."""
    found = _walk_of(context)
    if found is None or not found[1].whole_page:
        return
    attribute, walk = found
    offset = requested_integer(context, "page[offset]")
    if isinstance(offset, int) and offset > 0:
        return
    for text in _filtered_at(context, attribute, walk, "ge"):
        yield Violation(
            "query page[offset]",
            f"past the {walk.sharing} records of exchange {walk.exchange}, which all share "
            f"{attribute} {text} (a whole page)",
            str(offset) if isinstance(offset, int) else "none",
        )


def _walk_of(context: CheckContext) -> tuple[str, WalkState] | None:
    """The timestamp the request sorts by and where its list's last page ended, when one did."""
    attribute = _sort_attribute(context)
    if attribute is None or attribute not in TIMESTAMP_ATTRIBUTES:
        return None
    walk = context.session.walks.get((routed_path(context.exchange.request.path), attribute))
    return None if walk is None else (attribute, walk)


def _filtered_at(context: CheckContext, attribute: str, walk: WalkState, operator: str) -> Iterator[str]:
    """Each value the request filters `attribute` at with `operator` that is where the walk ended."""
    for used, filtered, text in filter_terms(context.parameter("filter")):
        if used == operator and filtered == attribute and comparable(text) == walk.value:
            yield text


def _may_sort(method: str, path: str, hit: EndpointHit, query: str) -> bool:
    return "sort" in query or "%" in query  # the name may come percent-encoded


@observer(watches=_may_sort)
def remember_walk(context: CheckContext) -> None:
    """Keep where each sorted list's last page ended, and how many records shared that value (keyed on
    the list's path however it is spelled: a trailing slash is the same list)."""
    attribute = _sort_attribute(context)
    if attribute not in TIMESTAMP_ATTRIBUTES or not context.succeeded:
        return
    values = [comparable(value) for value in _sorted_values(context, attribute)]
    if not values or values[-1] is None:
        return
    sharing = sum(1 for value in values if value == values[-1])
    limit = dig(context.response_json, "meta", "page", "limit")
    whole = sharing == len(values) >= 2 and len(values) == limit
    key = (routed_path(context.exchange.request.path), attribute)
    context.session.walks.put(key, WalkState(values[-1], sharing, context.index, whole))
