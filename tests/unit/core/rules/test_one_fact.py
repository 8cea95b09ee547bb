"""One fact, one finding: one wrong value planted in a conformant list page is reported once, at its
place, under the rule that judges that place, and the rules that only follow from it stay quiet.

The table is drawn by loops: page lengths, list sizes, pages of the list (first, middle, last, past
the end), total methods, and every stated value of the envelope (each number, each link's offset and
limit, a link there or not, a key missing).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from proxy.core.rules.engine import Checker
from proxy.core.rules.ruleset import RuleSet
from proxy.store.rule_files import load_rules
from proxy.store.shipped import shipped_dir
from tests.unit.core.exchanges import REMOVE, changed, link, list_page, list_read

RULES: RuleSet = load_rules(shipped_dir("rules"))
Body = dict[str, Any]


def pages() -> Iterator[tuple[str, int, int, int, str | None]]:
    """(name, limit, offset, total, method) of conformant pages."""
    for limit in (1, 10, 25):
        for total in dict.fromkeys((0, 1, limit, 2 * limit + 3, 7 * limit)):
            last = max(-(-total // limit) - 1, 0) * limit
            for offset in dict.fromkeys((0, limit, last, last + limit)):
                for method in ("exact", None, "lower_bound"):
                    if method == "lower_bound" and offset + limit < total:
                        continue  # a lower bound is exact only where the page shows the list's end
                    yield (
                        f"limit {limit}, total {total}, offset {offset}, {method}",
                        limit,
                        offset,
                        total,
                        method,
                    )


def mutations(
    body: Body, limit: int, offset: int, total: int, method: str | None
) -> Iterator[tuple[str, str, str, Body]]:
    """(what, rule, where, body) for every stated value made wrong, alone."""
    page = body["meta"]["page"]
    yield (
        "total",
        "pagination.results.total-method-consistent",
        "meta.results.total",
        changed(body, "meta.results.total", total + 3 * limit + 1),
    )
    yield (
        "page count",
        "pagination.page.total",
        "meta.page.total",
        changed(body, "meta.page.total", page["total"] + 2),
    )
    yield (
        "current page",
        "pagination.page.current",
        "meta.page.current",
        changed(body, "meta.page.current", page["current"] + 2),
    )
    yield (
        "offset",
        "pagination.page.offset-requested",
        "meta.page.offset",
        changed(body, "meta.page.offset", offset + 3 * limit),
    )
    yield (
        "limit",
        "pagination.page.limit-requested",
        "meta.page.limit",
        changed(body, "meta.page.limit", limit + 5),
    )
    if total > 0:
        yield (
            "all",
            "pagination.results.all-not-below-total",
            "meta.results.all",
            changed(body, "meta.results.all", total - 1),
        )
    for name, value in body["links"].items():
        where = f"links.{name}"
        if isinstance(value, str):
            target = value.split("page[offset]=")[1]
            moved = value.replace(f"page[offset]={target}", f"page[offset]={int(target) + 2 * limit}")
            yield f"{name} offset", "pagination.links.targets", where, changed(body, where, moved)
            wider = value.replace(f"page[limit]={limit}", f"page[limit]={limit + 1}")
            yield f"{name} limit", "pagination.links.targets", where, changed(body, where, wider)
        yield f"no {name} key", "pagination.envelope.links", where, changed(body, where, REMOVE)
    full = len(body["data"]) == limit
    if body["links"]["next"] is None and not (method == "lower_bound" and full):  # (more may exist)
        stray = link("/v2/products", limit, offset + limit)
        yield "a next link", "pagination.links.next", "links.next", changed(body, "links.next", stray)
    elif body["links"]["next"] is not None:
        yield "no next link", "pagination.links.next", "links.next", changed(body, "links.next", None)
    if body["links"]["prev"] is None:
        stray = link("/v2/products", limit, 0)
        yield "a prev link", "pagination.links.prev", "links.prev", changed(body, "links.prev", stray)
    else:
        yield "no prev link", "pagination.links.prev", "links.prev", changed(body, "links.prev", None)
    for key in ("page", "results"):
        yield (
            f"no meta.{key}",
            "pagination.envelope.meta",
            f"meta.{key}",
            changed(body, f"meta.{key}", REMOVE),
        )


def cases() -> Iterator[Any]:
    for name, limit, offset, total, method in pages():
        query, body = list_page(limit=limit, offset=offset, total=total, method=method)
        for what, rule, where, mutated in mutations(body, limit, offset, total, method):
            yield pytest.param(query, body, mutated, rule, where, id=f"{what}: {name}")


CASES = list(cases())


def findings(query: str, body: Body) -> list[tuple[str, str]]:
    return [(f.rule, f.where) for f in Checker(RULES).check_all([list_read(query=query, body=body)])]


def test_the_table_draws_hundreds_of_members() -> None:
    assert len(CASES) > 1000


@pytest.mark.parametrize(("query", "body", "mutated", "rule", "where"), CASES)
def test_one_wrong_value_is_one_finding_under_its_own_rule(
    query: str, body: Body, mutated: Body, rule: str, where: str
) -> None:
    assert findings(query, body) == []
    assert findings(query, mutated) == [(rule, where)]


def _with(body: Body, **places: Any) -> Body:
    for place, value in places.items():
        body = changed(body, place.replace("__", "."), value)
    return body


EXAMPLES: list[tuple[str, Callable[[Body], Body], list[tuple[str, str]], str]] = [
    (
        "the total holds the page size while all, the page count and the last link agree",
        lambda body: _with(body, meta__results__total=25),
        [("pagination.results.total-method-consistent", "meta.results.total")],
        "expected 60 (exact: 25 seen so far), as meta.page.total 3, meta.results.all 60, "
        "links.last page[offset]=50 show, found 25",
    ),
    (
        "a lower bound above the actual total the short last page shows",
        lambda body: _with(
            body,
            meta__results__total=61,
            meta__results__total_method="lower_bound",
            meta__results__all=61,
        ),
        [("pagination.results.total-method-consistent", "meta.results.total")],
        "expected 60 (lower_bound: this short page is the last)",
    ),
]


@pytest.mark.parametrize(("what", "mutate", "expected", "text"), EXAMPLES, ids=[e[0] for e in EXAMPLES])
def test_the_finding_names_the_values_it_disagrees_with(
    what: str, mutate: Callable[[Body], Body], expected: list[tuple[str, str]], text: str
) -> None:
    offset = 0 if "page size" in what else 50
    query, body = list_page(limit=25, offset=offset, total=60, method="exact")
    [finding] = Checker(RULES).check_all([list_read(query=query, body=mutate(body))])
    assert [(finding.rule, finding.where)] == expected
    assert text in finding.message
