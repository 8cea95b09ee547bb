"""The envelope judge's cheap proof that a list page agrees with itself (`_consistent`) says what the
check it replaced said, and its findings are those of the full search: a table of drawn pages (stated
limits, offsets, totals, page counts, `results.all`, total methods, record counts, and each link
missing, null, naming some page in some spelling, or leading to another list), most of them near a
conformant page, checked three ways."""

from __future__ import annotations

import math
import random
from typing import Any

import pytest

from proxy.core.rules.checks import envelope_facts
from proxy.core.rules.checks.envelope_witnesses import Point, link_target, names_a_page
from proxy.core.rules.checks.page_view import LINK_NAMES, PageView, addresses_list, link_page, names_count
from proxy.core.rules.engine import Checker
from proxy.store.rule_files import load_rules
from proxy.store.shipped import shipped_dir
from tests.unit.core.exchanges import list_read, records

RULES = load_rules(shipped_dir("rules"))


def _link_agrees(name: str, link: str, point: Point, listed: str) -> bool:
    if name not in LINK_NAMES or not names_a_page(name, point):
        return True
    if not addresses_list(link, listed):
        return False
    offset, limit = link_page(link)
    return names_count(offset or "0", link_target(name, point)) and (
        limit is None or names_count(limit, point.limit)
    )


def _consistent_before(view: PageView, everything: int | None) -> bool:
    """`_consistent` as 8546348 wrote it, a call per link."""
    limit, offset, total, links = view.limit, view.offset, view.total, view.links
    if total is None or len(view.data) > limit:
        return False
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
            continue
        point = Point(limit, offset, total, follows, method)
        if envelope_facts._admissible(view, point) and all(
            _link_agrees(name, link, point, view.listed)
            for name, link in links.items()
            if isinstance(link, str)
        ):
            return True
    return False


def _page(chance: random.Random) -> tuple[str, dict[str, Any]]:
    """A list page near a conformant one: each stated value mostly the right one, else another."""
    limit = chance.randint(1, 4)
    total = chance.randint(0, 12)
    offset = chance.choice([0, 0, limit, 2 * limit, 3 * limit, 1, total])
    count = chance.choice([max(0, min(limit, total - offset))] * 4 + [0, 1, limit, limit + 1])
    pages = -(-total // limit)

    def number(right: int) -> Any:
        return right if chance.random() < 0.93 else chance.choice([0, 1, 2, 5, float(right), None, "3"])

    def one_of(right: str, *others: str) -> str:
        return right if chance.random() < 0.9 else chance.choice(others)

    def link(at: int) -> Any:
        spelled = one_of("{}", "0{}", "%s")
        offset_text = spelled.format(at) if "{}" in spelled else f"{at}{limit}"
        path = one_of("/v2/products", "/v2/products/", "/V2/products", "/v2/carts", "products", "")
        shape = chance.random()
        if shape < 0.1:
            return None
        if shape < 0.2:
            return f"http://127.0.0.1:9000{path}?page[offset]={offset_text}"
        if shape < 0.3:
            return f"http://127.0.0.1:9000{path}?page%5Blimit%5D={limit}&page%5Boffset%5D={offset_text}"
        return f"http://127.0.0.1:9000{path}?page[limit]={number(limit)}&page[offset]={offset_text}"

    more = offset + count < total
    links: dict[str, Any] = {
        "current": link(number(offset)),
        "first": link(number(0)),
        "last": link(number(max(pages - 1, 0) * limit)),
        "prev": link(number(max(offset - limit, 0))) if offset > 0 else None,
        "next": link(number(offset + limit)) if more else None,
    }
    links = {name: value for name, value in links.items() if chance.random() < 0.95}
    results: dict[str, Any] = {"total": number(total), "all": number(total)}
    if (method := chance.choice([None, "exact", "exact", "observed", "lower_bound", "guessed"])) is not None:
        results["total_method"] = method
    body = {
        "data": records(count, start=offset),
        "links": links,
        "meta": {
            "page": {
                "limit": number(limit),
                "offset": number(offset),
                "current": number(offset // limit + 1),
                "total": number(pages),
            },
            "results": results,
        },
    }
    query = one_of(f"page[limit]={limit}&page[offset]={offset}", "", f"page[limit]={limit}")
    return query, body


def _findings(page: tuple[str, dict[str, Any]]) -> list[tuple[str, str, str, str]]:
    query, body = page
    found = Checker(RULES).check_all([list_read(query=query, body=body)])
    return [(finding.rule, finding.where, finding.expected, finding.found) for finding in found]


def test_the_cheap_proof_says_what_it_said_and_finds_what_the_search_finds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    chance = random.Random(49)
    fast = envelope_facts._consistent
    answers: list[bool] = []
    for _ in range(500):
        page = _page(chance)
        seen: list[tuple[bool, bool]] = []

        def both(view: PageView, everything: int | None, seen: list[tuple[bool, bool]] = seen) -> bool:
            seen.append((fast(view, everything), _consistent_before(view, everything)))
            return seen[-1][0]

        with monkeypatch.context() as patched:
            patched.setattr(envelope_facts, "_consistent", both)
            found = _findings(page)
        assert all(now == before for now, before in seen), page
        answers.extend(now for now, _ in seen)
        with monkeypatch.context() as patched:
            patched.setattr(envelope_facts, "_consistent", lambda view, everything: False)
            assert _findings(page) == found, page
    assert answers.count(True) > 100 and answers.count(False) > 100, answers.count(True)
