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

The records on the page are doubted in two ways only: a short page while every number says records
follow is a witness of its own, and records past the limit are data-within-limit's finding and tell
nothing else. Otherwise a short page is the last, so the actual total is then known (and a `lower_bound`
total above it breaks "the actual total is at least the reported value", rule 4).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from proxy.core.rules.checks.context import CheckContext, dig
from proxy.core.rules.checks.envelope_witnesses import (
    UNBOUNDED,
    Point,
    Witness,
    build_witnesses,
    link_target,
    names_a_page,
)
from proxy.core.rules.checks.page_view import (
    LINK_NAMES,
    PageView,
    addresses_list,
    as_count,
    link_page,
    page_view,
    whole,
)
from proxy.core.rules.findings import Violation

AGAINST_REQUEST = ("meta.page.offset", "meta.page.limit")  # their checks compare them with the request
NAMED_AT_MOST = 5  # agreeing values named in one expectation
RELATED = {  # the facts named as agreeing with each: whether records follow is the total's to say
    "total": {"total"},
    "follows": {"follows", "total"},
    "offset": {"offset"},
    "limit": {"limit"},
}


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


_UNSETTLED = object()
AGREED = Verdict((), (), ())  # a page whose stated values all agree: nothing to report, nothing to redo


def verdict(context: CheckContext, reported: Callable[[CheckContext, str], bool]) -> Verdict | None:
    """The page's single explanation (`AGREED` when its values all agree), or None (more than one). A blamed
    `meta.page.offset` or `meta.page.limit` is judged against the request by its own check, so an
    explanation blaming one that `reported` says its check does not report is no explanation."""
    remembered: Verdict | object | None = context.memo.get("facts", _UNSETTLED)
    if remembered is not _UNSETTLED:  # eight checks ask of every list page
        return remembered  # type: ignore[return-value]
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
        return AGREED  # the common case, decided without building the witnesses
    witnesses = build_witnesses(view, everything, filtered)
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
    """Whether the page as stated agrees with itself: every witness `build_witnesses` would build holds at
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
        if _admissible(view, point) and _links_agree(links, point, view.listed):
            return True
    return False


def _links_agree(links: dict[str, Any], point: Point, listed: str) -> bool:
    """Whether every documented link that names a page names the page of `point`, of this list (one
    loop, no call per link: it runs on every list page checked)."""
    for name, link in links.items():
        if not isinstance(link, str) or name not in LINK_NAMES or not names_a_page(name, point):
            continue
        if not addresses_list(link, listed):
            return False
        offset, limit = link_page(link)
        if as_count(offset or "0") != link_target(name, point):
            return False
        if limit is not None and as_count(limit) != point.limit:
            return False
    return True


def _admissible(view: PageView, point: Point) -> bool:
    """Whether the records on the page allow `point`, under its total method (rules 3-5). A short page
    followed by more records is left to its witness (`build_witnesses`), the page's one doubtable fact."""
    _, offset, total, follows, method = point
    count = len(view.data)
    if count > point.limit:
        return True  # records past the limit are data-within-limit's finding, and tell nothing else
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
    links = {  # the five documented links only: other keys state nothing (and may be many)
        name: link_page(link) for name in LINK_NAMES if isinstance(link := view.links.get(name), str)
    }
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
