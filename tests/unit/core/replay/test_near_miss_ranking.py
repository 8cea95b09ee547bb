"""Near misses are ranked by meaning: a recording of another path is farther than one of the same path
with another method, which is farther than any number of parameter, header or body differences; ties
keep recording order. Every order of recordings that each differ from the request in one kind of field
(a table over the kinds), as replay's 404 `meta.closest` and the UI's `answered.detail` name them.
Failed before: for GET /v2/at1, recordings of other paths were named and POST /v2/at1 never."""

from __future__ import annotations

import itertools
import random

from proxy.core.cassette.document import Cassette
from proxy.core.model.exchange import Request
from proxy.core.redaction.redact import RedactionPolicy
from proxy.core.replay.book import ReplayBook
from proxy.core.replay.matching import MatchPolicy
from tests.conftest import json_body, make_exchange, make_request

POLICY = MatchPolicy(headers=("X-Tenant",))
ASKED = make_request("POST", "/v2/at1", "a=1&b=1", (("X-Tenant", "t"),), json_body({"x": 1, "y": 1}))


def _with(**changes: object) -> Request:
    fields = {"method": "POST", "path": "/v2/at1", "query": "a=1&b=1", "headers": (("X-Tenant", "t"),)}
    body = changes.pop("body", {"x": 1, "y": 1})
    fields.update(changes)
    return make_request(body=json_body(body), **fields)  # type: ignore[arg-type]


# kind -> (its rank by meaning, a recording differing from ASKED in that kind only)
KINDS: dict[str, tuple[int, Request]] = {
    "query value": (0, _with(query="a=2&b=1")),
    "query name": (0, _with(query="a=1")),
    "body leaf": (0, _with(body={"x": 2, "y": 1})),
    "header": (0, _with(headers=(("X-Tenant", "u"),))),
    "two parameters and a body leaf": (1, _with(query="a=2&b=2", body={"x": 2, "y": 1})),
    "method": (2, _with(method="PUT")),
    "path": (3, _with(path="/v2/at2")),
    "path and method": (4, _with(method="GET", path="/v2/other")),
}


def _ranked(order: tuple[str, ...]) -> list[int]:
    book = ReplayBook.build(
        [("c.yaml", Cassette(tuple(make_exchange(KINDS[kind][1]) for kind in order), None))],
        POLICY,
        RedactionPolicy(),
    )
    return [near.recording.index for near in book.closest(ASKED, limit=len(order))]


def _orders() -> list[tuple[str, ...]]:
    kinds = list(KINDS)
    picked = list(itertools.permutations(["query value", "body leaf", "method", "path", "header"]))
    chooser = random.Random(38)
    picked += [tuple(chooser.sample(kinds, len(kinds))) for _ in range(120)]
    return picked


def test_every_order_of_one_field_differences_is_ranked_by_meaning_then_index() -> None:
    wrong = []
    orders = _orders()
    for order in orders:
        expected = sorted(range(len(order)), key=lambda index: (KINDS[order[index]][0], index))
        found = _ranked(order)
        if found != expected:
            wrong.append((order, [order[index] for index in found]))
    assert len(orders) == 240 and not wrong, wrong[:3]


def test_the_same_path_with_another_method_is_named_before_other_paths_however_many() -> None:
    """The issue's case: GET /v2/at1 against a cassette whose #13 is POST /v2/at1."""
    others = [make_exchange(make_request("GET", f"/v2/other{number}")) for number in range(13)]
    recordings = (*others, make_exchange(make_request("POST", "/v2/at1")))
    book = ReplayBook.build([("c.yaml", Cassette(recordings, None))], MatchPolicy(), RedactionPolicy())
    miss = book.missed(make_request("GET", "/v2/at1"), None)
    assert [near.recording.index for near in miss.near] == [13, 0, 1]
    assert [difference.where for difference in miss.near[0].differences] == ["method"]
