"""One documented violation at a time, planted in the unseen traffic, is caught by its own rule, once:
the mutation adds exactly the findings of that one fact (no rule that only follows from it speaks)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from proxy.core.model.exchange import Body, Exchange
from proxy.core.rules.engine import Checker
from proxy.store.rule_files import load_rules
from proxy.store.shipped import shipped_dir
from tests.integration.corpus.unseen import CORPUS, MOLTIN
from tests.unit.core.exchanges import REMOVE, changed

RULES = load_rules(shipped_dir("rules"))
Mutation = Callable[[Exchange], Exchange]
FILES = f"{MOLTIN}/v2/files?page[offset]={{}}&page[limit]=100&filter="
BRANDS = f"{MOLTIN}/v2/brands?page[limit]=100&page[offset]={{}}"


def answer_with(*changes: tuple[str, Any]) -> Mutation:
    def mutate(exchange: Exchange) -> Exchange:
        body = exchange.response.body.value
        for place, value in changes:
            body = changed(body, place, value)
        return replace(exchange, response=replace(exchange.response, body=Body("json", body)))

    return mutate


def query(text: str) -> Mutation:
    def mutate(exchange: Exchange) -> Exchange:
        return replace(exchange, request=replace(exchange.request, query=text))

    return mutate


def headers(kept: tuple[tuple[str, str], ...]) -> Mutation:
    def mutate(exchange: Exchange) -> Exchange:
        return replace(exchange, request=replace(exchange.request, headers=kept))

    return mutate


def one(name: str) -> Exchange:
    [only] = CORPUS[name].exchanges
    return only


# the bases, each clean: a recorded page, or a recorded page with its own violations put right
FILES_PAGE_2 = one("RB files, page[offset]=100: page 2")
BRANDS_REST = answer_with(("meta.results.total", 49), ("links.prev", BRANDS.format(0)), ("links.next", None))(
    one("RB brands, page[offset]=20 alone: the rest of the list, its total the records left")
)
BY_NAME = answer_with(("links.prev", None), ("links.next", None))(one("RB brands, sort=name"))
BASES = {"files page 2": FILES_PAGE_2, "brands from offset 20": BRANDS_REST, "brands by name": BY_NAME}


def bare_array(exchange: Exchange) -> Exchange:
    """The page's records without the envelope around them."""
    body = Body("json", exchange.response.body.value["data"])
    return replace(exchange, response=replace(exchange.response, body=body))


def swapped(first: int, second: int) -> Mutation:
    def mutate(exchange: Exchange) -> Exchange:
        data = list(exchange.response.body.value["data"])
        data[first], data[second] = data[second], data[first]
        return answer_with(("data", data))(exchange)

    return mutate


TOTAL = "pagination.results.total-method-consistent"
F, B, S = "files page 2", "brands from offset 20", "brands by name"
MUTATIONS: list[tuple[str, str, Mutation, list[tuple[str, str]]]] = [
    (F, "current page 3", answer_with(("meta.page.current", 3)), [("pagination.page.current", "meta.page.current")]),
    (F, "page count 8", answer_with(("meta.page.total", 8)), [("pagination.page.total", "meta.page.total")]),
    (F, "offset 110", answer_with(("meta.page.offset", 110)), [("pagination.page.offset-requested", "meta.page.offset")]),
    (F, "total 150 (page count and last link say 823)", answer_with(("meta.results.total", 150)), [(TOTAL, "meta.results.total")]),
    (F, "total 1000 (page count and last link say 823)", answer_with(("meta.results.total", 1000)), [(TOTAL, "meta.results.total")]),
    (F, "no prev on page 2", answer_with(("links.prev", None)), [("pagination.links.prev", "links.prev")]),
    (F, "no next before the end", answer_with(("links.next", None)), [("pagination.links.next", "links.next")]),
    (F, "next to offset 300", answer_with(("links.next", FILES.format(300))), [("pagination.links.targets", "links.next")]),
    (F, "last to offset 700", answer_with(("links.last", FILES.format(700))), [("pagination.links.targets", "links.last")]),
    (F, "prev to offset 50", answer_with(("links.prev", FILES.format(50))), [("pagination.links.targets", "links.prev")]),
    (F, "no first link", answer_with(("links.first", REMOVE)), [("pagination.envelope.links", "links.first")]),
    (F, "no prev key", answer_with(("links.prev", REMOVE)), [("pagination.envelope.links", "links.prev")]),
    (F, "no next key", answer_with(("links.next", REMOVE)), [("pagination.envelope.links", "links.next")]),
    (F, "total as a string", answer_with(("meta.results.total", "823")), [("pagination.envelope.results", "meta.results.total")]),
    (F, "current page as a string", answer_with(("meta.page.current", "2")), [("pagination.envelope.page", "meta.page.current")]),
    (F, "no meta.results", answer_with(("meta.results", REMOVE)), [("pagination.envelope.meta", "meta.results")]),
    (F, "data an object", answer_with(("data", {})), [("pagination.envelope.data", "data")]),
    (F, "a bare array", bare_array, [("pagination.envelope.present", "$")]),
    (F, "all 800 below total 823", answer_with(("meta.results.all", 800)), [("pagination.results.all-not-below-total", "meta.results.all")]),
    (F, "all as a string", answer_with(("meta.results.all", "823")), [("pagination.results.all", "meta.results.all")]),
    (F, "total method approximate", answer_with(("meta.results.total_method", "approximate")), [("pagination.total-method.value", "meta.results.total_method")]),
    (F, "limit 150", answer_with(("meta.page.limit", 150)), [("pagination.page.limit-max", "meta.page.limit")]),
    (F, "page[limit]=150 asked, 100 given", query("page%5Boffset%5D=100&page%5Blimit%5D=150"), [("pagination.request.limit-max", "query page[limit]")]),
    (F, "page[offset]=abc asked", query("page%5Boffset%5D=abc"), [("pagination.request.integers", "query page[offset]")]),
    (F, "page[total_method]=fast asked", query("page%5Boffset%5D=100&page%5Btotal_method%5D=fast"), [("pagination.request.total-method-value", "query page[total_method]")]),
    (F, "exact asked, lower_bound used", lambda e: answer_with(("meta.results.total_method", "lower_bound"))(query("page%5Boffset%5D=100&page%5Btotal_method%5D=exact")(e)), [("pagination.total-method.differs", "meta.results.total_method")]),
    (F, "no bearer token", headers(()), [("auth.bearer.accepted-without", "headers.Authorization"), ("auth.bearer.missing", "headers.Authorization")]),
    (B, "lower_bound 50 on the short last page of 49", answer_with(("meta.results.total_method", "lower_bound"), ("meta.results.total", 50)), [(TOTAL, "meta.results.total")]),
    (
        B,
        "lower_bound 50 on the short last page of 49, no results.all",
        answer_with(("meta.results.total_method", "lower_bound"), ("meta.results.total", 50), ("meta.results.all", REMOVE)),
        [(TOTAL, "meta.results.total")],
    ),
    (B, "exact 48 on the short last page of 49", answer_with(("meta.results.total_method", "exact"), ("meta.results.total", 48)), [(TOTAL, "meta.results.total")]),
    (B, "next on the short last page", answer_with(("links.next", BRANDS.format(120))), [("pagination.links.next", "links.next")]),
    (B, "prev null after offset 20", answer_with(("links.prev", None)), [("pagination.links.prev", "links.prev")]),
    (S, "two records out of name order", swapped(0, 1), [("pagination.sort.honoured", "data[1]")]),
]  # fmt: skip


def findings(exchange: Exchange) -> list[tuple[str, str]]:
    return sorted((finding.rule, finding.where) for finding in Checker(RULES).check_all([exchange]))


def test_the_bases_are_clean() -> None:
    assert {name: findings(base) for name, base in BASES.items()} == {name: [] for name in BASES}


@pytest.mark.parametrize(
    ("base", "what", "mutate", "added"),
    MUTATIONS,
    ids=[f"{added[0][0]}: {what}" for _, what, _, added in MUTATIONS],
)
def test_a_planted_violation_is_caught_once_by_its_rule(
    base: str, what: str, mutate: Mutation, added: list[tuple[str, str]]
) -> None:
    assert findings(mutate(BASES[base])) == sorted(added), what
