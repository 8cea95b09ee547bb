"""A live server's UI (`app/live_ui.py`): nothing is made at start; the first UI request makes the view;
the exchanges before it wait (replay's answers unmade, a recording's without parsed bodies), the latest
`ui_backlog.BACKLOG` of them, and the view is handed them in order."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from proxy.app.live_traffic import LiveView, Made
from proxy.app.live_ui import LiveUi, LiveUiRequest, live_ui
from proxy.app.record_setup import shipped_rules_in_force
from proxy.app.traffic_view import Answered
from proxy.app.ui_backlog import HANDED_AT_ONCE, Backlog
from proxy.core.cassette.journal_line import journal_line
from proxy.core.model.bodies import body_from_bytes
from proxy.core.model.exchange import Body, Exchange, Request, Response
from proxy.core.redaction.policy import RedactionPolicy
from proxy.core.rules.engine import Checked
from proxy.core.rules.findings import Finding
from proxy.core.ui.query import Query

IN_FORCE = shipped_rules_in_force()


def exchange(number: int) -> Exchange:
    return Exchange(Request("GET", f"/v2/n/{number}"), Response(200, (), Body("text", f"answer {number}")))


def by_checked(ui: LiveUi, number: int) -> None:
    ui.checked(Checked(number, exchange(number), []))


def by_journal_line(ui: LiveUi, number: int) -> None:
    """As `record` tells it: with the exchange's journal line, which is what waits."""
    ui.checked(Checked(number, exchange(number), [], journal_line(number, exchange(number))))


def by_answered(ui: LiveUi, number: int) -> None:
    ui.answered(lambda: (exchange(number), [], Answered("miss")))  # made when indexed


FEEDS: dict[str, Callable[[LiveUi, int], None]] = {
    "checked": by_checked,
    "journaled": by_journal_line,
    "answered": by_answered,
}


def opened(ui: LiveUi) -> LiveView:
    """The view, as a UI request of a live server gets it."""
    view = ui.view()
    assert view is not None
    return view


def paths(ui: LiveUi) -> list[str]:
    view = opened(ui)
    assert ui.handed_over(timeout=30)
    view.flush()
    return [row["path"] for row in view.window(Query(), 0, 500)["exchanges"]]


@pytest.mark.parametrize("feed", sorted(FEEDS))
@pytest.mark.parametrize("first", ["exchange", "request"])
def test_the_view_is_made_by_the_first_request_and_shows_every_exchange(feed: str, first: str) -> None:
    """Only a UI request makes the view: a recording's exchanges and replay's answers wait for it."""
    ui = live_ui(LiveUiRequest("spy", IN_FORCE, RedactionPolicy(), ["http://127.0.0.1:9"]))
    assert ui._view is None  # a server nobody looks at made no index and no thread
    try:
        if first == "request":
            assert opened(ui).info()["exchanges"] == 0
        for number in range(5):
            FEEDS[feed](ui, number)
        assert (ui._view is not None) == (first == "request")
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
        made.append(opened(ui))

    threads = [threading.Thread(target=feed, args=(base,)) for base in (0, 50, 100, 150)]
    threads.append(threading.Thread(target=request))
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=30)
        assert made == [opened(ui)]
        assert sorted(paths(ui)) == sorted(f"/v2/n/{number}" for number in range(200))
    finally:
        ui.close()


def _late_request(ui: LiveUi, number: int) -> None:
    """A UI request as a live server's routes take it (`RoutesOnDemand`): a 503 once closed."""
    from proxy.cli.serving import RoutesOnDemand
    from proxy.server.admin import UI_HEADERS
    from proxy.server.wire import Incoming, Outgoing

    answer = RoutesOnDemand(ui).answer(
        Incoming("GET", "/_proxy/ui/api/info", (), b""), "/_proxy/ui/api/info", ""
    )
    assert isinstance(answer, Outgoing) and answer.status == 503
    assert set(UI_HEADERS.items()) <= set(answer.headers)


LATE = {**FEEDS, "ui request": _late_request}


@pytest.mark.parametrize("late", sorted(LATE))
@pytest.mark.parametrize("opened_before", [False, True])
@pytest.mark.parametrize("mode", ["record", "spy", "replay"])
def test_after_close_a_late_call_makes_no_thread_and_indexes_nothing(
    mode: str, opened_before: bool, late: str
) -> None:
    """A late exchange (a recording's follower, replay's hook) is dropped and a late UI request gets a
    503, whether the view was made before the close or never: no view, no index, no thread at shutdown."""
    ui = live_ui(LiveUiRequest(mode, IN_FORCE, RedactionPolicy(), cassette="rec.yaml"))
    if opened_before:
        view = opened(ui)
        by_checked(ui, 0)
        view.flush()
    before = set(threading.enumerate())
    ui.close()
    for number in range(1, 4):
        LATE[late](ui, number)
    assert ui.view() is None
    assert set(threading.enumerate()) - before == set()
    if opened_before:
        assert ui._view is view and view.indexer is None  # closed: nothing can reach its index
    else:
        assert ui._view is None


MODE_OF = {
    "checked": "record",
    "journaled": "record",
    "answered": "replay",
}  # the command each feed comes from


@pytest.mark.parametrize("feed", sorted(FEEDS))
@pytest.mark.parametrize(
    ("most", "served"),
    [(most, served) for most in (1, 3, 64, 65) for served in (0, 1, most, most + 1, 3 * most + 2)],
)
def test_exchanges_before_a_page_asks_make_nothing_and_the_latest_are_shown(
    most: int, served: int, feed: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Before the first UI request an exchange is only held (no view, no index, no thread; replay's
    answer not even made); the page then shows the last `most` of them, in order, and every one after."""
    ui = live_ui(LiveUiRequest(MODE_OF[feed], IN_FORCE, RedactionPolicy(), ["c.yaml"]))
    ui._backlog = Backlog(most)
    made: list[int] = []

    def answer(number: int) -> None:
        def make() -> tuple[Exchange, list[Finding], Answered]:
            made.append(number)
            return exchange(number), [], Answered("miss")

        ui.answered(make)

    feeding = answer if feed == "answered" else lambda number: FEEDS[feed](ui, number)
    before = set(threading.enumerate())
    try:
        for number in range(served):
            feeding(number)
        assert ui._view is None and made == [] and set(threading.enumerate()) == before
        with caplog.at_level(logging.INFO, logger="proxy.app.ui_backlog"):
            assert paths(ui) == [f"/v2/n/{n}" for n in range(max(0, served - most), served)]
        left_out = max(0, served - most)
        assert opened(ui).info()["left_out"] == left_out
        said = [record.getMessage() for record in caplog.records if "leaves out" in record.getMessage()]
        assert said == (
            [f"the UI leaves out the first {left_out} exchanges, of the {served} before it was first opened"]
            if left_out
            else []
        )
        feeding(served)  # after the hand-over: straight to the view
        assert paths(ui)[-1] == f"/v2/n/{served}"
    finally:
        ui.close()
    assert set(threading.enumerate()) - before == set()


@pytest.mark.parametrize("feed", sorted(FEEDS))
def test_exchanges_coming_while_the_backlog_is_handed_over_keep_their_order(feed: str) -> None:
    ui = live_ui(LiveUiRequest(MODE_OF[feed], IN_FORCE, RedactionPolicy(), ["c.yaml"]))
    try:
        for number in range(300):
            FEEDS[feed](ui, number)
        opener = threading.Thread(target=ui.view)
        opener.start()
        for number in range(300, 600):
            FEEDS[feed](ui, number)
        opener.join(timeout=30)
        assert paths(ui) == [f"/v2/n/{number}" for number in range(500)]
        view = opened(ui)
        assert view.window(Query(), 500, 500)["total"] == 600
    finally:
        ui.close()


def test_a_close_drops_what_the_backlog_holds_and_ends_its_thread() -> None:
    ui = live_ui(LiveUiRequest("replay", IN_FORCE, RedactionPolicy(), ["c.yaml"]))
    before = set(threading.enumerate())
    for number in range(2000):
        by_answered(ui, number)
    opened(ui)
    ui.close()
    assert ui._backlog.hold(lambda: (exchange(0), [], Answered("miss"))) is False
    assert set(threading.enumerate()) - before == set()


def hand_over_failing(backlog: Backlog, target: Callable[[Made], None]) -> None:
    """Hand `backlog` to a `target` that fails on the way, and wait for the hand-over to end."""
    previous = threading.excepthook
    threading.excepthook = lambda arguments: None  # the thread's failure is expected here
    try:
        backlog.hand_to(target)
        assert backlog.wait(timeout=30)
    finally:
        threading.excepthook = previous


def test_a_hand_over_that_fails_steps_aside_and_later_answers_reach_the_view() -> None:
    shown: list[int] = []
    backlog = Backlog(10)

    def target(made: object) -> None:
        if not shown:
            shown.append(-1)
            raise RuntimeError("the view failed")
        shown.append(len(shown))

    for _ in range(3):
        assert backlog.hold(lambda: (exchange(0), [], Answered("miss")))
    hand_over_failing(backlog, target)
    assert backlog.hold(lambda: (exchange(1), [], Answered("miss"))) is False


def left_out_cases() -> list[tuple[int, int, int]]:
    """(bound, answers before the page asks, answers arriving while the hand-over is under way): none,
    below the bound, at it, just past it and far past it, each with none, a few and more than the
    bound arriving during the hand-over (and a bound below and above one turn of the handing thread)."""
    cases = set()
    for most in (1, 3, HANDED_AT_ONCE, HANDED_AT_ONCE + 36):
        for before in (0, 1, most - 1, most, most + 1, 7 * most + 3):
            for during in (0, 1, most + 5):
                cases.add((most, before, during))
    return sorted(cases)


def expected_left_out(most: int, before: int, during: int) -> int:
    """What the bound lets go: the oldest past `most` before the page asks; then, the handing thread
    holding its first turn, the oldest past `most` of what is still held and what arrives."""
    if before == 0:
        return 0  # nothing held: the hand-over is over at once, every answer goes to the view
    held = min(before, most)
    still_held = held - min(HANDED_AT_ONCE, held)
    return before - held + max(0, still_held + during - most)


@pytest.mark.parametrize("feed", sorted(FEEDS))
@pytest.mark.parametrize(("most", "before", "during"), left_out_cases())
def test_info_says_how_many_exchanges_were_left_out_and_every_other_one_is_listed(
    most: int, before: int, during: int, feed: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`api/info`'s `left_out` is exactly the exchanges the bound let go: what was served or recorded
    and is not listed, counted however many came before the page asked and during the hand-over."""
    in_turn, go_on = threading.Event(), threading.Event()
    handed = "add_answered_later" if feed == "answered" else "add_checked"
    give = getattr(LiveView, handed)

    def gated(view: LiveView, item: object) -> None:  # the handing thread holds its first turn
        if threading.current_thread().name == "commerce-proxy-ui-backlog" and not go_on.is_set():
            in_turn.set()
            assert go_on.wait(timeout=30)
        give(view, item)

    monkeypatch.setattr(LiveView, handed, gated)
    ui = live_ui(LiveUiRequest(MODE_OF[feed], IN_FORCE, RedactionPolicy(), ["c.yaml"]))
    ui._backlog = Backlog(most)
    try:
        for number in range(before):
            FEEDS[feed](ui, number)
        view = opened(ui)
        assert before == 0 or in_turn.wait(timeout=30)
        for number in range(before, before + during):
            FEEDS[feed](ui, number)
        go_on.set()
        assert ui.handed_over(timeout=30)
        view.flush()
        listed = view.window(Query(), 0, 500, wait=True)["total"]
        assert view.info()["left_out"] == expected_left_out(most, before, during)
        assert view.info()["left_out"] == before + during - listed
    finally:
        go_on.set()
        ui.close()


def test_a_view_that_fails_its_hand_over_counts_what_it_did_not_take() -> None:
    backlog = Backlog(10)
    taken: list[object] = []

    def target(made: object) -> None:
        if len(taken) == 2:
            raise RuntimeError("the view failed")
        taken.append(made)

    for _ in range(7):
        backlog.hold(lambda: (exchange(0), [], Answered("miss")))
    hand_over_failing(backlog, target)
    assert len(taken) == 2 and backlog.left_out() == 5


@settings(max_examples=200, deadline=None)
@given(
    sizes=st.lists(st.integers(min_value=0, max_value=5_000), max_size=60),
    most=st.integers(min_value=1, max_value=20),
    most_bytes=st.integers(min_value=0, max_value=20_000),
)
def test_the_backlog_keeps_the_latest_answers_within_its_count_and_bytes(
    sizes: list[int], most: int, most_bytes: int
) -> None:
    """Replay's held answers stay within the count and the bytes (an answer rewritten per Host is a body
    of its own: memory must not grow with the answers' sizes), the latest kept, the rest counted in
    `left_out`; one answer larger than the bound alone is still kept (the page shows the newest)."""
    backlog = Backlog(most, most_bytes)
    for number, size in enumerate(sizes):
        assert backlog.hold(lambda number=number: (exchange(number), [], Answered("miss")), size)
    kept = len(backlog._held)
    assert backlog.left_out() == len(sizes) - kept
    if sizes:
        assert 1 <= kept <= most
        assert kept == 1 or sum(sizes[-kept:]) <= most_bytes
        assert kept == most or kept == len(sizes) or sum(sizes[-kept - 1 :]) > most_bytes
    shown: list[str] = []
    backlog.hand_to(lambda made: shown.append(made()[0].request.path))
    assert backlog.wait(timeout=30)
    assert shown == [f"/v2/n/{n}" for n in range(len(sizes) - kept, len(sizes))]


@pytest.mark.parametrize("feed", sorted(FEEDS))
async def test_the_first_ui_request_answers_with_every_exchange_held_before_it(feed: str) -> None:
    """A script's first `api/exchanges` after a run lists the run, not the few indexed so far."""
    import inspect
    import json

    from proxy.cli.serving import RoutesOnDemand
    from proxy.server.wire import Incoming, Outgoing

    ui = live_ui(LiveUiRequest(MODE_OF[feed], IN_FORCE, RedactionPolicy(), ["c.yaml"]))
    try:
        for number in range(3000):
            FEEDS[feed](ui, number)
        path = "/_proxy/ui/api/exchanges"
        answer = RoutesOnDemand(ui).answer(Incoming("GET", path, (), b""), path, "offset=2990&limit=500")
        answered = await answer if inspect.isawaitable(answer) else answer
        assert isinstance(answered, Outgoing) and answered.status == 200, answered
        document = json.loads(answered.body)
        assert document["at_least"] == 3000
        assert [row["path"] for row in document["exchanges"]] == [f"/v2/n/{n}" for n in range(2990, 3000)]
    finally:
        ui.close()


BODIES = [
    (
        b'{"price": 1.50, "big": 12345678901234567890, "e": 1E+2, "name": "caf\\u00e9 \xc3\xa9"}',
        "application/json",
    ),
    (b'[{"id": "a"}, {"id": "b", "n": -0.0}]', "application/json; charset=utf-8"),
    (b"plain text \xc3\xa9", "text/plain; charset=utf-8"),
    (bytes(range(256)), "application/octet-stream"),
    (b"", "application/json"),
]


@pytest.mark.parametrize(("raw", "content_type"), BODIES)
def test_an_exchange_held_as_its_journal_line_shows_as_the_exchange_itself(
    raw: bytes, content_type: str
) -> None:
    """What a recording's backlog holds is the journal line, made again when a page opens: the page
    shows the very exchange (body text, number spellings, bytes, heads) it would have shown held whole."""
    headers = (("Content-Type", content_type), ("X-Trace", "t-1"))
    recorded = Exchange(
        Request("GET", "/v2/products", "page[limit]=2", (("Accept", "application/json"),)),
        Response(200, headers, body_from_bytes(raw, headers, 1 << 20)),
        recorded_at="2026-11-27T10:00:00Z",
    )
    details = []
    for feed in ("checked", "journaled"):
        ui = live_ui(LiveUiRequest("record", IN_FORCE, RedactionPolicy(), ["c.yaml"]))
        try:
            line = journal_line(0, recorded) if feed == "journaled" else None
            ui.checked(Checked(0, recorded, [], line))
            view = opened(ui)
            assert ui.handed_over(timeout=30)
            view.flush()
            (row,) = view.window(Query(), 0, 10)["exchanges"]
            details.append(view.exchange(row["id"]))
        finally:
            ui.close()
    assert details[0] is not None and details[0] == details[1]
