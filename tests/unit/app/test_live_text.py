"""A live view (`record`, `spy`, `replay`) tokenizes its bodies' text for the text filter only once a
page first asks for one: a page that never filters by text never pays for it, and one that does gets
the exact answer (every exchange, before and after it asked)."""

from __future__ import annotations

import pytest

from proxy.app import live_traffic
from proxy.app.record_setup import shipped_rules_in_force
from proxy.core.model.exchange import Body, Exchange, Request, Response
from proxy.core.rules.engine import Checked
from proxy.core.ui.query import Query
from proxy.errors import StillIndexing
from proxy.store import traffic_index
from tests.unit.store.test_traffic_text_asked import tokenized

IN_FORCE = shipped_rules_in_force()
WORDS = ("alpha", "beta", "gamma")


def exchange(number: int) -> Exchange:
    word = WORDS[number % len(WORDS)]
    return Exchange(Request("GET", f"/v2/n/{number}"), Response(200, (), Body("text", f"{word} {number}")))


@pytest.mark.parametrize("at_once", [True, False])
def test_a_live_view_tokenizes_text_once_a_text_filter_asks(
    at_once: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(traffic_index, "LIVE_TEXT_CHUNK", 1000 if at_once else 10)
    view = live_traffic.live_view("record", None, IN_FORCE, cassette="r.yaml")
    assert view.indexer is not None
    try:
        for number in range(60):
            view.indexer.checked(Checked(number, exchange(number), []))
        view.flush()
        assert view.window(Query(method="GET"), 0, 500, wait=True)["total"] == 60
        assert tokenized(view._index) == 0  # no text filter yet: no text tokenized
        if not at_once:
            with pytest.raises(StillIndexing, match="still being indexed"):
                view.window(Query(text="beta"), 0, 500)
            assert view._index.text_wait(30)
        for number in range(60, 90):  # after the ask: straight into the text index
            view.indexer.checked(Checked(number, exchange(number), []))
        view.flush()
        for word in WORDS:
            found = view.window(Query(text=word), 0, 500, wait=True)
            expected = [f"/v2/n/{number}" for number in range(90) if WORDS[number % 3] == word]
            assert [row["path"] for row in found["exchanges"]] == expected
            assert view.counts(Query(text=word))["total"] == len(expected)
        assert tokenized(view._index) == 90
    finally:
        view.close()
