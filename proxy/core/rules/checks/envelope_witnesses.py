"""The stated values of a list page, each a witness of the page it describes (see `envelope_facts`).

A witness names the check that reports it, its place, what it states (`holds`: whether it agrees with a
candidate page) and how a finding shows it. Spec (`commerce-api.md`), "Paginated list envelope" and
"List endpoints that support pagination" rules 2-5.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from proxy.core.rules.checks.page_view import LINK_NAMES, PageView, addresses_list, link_page, names_count

UNBOUNDED = 2**62  # a total no stated value bounds from above


class Point(NamedTuple):
    """One page the stated values could describe."""

    limit: int
    offset: int
    total: int  # as the page's total method reports it
    follows: bool  # records exist after this page
    method: str  # the total method the page's numbers follow


@dataclass(frozen=True, slots=True)
class Witness:
    """One stated value: the check that reports it, where it is, and which pages it agrees with."""

    check: str
    where: str
    about: str  # the fact it states: "total", "follows", "offset" or "limit"
    holds: Callable[[Point], bool]
    expected: Callable[[tuple[Point, ...]], str]
    found: str
    shows: str  # how it is named among the values that agree with a blamed one ("": never)
    pins: Callable[[Point], bool] | None = None  # when set, named only if it states one page exactly


def pages_of(point: Point) -> int:
    return math.ceil(point.total / point.limit)


def span(values: list[int]) -> str:
    low, high = min(values), max(values)
    return str(low) if low == high else f"{low} to {high}"


def build_witnesses(view: PageView, everything: int | None, filtered: bool) -> list[Witness]:
    """Every stated value the page's facts can be checked against, with the check that reports it."""
    method = view.method or "exact"
    total, pages, current, limit = view.total, view.pages, view.current, view.limit

    def total_expected(points: tuple[Point, ...]) -> str:
        totals = [point.total for point in points]
        first = points[0]
        seen = first.offset + len(view.data)
        if max(totals) == UNBOUNDED:
            return f"at least {min(totals)} ({first.method}: {seen} seen so far)"
        # with no filter, the count of all results is the total, when the rest allow it
        shown = str(everything) if everything in totals and not filtered else span(totals)
        reason = "this short page is the last" if len(view.data) < first.limit else f"{seen} seen so far"
        return f"{shown} ({first.method}: {reason})"

    def pages_expected(every: tuple[Point, ...]) -> str:
        points = tuple(point for point in every if point.total < UNBOUNDED) or every
        counts = sorted({pages_of(p) for p in points})
        if all(p.total == 0 for p in points):
            return "0 or 1 (no results)"
        if len(points) == 1 or len({p.total for p in points}) == 1:
            p = points[0]
            return f"{pages_of(p)} (ceil({p.total} / {p.limit}))"
        return f"{' or '.join(map(str, counts))} (a total of {span([p.total for p in points])})"

    witnesses = []
    if total is not None:
        witnesses.append(
            Witness(
                "total_consistent_with_method",
                "meta.results.total",
                "total",
                lambda p: p.total == total,
                total_expected,
                str(total),
                f"meta.results.total {total}",
            )
        )
    if method != "exact":
        witnesses.append(
            Witness(
                "total_consistent_with_method",
                "meta.results.total_method",
                "total",
                lambda p: p.method == method,
                lambda points: "exact (the numbers follow an exact total)",
                method,
                "",
            )
        )
    if pages is not None:
        witnesses.append(
            Witness(
                "page_total",
                "meta.page.total",
                "total",
                lambda p: pages in ((0, 1) if p.total == 0 else (pages_of(p),)),
                pages_expected,
                str(pages),
                f"meta.page.total {pages}",
            )
        )
    if current is not None:
        witnesses.append(
            Witness(
                "current_page",
                "meta.page.current",
                "offset",
                lambda p: current == p.offset // p.limit + 1,
                lambda points: _distinct(
                    points, lambda p: f"{p.offset // p.limit + 1} (floor({p.offset} / {p.limit}) + 1)"
                ),
                str(current),
                f"meta.page.current {current}",
            )
        )
    if 0 < len(view.data) < limit:
        witnesses.append(
            Witness(
                "total_consistent_with_method",
                "data",
                "follows",
                lambda p: not p.follows or len(view.data) >= p.limit,
                lambda points: f"{points[0].limit} records (records follow this page)",
                f"{len(view.data)} records",
                "",
            )
        )
    if view.offset_stated:
        witnesses.append(
            Witness(
                "offset_as_requested",
                "meta.page.offset",
                "offset",
                lambda p: p.offset == view.offset,
                lambda points: "",
                str(view.offset),
                f"meta.page.offset {view.offset}",
            )
        )
    if view.limit_stated:
        witnesses.append(
            Witness(
                "page_limit",
                "meta.page.limit",
                "limit",
                lambda p: p.limit == limit,
                lambda points: "",
                str(limit),
                f"meta.page.limit {limit}",
            )
        )
    witnesses += [
        Witness(
            "data_within_limit",
            "data",
            "limit",
            lambda p: len(view.data) <= p.limit,
            lambda points: f"at most {points[0].limit} records",
            f"{len(view.data)} records",
            "",
        ),
    ]
    if everything is not None:
        witnesses.append(
            Witness(
                "results_all_not_below_total",
                "meta.results.all",
                "total",
                lambda p: everything >= p.total,
                lambda points: f"at least results.total {max(p.total for p in points)}",
                str(everything),
                f"meta.results.all {everything}" if not filtered else "",
                lambda p: p.total == everything,
            )
        )
    if "prev" in view.links:
        witnesses.append(_presence(view, "prev", "prev_link_presence", "offset", _prev_holds))
    if "next" in view.links:
        witnesses.append(_presence(view, "next", "next_link_presence", "follows", _next_holds))
    for name in LINK_NAMES:
        link = view.links.get(name)
        if isinstance(link, str):
            witnesses.extend(_link_witnesses(name, link, view.listed))
    return witnesses


def _distinct(points: tuple[Point, ...], render: Callable[[Point], str]) -> str:
    """Each different expectation the pages allow (pages with a total no value bounds left out: they
    name no page a reader could look for)."""
    bounded = [point for point in points if point.total < UNBOUNDED] or points
    return " or ".join(dict.fromkeys(render(point) for point in bounded))


def _prev_holds(point: Point, present: bool) -> bool:
    return present == (point.offset > 0)


def _next_holds(point: Point, present: bool) -> bool:
    return present == point.follows


def _presence(
    view: PageView, name: str, check: str, about: str, rule: Callable[[Point, bool], bool]
) -> Witness:
    """`links.prev` is null exactly on the first page, `links.next` exactly when nothing follows."""
    value = view.links[name]
    present = value is not None

    def expected(points: tuple[Point, ...]) -> str:
        point = points[0]
        if name == "prev":
            return (
                "null (offset 0 is the first page)"
                if present
                else (f"a link (offset {point.offset} has a previous page)")
            )
        if present:
            return "null (nothing follows this page)"
        return f"a link (records follow offset {point.offset + len(view.data)})"

    return Witness(
        check,
        f"links.{name}",
        about,
        lambda point: rule(point, present),
        expected,
        repr(value) if present else "null",
        "",  # a link or null pins no number: never named as agreeing
    )


def link_target(name: str, point: Point) -> int:
    """The offset of the page a link names (Pagination rule 2)."""
    if name == "current":
        return point.offset
    if name == "next":
        return point.offset + point.limit
    if name == "prev":
        return max(point.offset - point.limit, 0)
    if name == "last":
        return max(math.ceil(point.total / point.limit) - 1, 0) * point.limit
    return 0  # first


def names_a_page(name: str, point: Point) -> bool:
    """Whether the link has a page to name: a prev on the first page or a next after the last is
    wrong by being there (`links.prev`'s and `links.next`'s finding), not by where it points."""
    return not ((name == "prev" and point.offset == 0) or (name == "next" and not point.follows))


def _link_witnesses(name: str, link: str, listed: str) -> list[Witness]:
    """A link's page[offset] and page[limit] (a missing offset is 0, a missing limit states nothing);
    a link to another list is wrong by where it leads, whatever page of it it names."""
    if not addresses_list(link, listed):
        return [
            Witness(
                "link_targets",
                f"links.{name}",
                "offset",
                lambda point: not names_a_page(name, point),
                lambda points: f"an address of {listed}",
                link,
                "",
            )
        ]
    offset, limit = link_page(link)
    about = "total" if name == "last" else "offset"
    stated_offset = offset or "0"
    found = [
        Witness(
            "link_targets",
            f"links.{name}",
            about,
            lambda point: (
                not names_a_page(name, point) or names_count(stated_offset, link_target(name, point))
            ),
            lambda points: _distinct(points, lambda p: f"page[offset]={link_target(name, p)}"),
            stated_place("page[offset]", offset, link),
            f"links.{name} page[offset]={stated_offset}" if name != "first" else "",
        )
    ]
    if limit is not None:
        found.append(
            Witness(
                "link_targets",
                f"links.{name}",
                "limit",
                lambda point: not names_a_page(name, point) or names_count(limit, point.limit),
                lambda points: _distinct(points, lambda p: f"page[limit]={p.limit}"),
                stated_place("page[limit]", limit, link),
                f"the links' page[limit]={limit}",
            )
        )
    return found


def stated_place(name: str, value: str | None, link: str) -> str:
    """How a report quotes a link's page parameter: `page[offset]=25 in <link>`, or that it has none."""
    return f"{name}={value} in {link}" if value is not None else f"no {name} in {link!r}"
