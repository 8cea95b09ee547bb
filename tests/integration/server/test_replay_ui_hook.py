"""Replay hands its UI each answer as the pieces it served; the exchange shown is made off the serving
path, by the view's indexing thread. Before, the serving path built an `Exchange` (its headers and body
converted back from the wire) for every answer while a UI was on."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest

from proxy.app.live_ui import LiveUiRequest, live_ui
from proxy.app.record_setup import shipped_rules_in_force
from proxy.app.replay_setup import ReplayOptions
from proxy.core.cassette.document import Cassette
from proxy.core.redaction.redact import RedactionPolicy
from proxy.core.replay.book import ReplayBook
from proxy.core.replay.faults import Fault
from proxy.core.replay.matching import MatchPolicy
from proxy.core.rules.engine import Checker, LiveChecker
from proxy.core.ui.query import Query
from proxy.server import replay as replay_module
from proxy.server.replay import Replayer
from proxy.server.wire import Incoming, Outgoing
from tests.conftest import json_body, make_exchange, make_request

IN_FORCE = shipped_rules_in_force()
RECORDED = ["/v2/products", "/v2/brands", "/v2/hierarchies"]
# (request path, the replay's options, how the UI says it was answered)
CASES = [
    *[(path, ReplayOptions(), "recording") for path in RECORDED],
    ("/v2/not-recorded", ReplayOptions(), "miss"),
    ("/v2/products", ReplayOptions(faults=(Fault.parse("500:1"),)), "fault"),
]


def replayer(options: ReplayOptions, checking: bool) -> Replayer:
    exchanges = [make_exchange(make_request(path=path), body=json_body({"data": []})) for path in RECORDED]
    cassette = Cassette(tuple(exchanges), "https://useast.api.example.com")
    book = ReplayBook.build([("c.yaml", cassette)], MatchPolicy(), RedactionPolicy())
    live = LiveChecker(Checker(IN_FORCE.ruleset, IN_FORCE.project.config)) if checking else None
    return Replayer(book, options, live)


@pytest.mark.parametrize("checking", [False, True])
@pytest.mark.parametrize(("path", "options", "by"), CASES)
def test_the_serving_path_makes_no_exchange_for_the_ui(
    monkeypatch: pytest.MonkeyPatch, path: str, options: ReplayOptions, by: str, checking: bool
) -> None:
    made_on: list[str] = []
    real: Callable[..., Any] = replay_module.core_response

    def counted(answer: Outgoing) -> Any:
        made_on.append(threading.current_thread().name)
        return real(answer)

    monkeypatch.setattr(replay_module, "core_response", counted)
    server = replayer(options, checking)
    ui = live_ui(LiveUiRequest("replay", IN_FORCE, RedactionPolicy(), ["c.yaml"]))
    server.shown = ui.answered
    serving = threading.current_thread().name
    try:
        for _ in range(3):
            answer = server.handle(Incoming("GET", path, (("Host", "127.0.0.1:9"),), b""))
            assert isinstance(answer, Outgoing)
        # A checked recorded answer is built here for its check (as without a UI), never for the UI.
        checked_here = checking and by == "recording"
        assert made_on.count(serving) == (3 if checked_here else 0), made_on
        assert ui._view is None  # nobody asked for the UI: the answers wait in its backlog, unmade
        view = ui.view()
        assert view is not None and ui.handed_over(timeout=30)
        view.flush()
        rows = view.window(Query(), 0, 10)["exchanges"]
        assert [(row["path"], row["answered"]["by"]) for row in rows] == [(path, by)] * 3
    finally:
        ui.close()


@pytest.mark.parametrize("burst", [1, 63, 64, 65, 300])
def test_a_burst_of_answers_holds_a_bounded_number_and_loses_none(burst: int) -> None:
    """Through replay's hook too, at most MOST_PENDING answers wait for the index (the indexing thread
    stopped here, so it takes none); every one is indexed, in the order it was served."""
    from proxy.app.live_traffic import MOST_PENDING

    server = replayer(ReplayOptions(), checking=False)
    ui = live_ui(LiveUiRequest("replay", IN_FORCE, RedactionPolicy(), ["c.yaml"]))
    server.shown = ui.answered
    view = ui.view()
    assert view is not None
    try:
        indexer = view.indexer
        assert indexer is not None
        indexer.stop()  # its thread ends; the serving path's own flushes go on
        held = []
        for number in range(burst):
            server.handle(Incoming("GET", f"/v2/n/{number}", (("Host", "127.0.0.1:9"),), b""))
            held.append(len(indexer._pending))
        view.flush()
        window = view.window(Query(), 0, 500)
        assert max(held) < MOST_PENDING and window["total"] == burst
        assert [row["path"] for row in window["exchanges"]] == [f"/v2/n/{n}" for n in range(burst)]
    finally:
        ui.close()
