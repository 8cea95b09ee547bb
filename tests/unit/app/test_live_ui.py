"""A live server's UI (`app/live_ui.py`): nothing is made at start; whichever comes first, an
exchange or a UI request, makes the view, and every exchange from the first one is shown."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest

from proxy.app.live_ui import LiveUi, LiveUiRequest, live_ui
from proxy.app.record_setup import shipped_rules_in_force
from proxy.app.traffic_view import Answered
from proxy.core.model.exchange import Body, Exchange, Request, Response
from proxy.core.redaction.policy import RedactionPolicy
from proxy.core.rules.engine import Checked
from proxy.core.ui.query import Query

IN_FORCE = shipped_rules_in_force()


def exchange(number: int) -> Exchange:
    return Exchange(Request("GET", f"/v2/n/{number}"), Response(200, (), Body("text", f"answer {number}")))


def by_checked(ui: LiveUi, number: int) -> None:
    ui.checked(Checked(number, exchange(number), []))


def by_answered(ui: LiveUi, number: int) -> None:
    ui.answered(lambda: (exchange(number), [], Answered("miss")))  # made when indexed


FEEDS: dict[str, Callable[[LiveUi, int], None]] = {"checked": by_checked, "answered": by_answered}


def paths(ui: LiveUi) -> list[str]:
    view = ui.view()
    view.flush()
    return [row["path"] for row in view.window(Query(), 0, 500)["exchanges"]]


@pytest.mark.parametrize("feed", sorted(FEEDS))
@pytest.mark.parametrize("first", ["exchange", "request"])
def test_the_view_is_made_by_what_comes_first_and_shows_every_exchange(feed: str, first: str) -> None:
    ui = live_ui(LiveUiRequest("spy", IN_FORCE, RedactionPolicy(), ["http://127.0.0.1:9"]))
    assert ui._view is None  # a server nobody looks at made no index and no thread
    try:
        if first == "request":
            assert ui.view().info()["exchanges"] == 0
        for number in range(5):
            FEEDS[feed](ui, number)
        assert ui._view is not None
        assert paths(ui) == [f"/v2/n/{number}" for number in range(5)]
    finally:
        ui.close()


@pytest.mark.parametrize("feed", sorted(FEEDS))
def test_exchanges_after_close_make_no_view(feed: str) -> None:
    ui = live_ui(LiveUiRequest("replay", IN_FORCE, RedactionPolicy()))
    ui.close()
    FEEDS[feed](ui, 0)
    assert ui._view is None


def test_exchanges_from_threads_and_a_request_make_one_view_and_lose_none() -> None:
    ui = live_ui(LiveUiRequest("record", IN_FORCE, RedactionPolicy(), cassette="rec.yaml"))
    made: list[object] = []
    start = threading.Barrier(5)

    def feed(base: int) -> None:
        start.wait()
        for number in range(base, base + 50):
            by_checked(ui, number)

    def request() -> None:
        start.wait()
        made.append(ui.view())

    threads = [threading.Thread(target=feed, args=(base,)) for base in (0, 50, 100, 150)]
    threads.append(threading.Thread(target=request))
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=30)
        assert made == [ui.view()]
        assert sorted(paths(ui)) == sorted(f"/v2/n/{number}" for number in range(200))
    finally:
        ui.close()
