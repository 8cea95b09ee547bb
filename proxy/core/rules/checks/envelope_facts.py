"""One fact, one finding: which of a list page's stated numbers the others contradict.

A paginated answer states each of four facts more than once: the page length (`meta.page.limit`, every
link's `page[limit]`), the offset (`meta.page.offset`, `meta.page.current`, the current, prev and next
links), the total (`meta.results.total`, `meta.page.total`, `links.last`, `meta.results.all`) and whether
records follow (`links.next`, and the total by its method, as rules 3-5 of "List endpoints that support
pagination" say). One wrong value makes every rule that reads it complain, most of them about values
that are right. So `verdict` looks for the smallest set of stated values whose removal leaves the rest
agreeing on one page; when that set is the only smallest one, each rule reports only its member of it,
against the page the rest agree on, naming them. When there is no single explanation, `verdict` is None
and each rule judges alone, from the values as stated.

The records on the page are the one thing never doubted: a short page is the last, so the actual total
is then known (and a `lower_bound` total above it breaks "the actual total is at least the reported
value", rule 4).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, NamedTuple

from proxy.core.rules.checks.context import CheckContext, dig
from proxy.core.rules.checks.page_view import (
    LINK_NAMES,
    PageView,
    as_count,
    link_page,
    names_count,
    page_view,
    whole,
)
from proxy.core.rules.findings import Violation

UNBOUNDED = 2**62  # a total no stated value bounds from above
AGAINST_REQUEST = ("meta.page.offset", "meta.page.limit")  # their checks compare them with the request
NAMED_AT_MOST = 3  # agreeing values named in one expectation
RELATED = {  # the facts named as agreeing with each: whether records follow is the total's to say
    "total": {"total"},
    "follows": {"follows", "total"},
    "offset": {"offset"},
    "limit": {"limit"},
}


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


@dataclass(frozen=True, slots=True)
class Verdict:
    """The values to blame (the only smallest set) and every page the others agree on."""

    blamed: tuple[Witness, ...]
    points: tuple[Point, ...]
    others: tuple[Witness, ...]

    def violations(self, check: str) -> Iterator[Violation]:
        """What `check` reports: only its blamed values, each naming the values that agree."""
        for witness in self.blamed:
            if witness.check != check:
                continue
            related = RELATED[witness.about]
            agreeing = list(
                dict.fromkeys(
                    other.shows
                    for other in self.others
                    if other.about in related and (other.pins is None or any(map(other.pins, self.points)))
                )
            )
            expected = witness.expected(self.points)
            if agreeing:
                named = agreeing[:NAMED_AT_MOST]
                more = len(agreeing) - len(named)
                tail = f" and {more} more" if more else ""
                expected += f", as {', '.join(named)}{tail} show"
            yield Violation(witness.where, expected, witness.found)


def verdict(context: CheckContext, reported: Callable[[CheckContext, str], bool]) -> Verdict | None:
    """The page's single explanation, or None (no disagreement, or more than one explanation). A blamed
    `meta.page.offset` or `meta.page.limit` is judged against the request by its own check, so an
    explanation blaming one that `reported` says its check does not report is no explanation."""
    if "facts" in context.memo:
        remembered: Verdict | None = context.memo["facts"]
        return remembered
    view = page_view(context)
    found = None
    if view is not None and view.limit >= 1 and view.offset >= 0:
        stated_all = dig(context.response_json, "meta", "results", "all")
        found = _explain(view, stated_all, context.parameter("filter") is not None)
        if found is not None and any(
            witness.where in AGAINST_REQUEST and not reported(context, witness.where)
            for witness in found.blamed
        ):
            found = None
    context.memo["facts"] = found
    return found


def _explain(view: PageView, stated_all: Any, filtered: bool) -> Verdict | None:
    everything = whole(stated_all)
    if _consistent(view, everything):
        return None  # the common case, decided without building the witnesses
    witnesses = _witnesses(view, everything, filtered)
    best: dict[frozenset[int], list[Point]] = {}
    fewest = len(witnesses) + 1
    for point in _candidates(view, everything):
        if not _admissible(view, point):
            continue
        broken = frozenset(i for i, witness in enumerate(witnesses) if not witness.holds(point))
        if len(broken) < fewest:
            fewest, best = len(broken), {broken: [point]}
        elif len(broken) == fewest:
            best.setdefault(broken, []).append(point)
    if len(best) != 1:
        return None  # no page fits, or two explanations as small as each other
    [(broken, points)] = best.items()
    blamed = tuple(witnesses[i] for i in sorted(broken))
    others = tuple(w for i, w in enumerate(witnesses) if i not in broken and w.shows)
    return Verdict(blamed, tuple(points), others)


def _consistent(view: PageView, everything: int | None) -> bool:
    """Whether the page as stated agrees with itself: every witness `_witnesses` would build holds at
    the stated page (with records following as `links.next` says, or either way without it)."""
    limit, offset, total, links = view.limit, view.offset, view.total, view.links
    if total is None or len(view.data) > limit:
        return False  # without a stated total, `_explain` works the total out
    if view.current is not None and view.current != offset // limit + 1:
        return False
    if view.pages is not None and view.pages not in ((0, 1) if total == 0 else (math.ceil(total / limit),)):
        return False
    if everything is not None and everything < total:
        return False
    if "prev" in links and (links["prev"] is not None) != (offset > 0):
        return False
    following = (links["next"] is not None,) if "next" in links else (False, True)
    method = view.method or "exact"
    for follows in following:
        if follows and 0 < len(view.data) < limit:
            continue  # a short page is the last
        point = Point(limit, offset, total, follows, method)
        if _admissible(view, point) and all(
            _link_agrees(name, link, point) for name, link in links.items() if isinstance(link, str)
        ):
            return True
    return False


def _link_agrees(name: str, link: str, point: Point) -> bool:
    if name not in LINK_NAMES or not _names_a_page(name, point):
        return True
    offset, limit = link_page(link)
    return names_count(offset or "0", _link_target(name, point)) and (
        limit is None or names_count(limit, point.limit)
    )


def _admissible(view: PageView, point: Point) -> bool:
    """Whether the records on the page allow `point`, under its total method (rules 3-5). A short page
    followed by more records is left to its witness (`_witnesses`), the page's one doubtable fact."""
    _, offset, total, follows, method = point
    count = len(view.data)
    seen = offset + count
    if count == 0:
        if follows:
            return False  # nothing at this offset: nothing after it either
        if offset == 0:
            return total == 0  # an empty first page: the list is empty, whatever the method
        return total <= offset if method in ("exact", "lower_bound") else True
    if method == "exact":
        return total > seen if follows else total == seen
    if method == "observed":
        return total == seen + (1 if follows else 0)
    if method == "lower_bound":
        return follows or total <= seen  # the actual total is at least the reported one (rule 4)
    return True  # a method the documentation does not define: nothing follows from it


def _candidates(view: PageView, everything: int | None) -> Iterator[Point]:
    """Every page worth trying: each value any witness states, and the edges of what it allows; under
    the stated total method and, when that is another, under `exact` (the method may be what is wrong)."""
    links = {name: link_page(link) for name, link in view.links.items() if isinstance(link, str)}
    limits = {view.limit} | {n for _, text in links.values() if (n := as_count(text)) is not None and n >= 1}
    offsets_stated = {name: as_count(offset) for name, (offset, _) in links.items()}
    count = len(view.data)
    stated = view.method or "exact"
    methods = (stated,) if stated == "exact" else (stated, "exact")
    for limit in sorted(limits):
        offsets = {view.offset, 0}
        if view.current is not None:
            offsets.add((view.current - 1) * limit)
        if (current := offsets_stated.get("current")) is not None:
            offsets.add(current)
        if (previous := offsets_stated.get("prev")) is not None:
            offsets.add(previous + limit)
        if (following := offsets_stated.get("next")) is not None:
            offsets.add(following - limit)
        for offset in sorted(o for o in offsets if o >= 0):
            seen = offset + count
            totals = {seen, seen + 1, offset, 0, UNBOUNDED}
            if view.total is not None:
                totals.add(view.total)
            if view.pages is not None:
                totals |= {(view.pages - 1) * limit + 1, view.pages * limit}
            if everything is not None:
                totals.add(everything)
            if (last := offsets_stated.get("last")) is not None:
                totals |= {last + 1, last + limit}
            for total in sorted(t for t in totals if t >= 0):
                for method in methods:
                    yield Point(limit, offset, total, False, method)
                    yield Point(limit, offset, total, True, method)


def _pages(point: Point) -> int:
    return math.ceil(point.total / point.limit)


def _span(values: list[int]) -> str:
    low, high = min(values), max(values)
    return str(low) if low == high else f"{low} to {high}"


def _witnesses(view: PageView, everything: int | None, filtered: bool) -> list[Witness]:
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
        shown = str(everything) if everything in totals and not filtered else _span(totals)
        reason = "this short page is the last" if len(view.data) < first.limit else f"{seen} seen so far"
        return f"{shown} ({first.method}: {reason})"

    def pages_expected(points: tuple[Point, ...]) -> str:
        counts = sorted({_pages(p) for p in points})
        if all(p.total == 0 for p in points):
            return "0 or 1 (no results)"
        if len(points) == 1 or len({p.total for p in points}) == 1:
            p = points[0]
            return f"{_pages(p)} (ceil({p.total} / {p.limit}))"
        return f"{' or '.join(map(str, counts))} (a total of {_span([p.total for p in points])})"

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
                lambda p: pages in ((0, 1) if p.total == 0 else (_pages(p),)),
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
    witnesses += [
        Witness(
            "offset_as_requested",
            "meta.page.offset",
            "offset",
            lambda p: p.offset == view.offset,
            lambda points: "",
            str(view.offset),
            f"meta.page.offset {view.offset}",
        ),
        Witness(
            "page_limit",
            "meta.page.limit",
            "limit",
            lambda p: p.limit == limit,
            lambda points: "",
            str(limit),
            f"meta.page.limit {limit}",
        ),
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
            witnesses.extend(_link_witnesses(name, link))
    return witnesses


def _distinct(points: tuple[Point, ...], render: Callable[[Point], str]) -> str:
    return " or ".join(dict.fromkeys(render(point) for point in points))


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


def _link_target(name: str, point: Point) -> int:
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


def _names_a_page(name: str, point: Point) -> bool:
    """Whether the link has a page to name: a prev on the first page or a next after the last is
    wrong by being there (`links.prev`'s and `links.next`'s finding), not by where it points."""
    return not ((name == "prev" and point.offset == 0) or (name == "next" and not point.follows))


def _link_witnesses(name: str, link: str) -> list[Witness]:
    """A link's page[offset] and page[limit] (a missing offset is 0, a missing limit states nothing)."""
    offset, limit = link_page(link)
    about = "total" if name == "last" else "offset"
    stated_offset = offset or "0"
    found = [
        Witness(
            "link_targets",
            f"links.{name}",
            about,
            lambda point: (
                not _names_a_page(name, point) or names_count(stated_offset, _link_target(name, point))
            ),
            lambda points: _distinct(points, lambda p: f"page[offset]={_link_target(name, p)}"),
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
                lambda point: not _names_a_page(name, point) or names_count(limit, point.limit),
                lambda points: _distinct(points, lambda p: f"page[limit]={p.limit}"),
                stated_place("page[limit]", limit, link),
                f"the links' page[limit]={limit}",
            )
        )
    return found


def stated_place(name: str, value: str | None, link: str) -> str:
    """How a report quotes a link's page parameter: `page[offset]=25 in <link>`, or that it has none."""
    return f"{name}={value} in {link}" if value is not None else f"no {name} in {link!r}"
