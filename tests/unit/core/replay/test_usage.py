"""The usage report's memory stays bounded however many distinct requests miss."""

from __future__ import annotations

import pytest

from proxy.core.cassette.document import Cassette
from proxy.core.redaction.redact import RedactionPolicy
from proxy.core.replay import book as replay_state
from proxy.core.replay.book import ReplayBook
from proxy.core.replay.matching import MatchPolicy
from proxy.core.replay.usage import usage_report, usage_summary
from tests.conftest import make_exchange, make_request


def test_misses_past_the_listed_limit_are_counted_not_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(replay_state, "MISSES_LISTED", 2)
    book = ReplayBook.build([("c.yaml", Cassette((make_exchange(),)))], MatchPolicy(), RedactionPolicy())
    for path in ("/a", "/b", "/a", "/c", "/d"):
        book.respond(make_request(path=path), "2026-01-01T00:00:00.000000Z")
    report = usage_report([book])
    assert [(miss["target"], miss["count"]) for miss in report["misses"]] == [("/a", 2), ("/b", 1)]
    assert report["unlisted_misses"] == 2
    assert report["requests"] == {"recorded": 0, "simulated": 0, "missed": 5}
    assert usage_summary(report)[:2] == [
        "usage: 0 of 1 recorded exchanges used; 0 requests answered from recordings, 0 simulated, 5 missed",
        "never used in c.yaml: #0 GET /v2/products",
    ]
