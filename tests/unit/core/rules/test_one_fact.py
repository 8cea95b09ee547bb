"""One fact, one finding: one wrong value planted in a conformant list page is reported once, at its
place, under the rule that judges that place, and the rules that only follow from it stay quiet.

The table is drawn by loops: page lengths, list sizes, pages of the list (first, middle, last, past
the end), total methods, and every stated value of the envelope (each number, each link's offset and
limit, a link there or not, a key missing).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from typing import Any

import pytest

from proxy.core.model.bodies import body_from_bytes
from proxy.core.model.exchange import Exchange, Request, Response
from proxy.core.rules.engine import Checker
from proxy.core.rules.ruleset import RuleSet
from proxy.store.rule_files import load_rules
from proxy.store.shipped import shipped_dir
from tests.unit.core.exchanges import REMOVE, changed, link, list_page, list_read

# Many drawn cases over the same code: run, asserted, not traced (scripts/test's coverage
# step); other tests measure these lines.
pytestmark = pytest.mark.no_cover

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


def findings(query: str, body: Body) -> list[tuple[str, str]]:
    return [(f.rule, f.where) for f in Checker(RULES).check_all([list_read(query=query, body=body)])]


def unmet(members: Iterable[Any], holds: Callable[..., bool], at_least: int) -> list[str]:
    """The ids of a table's members (`pytest.param`s, drawn one at a time: the tables are large) that
    `holds` fails for; the table must draw `at_least` members."""
    failed, drawn = [], 0
    for member in members:
        drawn += 1
        if not holds(*member.values):
            failed.append(member.id)
    assert drawn >= at_least, drawn
    return failed


def _one_finding(query: str, body: Body, mutated: Body, rule: str, where: str) -> bool:
    return findings(query, body) == [] and findings(query, mutated) == [(rule, where)]


def test_one_wrong_value_is_one_finding_under_its_own_rule() -> None:
    assert unmet(cases(), _one_finding, at_least=1000) == []


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
        "expected 51 to 60 (lower_bound: this short page is the last), as meta.page.total 3",
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


# --- siblings: numbers written as floats, a number missing, the method, a short page, link spellings -----


NUMBERS = (
    "meta.page.limit",
    "meta.page.offset",
    "meta.page.current",
    "meta.page.total",
    "meta.results.total",
)


def _get(body: Body, place: str) -> Any:
    node: Any = body
    for step in place.split("."):
        node = node[step]
    return node


def sample_pages() -> Iterator[tuple[str, int, int, int, str | None]]:
    """Every fourth conformant page of the table: enough variety, a tenth of the time."""
    for number, page in enumerate(pages()):
        if number % 4 == 0:
            yield page


def float_cases() -> Iterator[Any]:
    for name, limit, offset, total, method in sample_pages():
        query, body = list_page(limit=limit, offset=offset, total=total, method=method)
        floated = body
        for place in NUMBERS:
            floated = changed(floated, place, float(_get(body, place)))
        for what, rule, where, mutated in mutations(body, limit, offset, total, method):
            if where in NUMBERS or what.startswith("no meta"):
                continue
            for place in NUMBERS:
                mutated = changed(mutated, place, float(_get(mutated, place)))
            yield pytest.param(query, floated, mutated, rule, where, id=f"{what}: {name}")


def test_numbers_written_as_floats_are_judged_as_their_integers() -> None:
    """`10.0` is the integer 10 to JSON Schema and to the envelope's shape rules; the arithmetic reads
    it so too, instead of silently judging nothing."""
    assert unmet(float_cases(), _one_finding, at_least=200) == []


MISSING = {
    "meta.page.current": "pagination.envelope.page",
    "meta.page.total": "pagination.envelope.page",
    "meta.results.total": "pagination.envelope.results",
    "meta.page.limit": "pagination.envelope.page",
    "meta.page.offset": "pagination.envelope.page",
}
UNUSABLE = (REMOVE, None, "ten")  # missing, null, a string: each the envelope rule's one finding


def missing_cases() -> Iterator[Any]:
    for name, limit, offset, total, method in sample_pages():
        query, body = list_page(limit=limit, offset=offset, total=total, method=method)
        for (missing, envelope_rule), unusable in itertools.product(MISSING.items(), UNUSABLE):
            for what, rule, where, mutated in mutations(body, limit, offset, total, method):
                if where == missing or what.startswith("no meta") or (what == "all" and "results" in missing):
                    continue
                if unusable is not REMOVE and (len(name + what) % 3 or "limit" in what):
                    continue  # a third of the table for null and strings (and no limit pairs)
                yield pytest.param(
                    query,
                    changed(mutated, missing, unusable),
                    [(envelope_rule, missing), (rule, where)],
                    id=f"{what}, {missing}={'removed' if unusable is REMOVE else repr(unusable)}: {name}",
                )


def test_a_missing_number_silences_only_the_rules_that_read_it() -> None:
    """A key missing is the envelope rule's one finding; a wrong value elsewhere on the page is still
    found, once, where it is."""
    assert unmet(missing_cases(), _missing_and_found, at_least=2000) == []


def _missing_and_found(query: str, mutated: Body, expected: list[tuple[str, str]]) -> bool:
    found = findings(query, mutated)
    return (
        expected[0] in found
        and (expected[1] in found or _undecidable_without(expected[0][1], expected[1]))
        and len(found) <= 2
    )


def _undecidable_without(missing: str, finding: tuple[str, str]) -> bool:
    """The facts that only the missing number could show wrong (nothing else on the page states it)."""
    rule, where = finding
    if missing == "meta.results.total":
        return where in ("meta.page.total", "links.last") or rule == "pagination.links.next"
    return False


def test_when_two_explanations_tie_every_derived_value_is_judged_against_the_stated_total() -> None:
    """With no single explanation, the page count, the last link and the next link are each judged
    against the stated total: their expectations never contradict each other."""
    query, body = list_page(limit=10, offset=30, total=40, method="exact")
    body = changed(changed(body, "meta.page.total", 5), "links.next", link("/v2/products", 10, 40))
    body = changed(body, "meta.results.all", REMOVE)  # (it would bound the total: one explanation)
    found = Checker(RULES).check_all([list_read(query=query, body=body)])
    assert sorted((f.rule, f.where, f.expected.split(",")[0]) for f in found) == [
        ("pagination.links.next", "links.next", "null (nothing follows this page)"),
        ("pagination.page.total", "meta.page.total", "4 (ceil(40 / 10))"),
    ]
    query, body = list_page(limit=10, offset=0, total=10, method="exact")
    body = changed(changed(body, "meta.page.total", 4), "links.last", link("/v2/products", 10, 30))
    body = changed(body, "meta.results.all", REMOVE)
    found = Checker(RULES).check_all([list_read(query=query, body=body)])
    assert sorted((f.rule, f.where, f.expected.split(",")[0]) for f in found) == [
        ("pagination.links.targets", "links.last", "page[offset]=0"),
        ("pagination.page.total", "meta.page.total", "1 (ceil(10 / 10))"),
    ]


def test_a_method_the_numbers_contradict_is_one_finding() -> None:
    """An `observed` page whose total, page count and last link all state an exact total: the method is
    the one value the others contradict."""
    checked = 0
    for _, limit, offset, total, _ in pages():
        if offset + limit >= total or -(-(offset + limit + 1) // limit) == -(-total // limit):
            continue  # an observed total would fit the page count and last link too: two explanations
        query, body = list_page(limit=limit, offset=offset, total=total, method="observed")
        assert findings(query, body) == [
            ("pagination.results.total-method-consistent", "meta.results.total_method")
        ], (limit, offset, total)
        checked += 1
    assert checked > 10


def test_a_short_page_while_every_number_says_records_follow_is_one_finding() -> None:
    checked = 0
    for _, limit, offset, total, method in pages():
        if method != "exact" or limit < 2 or offset + limit >= total:
            continue
        query, body = list_page(limit=limit, offset=offset, total=total, method=method)
        for kept in (1, limit - 1):
            short = changed(body, "data", body["data"][:kept])
            assert findings(query, short) == [("pagination.results.total-method-consistent", "data")]
            checked += 1
    assert checked > 10


def test_a_lower_bound_below_the_records_seen_is_still_a_lower_bound() -> None:
    """Rule 4: the actual total is at least the reported value; a low bound is uninformative, not false.
    Its page count and last link follow it (the page count is based on the total method)."""
    for limit, offset, bound in ((10, 20, 5), (25, 100, 30), (10, 9900, 5000)):
        query, body = list_page(limit=limit, offset=offset, total=offset + 3 * limit, method="lower_bound")
        pages_count = -(-bound // limit)
        body = changed(body, "meta.results.total", bound)
        body = changed(body, "meta.results.all", REMOVE)
        body = changed(body, "meta.page.total", pages_count)
        body = changed(body, "links.last", link("/v2/products", limit, max(pages_count - 1, 0) * limit))
        assert findings(query, body) == [], (limit, offset, bound)


@pytest.mark.parametrize("zeros", [1, 2, 5])
def test_a_link_number_with_leading_zeros_names_the_same_page(zeros: int) -> None:
    for _, limit, offset, total, method in sample_pages():
        query, body = list_page(limit=limit, offset=offset, total=total, method=method)
        padded = body
        for name, value in body["links"].items():
            if isinstance(value, str):
                value = value.replace("page[offset]=", "page[offset]=" + "0" * zeros)
                padded = changed(
                    padded, f"links.{name}", value.replace("page[limit]=", "page[limit]=" + "0" * zeros)
                )
        assert findings(query, padded) == [], padded["links"]


SPELLINGS: list[Callable[[int], str]] = [
    lambda number: f"{number}E0",
    lambda number: f"{number}.00",
    lambda number: f"{number * 10}e-1",
    lambda number: f"{number}.0E+0",
]


def spelled(body: Body, place: str, spelling: Callable[[int], str]) -> Exchange:
    """The page as JSON text, with the number at `place` written another way (as a client or service
    may: JSON allows exponents and fractions of zero)."""
    marker = 987654321
    text = json.dumps(changed(body, place, marker)).replace(str(marker), spelling(_get(body, place)))
    headers = (("Content-Type", "application/json"),)
    return Exchange(
        Request("GET", "/v2/products"), Response(200, headers, body_from_bytes(text.encode(), headers))
    )


def spelling_cases() -> Iterator[Any]:
    for name, limit, offset, total, method in sample_pages():
        query, body = list_page(limit=limit, offset=offset, total=total, method=method)
        for place, (spelling_index, spelling) in itertools.product(NUMBERS, enumerate(SPELLINGS)):
            yield pytest.param(query, body, place, spelling, id=f"{place} spelled {spelling_index}: {name}")


def test_a_number_spelled_another_way_is_the_same_number() -> None:
    """`5E0`, `5.00` and `50e-1` are 5: read so, never skipped (a wrong one is still found)."""
    assert unmet(spelling_cases(), _spelled_alike, at_least=500) == []


def _spelled_alike(query: str, body: Body, place: str, spelling: Callable[[int], str]) -> bool:
    conformant = replace(spelled(body, place, spelling), request=replace(list_read(query=query).request))
    wrong = changed(
        body, place, _get(body, place) + 2 if place != "meta.page.limit" else _get(body, place) + 5
    )
    broken = replace(spelled(wrong, place, spelling), request=replace(list_read(query=query).request))
    return Checker(RULES).check_all([conformant]) == [] and len(Checker(RULES).check_all([broken])) == 1


@pytest.mark.parametrize("value", [-10, -1, 0])
def test_an_unusable_limit_or_offset_is_its_own_rules_one_finding(value: int) -> None:
    """A negative offset, or a limit below 1, is reported by the rule of that field; the rest of the
    page is judged with the offset or limit the request and the links state."""
    query, body = list_page(limit=10, offset=10, total=35)
    if value < 0:
        assert findings(query, changed(body, "meta.page.offset", value)) == [
            ("pagination.page.offset-requested", "meta.page.offset")
        ]
    assert findings(query, changed(body, "meta.page.limit", value)) == [
        ("pagination.page.limit-requested", "meta.page.limit")
    ]


def test_a_page_holding_more_records_than_its_limit_is_that_one_fact() -> None:
    """Records past the limit are data-within-limit's finding alone: the total, the page count and the
    links, which agree among themselves, are not blamed for them."""
    checked = 0
    for _, limit, offset, total, method in sample_pages():
        query, body = list_page(limit=limit, offset=offset, total=total, method=method)
        if not body["data"]:
            continue
        for extra in (1, limit, 3 * limit + 7, 500):
            record = body["data"][-1]
            overfull = changed(body, "data", body["data"] + [record] * (limit - len(body["data"]) + extra))
            assert findings(query, overfull) == [("pagination.page.data-within-limit", "data")], (
                limit,
                extra,
            )
            checked += 1
    assert checked > 40


def address_cases() -> Iterator[Any]:
    for name, limit, offset, total, method in sample_pages():
        query, body = list_page(limit=limit, offset=offset, total=total, method=method)
        for link_name, value in body["links"].items():
            if not isinstance(value, str):
                continue
            tail = value.split("/v2/products", 1)[1]
            for elsewhere in (
                "https://useast.api.elasticpath.com/v2/brands",
                "/v2/products/extra",
                "mailto:x@y",
            ):
                yield pytest.param(
                    query,
                    changed(body, f"links.{link_name}", elsewhere + tail),
                    [("pagination.links.targets", f"links.{link_name}")],
                    id=f"{link_name} to {elsewhere}: {name}",
                )
            for same in (
                "https://another.host/v2/products",
                "/products",
                "/api/v2/products/",
                "//x/V2//products",
            ):
                yield pytest.param(
                    query,
                    changed(body, f"links.{link_name}", same + tail),
                    [],
                    id=f"{link_name} as {same}: {name}",
                )


def test_a_link_to_another_list_is_one_finding_and_another_spelling_of_this_one_none() -> None:
    """A link is the address of a page of this list (any host, with or without the version prefix or a
    base path, any spelling the service routes alike); one to another list, or no http address at all,
    is wrong by where it leads, and its page numbers are not judged besides."""
    assert unmet(address_cases(), lambda query, body, expected: findings(query, body) == expected, 700) == []
