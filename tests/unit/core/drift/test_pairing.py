"""Pairing two recordings of a session: which exchange of one is which of the other."""

from __future__ import annotations

from proxy.core.drift.pairing import keep_unchanged
from proxy.core.model.exchange import Exchange
from proxy.core.replay.matching import MatchPolicy
from tests.conftest import json_body, make_exchange, make_request


def sent(request_id: str, recorded_at: str) -> Exchange:
    body = json_body({"data": {"name": "Gold", "meta": {"request_id": request_id}}})
    exchange = make_exchange(make_request("PUT", path="/v2/things/1", body=body), body=json_body({"ok": 1}))
    return Exchange(exchange.request, exchange.response, recorded_at, 12.0)


def test_re_recording_keeps_an_entry_whose_request_differs_only_in_an_ignored_json_path() -> None:
    before = (sent("r-1", "2026-01-01T00:00:00.000000Z"),)
    after = (sent("r-2", "2026-11-24T00:00:00.000000Z"),)
    assert keep_unchanged(before, after, MatchPolicy.parse(None, (), ["data.meta.request_id"])) == before
    assert keep_unchanged(before, after, MatchPolicy()) == after  # unpaired: the new one is written
