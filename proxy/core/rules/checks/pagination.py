"""Checks of paginated lists: the envelope's arithmetic, its links, and sort and filter.

Spec (`commerce-api.md`), "Paginated list envelope", "List endpoints that support pagination" rules 1-8,
and "Limits". The envelope's presence and types are the `envelope` shape's; these checks skip an envelope
whose numbers are not integers rather than guess.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from typing import Any

from proxy.core.rules.checks.context import CheckContext, dig, is_integer, record_value
from proxy.core.rules.checks.envelope_facts import Verdict, verdict
from proxy.core.rules.checks.envelope_witnesses import stated_place
from proxy.core.rules.checks.page_view import (
    LINK_NAMES,
    MAX_LIMIT,
    PageView,
    addresses_list,
    link_page,
    names_count,
    page_view,
    whole,
)
from proxy.core.rules.checks.registry import check, integer_parameters, observer
from proxy.core.rules.checks.requests import TOTAL_METHODS, filter_terms, requested_integer
from proxy.core.rules.checks.session import DefaultPageLength
from proxy.core.rules.checks.timestamps import comparable
from proxy.core.rules.endpoints import EndpointHit
from proxy.core.rules.findings import Violation

PAGINATED_LIST = "paginated-list"  # the endpoint group of rules/endpoints.yaml


def settled(context: CheckContext) -> Verdict | None:
    """The page's single explanation when its stated numbers disagree (see `envelope_facts`): then the
    checks of the envelope's arithmetic and links report only the values it blames."""
    return verdict(context, _reported_against_request)


def _reported_against_request(context: CheckContext, where: str) -> bool:
    """Whether the check of `meta.page.offset` or `meta.page.limit` reports it (both judge it against
    the request, not against the rest of the page)."""
    limits = {"max": MAX_LIMIT}
    if where == "meta.page.offset":
        return any(True for _ in offset_as_requested(context, {}))
    return any(True for _ in page_limit_max(context, limits)) or any(
        True for _ in page_limit_as_requested(context, limits)
    )


@check("page_limit_max", integer_parameters("max"))
def page_limit_max(context: CheckContext, params: Mapping[str, Any]) -> Iterator[Violation]:
    """Spec, Limits: a page holds at most 100 records (`meta.page.limit`)."""
    limit = _stated(context, "limit")
    if limit is not None and limit > params["max"]:
        yield Violation("meta.page.limit", f"at most {params['max']}", str(limit))


@check("page_limit_as_requested", integer_parameters("max"))
def page_limit_as_requested(context: CheckContext, params: Mapping[str, Any]) -> Iterator[Violation]:
    """Spec, Limits: `meta.page.limit` is the requested `page[limit]` (clamped to 100), or else the
    project's default page length. That default is set per project through the settings endpoint
    (not shown), so it is the config's `default_page_length` when stated, and otherwise the one the
    first list answered without `page[limit]` showed: later such answers must agree with it. A limit
    above the maximum is `page_limit_max`'s finding alone: a value is compared only once its own rule
    accepts it."""
    limit = _stated(context, "limit")
    requested = requested_integer(context, "page[limit]")
    if limit is None or requested == "invalid" or limit > params["max"]:
        return
    if requested is not None:
        if requested >= 1 and limit != min(requested, params["max"]):
            yield Violation(
                "meta.page.limit", f"{min(requested, params['max'])} (page[limit]={requested})", str(limit)
            )
        return
    configured = context.session.page_lengths
    learned = context.session.default_page_length
    if configured and limit not in configured:
        shown = " or ".join(str(value) for value in configured)
        yield Violation(
            "meta.page.limit", f"{shown} (the config's default_page_length: no page[limit] sent)", str(limit)
        )
    elif not configured and learned is not None and limit != learned.limit:
        yield Violation(
            "meta.page.limit",
            f"{learned.limit} (the default page length shown at exchange {learned.exchange}: "
            "no page[limit] sent)",
            str(limit),
        )


def _stated(context: CheckContext, name: str) -> int | None:
    """`meta.page.limit` or `meta.page.offset` as the page states it, when it is an integer at all (the
    page view may have taken an unusable one from the request instead: its own rule still judges it)."""
    return whole(dig(context.response_json, "meta", "page", name)) if page_view(context) is not None else None


def _unrequested_list_read(method: str, path: str, hit: EndpointHit, query: str) -> bool:
    # `page[limit]` as sent or percent-encoded (`page%5Blimit%5D`); a filter value with "limit" in it
    # still leaves a list answered at the default length.
    lowered = query.lower()
    return (
        method == "GET"
        and PAGINATED_LIST in hit.groups
        and "limit]" not in lowered
        and "limit%5d" not in lowered
    )


@observer(watches=_unrequested_list_read)
def remember_default_page_length(context: CheckContext) -> None:
    """Keep the page length the first list answered without `page[limit]` showed: the project's
    default, unless the config states it (a length over 100 is no default: the limit rule says so)."""
    session = context.session
    if session.page_lengths or session.default_page_length is not None or not context.succeeded:
        return
    view = page_view(context)
    if (
        view is not None
        and view.limit_stated
        and requested_integer(context, "page[limit]") is None
        and 1 <= view.limit <= MAX_LIMIT
    ):
        session.default_page_length = DefaultPageLength(view.limit, context.index)


@check("data_within_limit")
def data_within_limit(context: CheckContext, params: Mapping[str, Any]) -> Iterator[Violation]:
    """Spec, Paginated list envelope: `meta.page.limit` is the most records a page holds."""
    found = settled(context)
    if found is not None:
        yield from found.violations("data_within_limit")
        return
    view = page_view(context)
    if view is not None and len(view.data) > view.limit:
        yield Violation(
            "data", f"at most {view.limit} records (meta.page.limit)", f"{len(view.data)} records"
        )


@check("offset_as_requested")
def offset_as_requested(context: CheckContext, params: Mapping[str, Any]) -> Iterator[Violation]:
    """Spec, Pagination rule 2: `meta.page.offset` is the records skipped, as requested (0 when not)."""
    offset = _stated(context, "offset")
    requested = requested_integer(context, "page[offset]")
    if offset is None or requested == "invalid" or (requested is not None and requested < 0):
        return
    expected = requested or 0
    if offset != expected:
        yield Violation("meta.page.offset", f"{expected} (page[offset] requested)", str(offset))


@check("current_page")
def current_page(context: CheckContext, params: Mapping[str, Any]) -> Iterator[Violation]:
    """Spec, Pagination rule 2: page N starts at offset (N-1)*L, so current = floor(offset / limit) + 1."""
    found = settled(context)
    if found is not None:
        yield from found.violations("current_page")
        return
    view = page_view(context)
    if view is None or view.current is None or view.limit < 1 or view.offset < 0:
        return
    expected = view.offset // view.limit + 1
    if view.current != expected:
        yield Violation(
            "meta.page.current", f"{expected} (floor({view.offset} / {view.limit}) + 1)", str(view.current)
        )


@check("page_total")
def page_total(context: CheckContext, params: Mapping[str, Any]) -> Iterator[Violation]:
    """Spec, Paginated list envelope: the page count is ceil(results.total / limit) (0 or 1 when empty)."""
    found = settled(context)
    if found is not None:
        yield from found.violations("page_total")
        return
    view = page_view(context)
    if view is None or view.pages is None or view.total is None or view.limit < 1:
        return
    expected = math.ceil(view.total / view.limit)
    allowed = {0, 1} if view.total == 0 else {expected}
    if view.pages not in allowed:
        shown = (
            "0 or 1 (no results)" if view.total == 0 else f"{expected} (ceil({view.total} / {view.limit}))"
        )
        yield Violation("meta.page.total", shown, str(view.pages))


@check("results_all_not_below_total")
def results_all_not_below_total(context: CheckContext, params: Mapping[str, Any]) -> Iterator[Violation]:
    """Spec, Paginated list envelope: `results.all` counts all results, so never fewer than `total`."""
    found = settled(context)
    if found is not None:
        yield from found.violations("results_all_not_below_total")
        return
    view = page_view(context)
    everything = whole(dig(context.response_json, "meta", "results", "all"))
    if view is not None and view.total is not None and everything is not None and everything < view.total:
        yield Violation("meta.results.all", f"at least results.total {view.total}", str(everything))


@check("total_consistent_with_method")
def total_consistent_with_method(context: CheckContext, params: Mapping[str, Any]) -> Iterator[Violation]:
    """Spec, Pagination rules 3-5: `exact` counts every result, `observed` one more than those seen when
    more exist and exactly those when none do, and `lower_bound` is at most the actual total, which a
    page that shows the list's end makes known (a lower bound below the records seen is still one)."""
    found = settled(context)
    if found is not None:
        yield from found.violations("total_consistent_with_method")
        return
    view = page_view(context)
    if view is None or view.total is None:
        return
    method = view.method or "exact"  # no total_method: the service does not support others
    where = "meta.results.total"
    if not view.data:
        if view.offset == 0 and view.total != 0:
            yield Violation(where, f"0 ({method}: the first page is empty)", str(view.total))
        elif method in ("exact", "lower_bound") and view.offset < view.total:
            yield Violation(
                where, f"at most {view.offset} ({method}: nothing at offset {view.offset})", str(view.total)
            )
        return
    if method == "observed":
        expected = {view.seen} if view.short else {view.seen, view.seen + 1}
        if view.total not in expected:
            shown = " or ".join(str(value) for value in sorted(expected))
            yield Violation(where, f"{shown} (observed: {view.seen} seen so far)", str(view.total))
    elif method == "lower_bound":
        if view.short and view.total > view.seen:  # the list ends here: the actual total is known
            yield Violation(where, f"{view.seen} (lower_bound: this short page is the last)", str(view.total))
    elif method == "exact":
        if view.short and view.total != view.seen:
            yield Violation(where, f"{view.seen} (exact, and this short page is the last)", str(view.total))
        elif view.total < view.seen:
            yield Violation(where, f"at least {view.seen} (exact: records seen so far)", str(view.total))


@check("total_method_as_requested", needs=("page[total_method]",))
def total_method_as_requested(context: CheckContext, params: Mapping[str, Any]) -> Iterator[Violation]:
    """Spec, Pagination rule 6: the service may answer with another total method; the client must check.
    Only a documented method on both sides is compared: a method that is none is the request's
    (`total_method_requested_value`) or the envelope's (`total_method`) finding alone."""
    view = page_view(context)
    requested = context.parameter("page[total_method]")
    if view is None or requested not in TOTAL_METHODS or view.method not in TOTAL_METHODS:
        return
    if view.method != requested:
        yield Violation(
            "meta.results.total_method",
            f"{requested} (requested; the client must read the method used)",
            view.method,
        )


@check("prev_link_presence")
def prev_link_presence(context: CheckContext, params: Mapping[str, Any]) -> Iterator[Violation]:
    """Spec, Paginated list envelope: `links.prev` is null on the first page and only there."""
    found = settled(context)
    if found is not None:
        yield from found.violations("prev_link_presence")
        return
    view = page_view(context)
    if view is None:
        return
    if "prev" not in view.links:
        return  # a missing key is the envelope's finding
    prev = view.links["prev"]
    if view.offset == 0 and prev is not None:
        yield Violation("links.prev", "null (offset 0 is the first page)", repr(prev))
    elif view.offset > 0 and prev is None:
        yield Violation("links.prev", f"a link (offset {view.offset} has a previous page)", "null")


def records_follow(view: PageView) -> bool | None:
    """Whether records follow this page, when the envelope says (None when it cannot know)."""
    if view.short:
        return False
    if view.total is None:
        return None
    method = view.method or "exact"
    if method in ("exact", "observed"):
        return view.total > view.seen
    return True if view.total > view.seen else None  # lower_bound: "at least"


@check("next_link_presence")
def next_link_presence(context: CheckContext, params: Mapping[str, Any]) -> Iterator[Violation]:
    """Spec, Paginated list envelope: `links.next` is null exactly when no page follows (as an `exact`
    or `observed` total or a short page tells; a `lower_bound` total only says more exist)."""
    found = settled(context)
    if found is not None:
        yield from found.violations("next_link_presence")
        return
    view = page_view(context)
    if view is None:
        return
    if "next" not in view.links:
        return  # a missing key is the envelope's finding
    follows = records_follow(view)
    following = view.links["next"]
    if follows is True and following is None:
        yield Violation("links.next", f"a link (records follow offset {view.seen})", "null")
    elif follows is False and following is not None:
        yield Violation("links.next", "null (nothing follows this page)", repr(following))


@check("link_targets")
def link_targets(context: CheckContext, params: Mapping[str, Any]) -> Iterator[Violation]:
    """Spec, Pagination rule 2 and the envelope: each link's page[offset] and page[limit] name its page
    (query parameters compared as a set; absolute or relative links; a missing offset is 0)."""
    found = settled(context)
    if found is not None:
        yield from found.violations("link_targets")
        return
    view = page_view(context)
    if view is None or view.limit < 1:
        return
    # the last page follows from the total, as the page count does: both are judged against it
    pages = math.ceil(view.total / view.limit) if view.total is not None else view.pages
    targets = {
        "current": view.offset,
        "first": 0,
        "last": max(pages - 1, 0) * view.limit if pages is not None else None,
        "prev": max(view.offset - view.limit, 0),
        "next": view.offset + view.limit,
    }
    nowhere = {"prev"} if view.offset == 0 else set()
    if records_follow(view) is False:
        nowhere.add("next")  # a link with no page to name is wrong by being there (links.prev, links.next)
    for name in LINK_NAMES:
        link, target = view.links.get(name), targets[name]
        if not isinstance(link, str) or name in nowhere:
            continue
        if not addresses_list(link, view.listed):
            yield Violation(f"links.{name}", f"an address of {view.listed}", link)
            continue  # a link to another list names no page of this one
        offset, limit = link_page(link)
        if target is not None and not names_count(offset or "0", target):
            yield Violation(
                f"links.{name}", f"page[offset]={target}", stated_place("page[offset]", offset, link)
            )
        if limit is not None and not names_count(limit, view.limit):
            yield Violation(
                f"links.{name}", f"page[limit]={view.limit}", stated_place("page[limit]", limit, link)
            )


@check("sort_honoured", needs=("sort",))
def sort_honoured(context: CheckContext, params: Mapping[str, Any]) -> Iterator[Violation]:
    """Spec, Pagination rule 7: records come ordered by the `sort` attribute (`-name` descending)."""
    view = page_view(context)
    sort = context.parameter("sort")
    if view is None or not sort:
        return
    attribute = sort.lstrip("-")
    descending = sort.startswith("-")
    previous = None
    for position, record in enumerate(view.data):
        value = comparable(record_value(record, attribute))
        if previous is not None and value is not None and type(previous) is type(value):
            out_of_order = value > previous if descending else value < previous
            if out_of_order:
                order = "descending" if descending else "ascending"
                yield Violation(
                    f"data[{position}]",
                    f"{attribute} in {order} order after data[{position - 1}]",
                    repr(record_value(record, attribute)),
                )
        if value is not None:
            previous = value


COMPARISONS = {
    "eq": lambda left, right: left == right,
    "gt": lambda left, right: left > right,
    "ge": lambda left, right: left >= right,
    "lt": lambda left, right: left < right,
    "le": lambda left, right: left <= right,
}


def _operand(record_side: Any, text: str) -> Any:
    """The filter's value as the record's value compares: a number, a timestamp, or the text."""
    if is_integer(record_side) or isinstance(record_side, float):
        try:
            return float(text)
        except ValueError:
            return None
    return comparable(text)


@check("filter_honoured", needs=("filter",))
def filter_honoured(context: CheckContext, params: Mapping[str, Any]) -> Iterator[Violation]:
    """Spec, Pagination rule 7: every record returned meets each `filter` comparison (ge, gt, ...)."""
    view = page_view(context)
    terms = filter_terms(context.parameter("filter"))
    if view is None or not terms:
        return
    for position, record in enumerate(view.data):
        for operator, attribute, text in terms:
            compare = COMPARISONS.get(operator)
            raw = record_value(record, attribute)
            if compare is None or raw is None:
                continue  # an operator or attribute the documentation does not define
            right = _operand(raw, text)
            left = float(raw) if isinstance(right, float) else comparable(raw)
            if right is None or type(left) is not type(right):
                continue
            if not compare(left, right):
                yield Violation(f"data[{position}].{attribute}", f"{operator}({attribute},{text})", repr(raw))
