"""A link that only moved origin is no difference; a link to anywhere else still is. Generated: each
origin change against each place a link can be."""

from __future__ import annotations

from typing import Any

import pytest

from proxy.core.drift.compare import compare_exchanges
from proxy.core.drift.origins import Origins
from proxy.core.drift.pairing import keep_unchanged
from proxy.core.model.exchange import Body, Exchange, Request, Response

RECORDED = "http://127.0.0.1:4010"
MOVES = {
    "another port": "http://127.0.0.1:5020",
    "another host": "https://staging.example.test",
    "default port spelled": "https://staging.example.test:443",
    "a base path": "https://gateway.example.test/commerce",
}
SHAPES = {
    "json.links.self": lambda origin: ("json", {"links": {"self": f"{origin}/v2/brands?page[offset]=0"}}, ()),
    "a record's link": lambda origin: ("json", {"data": [{"links": {"self": f"{origin}/v2/brands/1"}}]}, ()),
    "the origin alone": lambda origin: ("json", {"links": {"home": origin}}, ()),
    "a text body": lambda origin: ("text", f"see <{origin}/v2/brands> for more", ()),
}


def exchange(shape: str, origin: str) -> Exchange:
    kind, value, headers = SHAPES[shape](origin)
    response = Response(200, (("Content-Type", "application/json"), *headers), Body(kind, value))
    return Exchange(Request("GET", "/v2/brands"), response, "2026-01-01T00:00:00Z")


@pytest.mark.parametrize("move", MOVES)
@pytest.mark.parametrize("shape", SHAPES)
def test_a_link_that_only_moved_origin_is_no_difference(move: str, shape: str) -> None:
    recorded, live = exchange(shape, RECORDED), exchange(shape, MOVES[move])
    assert compare_exchanges(recorded, live) != []  # without the origins: a difference
    assert compare_exchanges(recorded, live, Origins(RECORDED, MOVES[move])) == []
    assert keep_unchanged([recorded], [live], origins=Origins(RECORDED, MOVES[move])) == (recorded,)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize(
    "elsewhere", ["https://cdn.example.test", "http://127.0.0.1:4011", "http://127.0.0.1:50201"]
)
def test_a_link_to_another_origin_than_the_live_one_is_still_a_difference(shape: str, elsewhere: str) -> None:
    recorded, live = exchange(shape, RECORDED), exchange(shape, elsewhere)
    assert compare_exchanges(recorded, live, Origins(RECORDED, MOVES["another port"])) != []


def test_a_new_exchange_of_a_re_recording_is_written_at_the_earlier_origin() -> None:
    recorded = exchange("json.links.self", RECORDED)
    changed: Any = exchange("a record's link", MOVES["another host"])
    kept = keep_unchanged([recorded], [changed], origins=Origins(RECORDED, MOVES["another host"]))
    assert kept[0].response.body.value == {"data": [{"links": {"self": f"{RECORDED}/v2/brands/1"}}]}
