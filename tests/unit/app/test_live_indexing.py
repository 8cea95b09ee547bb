"""A live view made by a server's loop (`app/live_traffic.py`): indexed by that loop, never waiting for
a held view or index, its batches added by a writer thread once a page has searched the bodies' text."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from proxy.app.live_traffic import MOST_PENDING, LiveView
from proxy.app.live_ui import LiveUiRequest, live_ui
from proxy.core.redaction.policy import RedactionPolicy
from proxy.core.ui.query import Query
from tests.unit.app.test_live_ui import FEEDS, IN_FORCE, MODE_OF, by_checked, opened


def adders(view: LiveView) -> set[int]:
    """The threads that add a batch to `view` from now on (one that found it held added none)."""
    found: set[int] = set()
    add = view._add

    def noted(items: list[Any], wait: bool = True) -> bool:
        added = add(items, wait)
        if added:
            found.add(threading.get_ident())
        return added

    view._add = noted  # type: ignore[method-assign]
    return found


async def indexed(view: LiveView, count: int) -> None:
    """Let the loop run until `count` exchanges are indexed (bounded: 10 s at most)."""
    for _ in range(200):
        if view.cursor == count:
            return
        await asyncio.sleep(0.05)


@pytest.mark.parametrize("feed", sorted(FEEDS))
@pytest.mark.parametrize("caller", ["loop", "thread"])
async def test_a_view_made_by_the_servers_loop_is_indexed_by_that_loop_alone(feed: str, caller: str) -> None:
    """One thread of Python runs at a time: an indexing thread beside a busy server made the server wait
    for the interpreter after each of its system calls. A view made by the server's loop (its first UI
    request) is indexed by that loop, in batches; an exchange handed over by another thread (a backlog's)
    too, unless it makes a full batch."""
    ui = live_ui(LiveUiRequest(MODE_OF[feed], IN_FORCE, RedactionPolicy(), ["c.yaml"]))
    try:
        view = opened(ui)
        assert ui.handed_over(timeout=30)
        indexed_by = adders(view)
        count = 150 if caller == "loop" else MOST_PENDING - 1  # the loop's: full batches too
        if caller == "loop":
            for number in range(count):
                FEEDS[feed](ui, number)
        else:
            feeder = threading.Thread(target=lambda: [FEEDS[feed](ui, number) for number in range(count)])
            feeder.start()
            feeder.join()
        await indexed(view, count)
        assert view.cursor == count
        assert indexed_by == {threading.get_ident()}
        assert not [
            thread.name for thread in threading.enumerate() if thread.name == "commerce-proxy-ui-index"
        ]
    finally:
        ui.close()


async def test_once_a_page_searches_the_text_the_loops_batches_are_added_by_a_writer_thread() -> None:
    """Tokenizing each body for the text index is most of an add, and SQLite does it without the
    interpreter's lock: once a page has searched the text, the loop makes the batches and a writer
    thread adds them, in order, every exchange searchable."""
    ui = live_ui(LiveUiRequest("spy", IN_FORCE, RedactionPolicy(), ["c.yaml"]))
    try:
        view = opened(ui)
        assert ui.handed_over(timeout=30)
        for number in range(3):
            by_checked(ui, number)
        view.flush()
        assert view.adds_are_light
        assert view.window(Query(text="answer 2"), 0, 10, wait=True)["total"] == 1  # the first text filter
        assert not view.adds_are_light
        loop_thread, indexed_by = threading.get_ident(), adders(view)
        count = 150
        for number in range(3, count):
            by_checked(ui, number)
        await indexed(view, count)
        assert view.cursor == count
        assert indexed_by and loop_thread not in indexed_by
        assert [row["path"] for row in view.window(Query(), 0, 500)["exchanges"]] == [
            f"/v2/n/{number}" for number in range(count)
        ]
        assert view.window(Query(text="answer 149"), 0, 10, wait=True)["total"] == 1
    finally:
        ui.close()


@pytest.mark.parametrize("held", ["view", "index"])
async def test_the_loop_never_waits_for_a_held_view_its_batch_goes_to_the_writer(held: str) -> None:
    """A page's large filter is counted a step at a time, and a text fill moves a chunk at a time, each
    holding the view or its index: the loop hands its batch to the writer thread and goes on serving."""
    ui = live_ui(LiveUiRequest("record", IN_FORCE, RedactionPolicy(), ["c.yaml"]))
    try:
        view = opened(ui)
        assert ui.handed_over(timeout=30)
        lock = view._lock if held == "view" else view._index.lock
        holding, release = threading.Event(), threading.Event()
        released_in_time: list[bool] = []

        def hold() -> None:
            with lock:
                holding.set()
                released_in_time.append(release.wait(timeout=10))

        holder = threading.Thread(target=hold)
        holder.start()
        assert holding.wait(timeout=10)
        count = 5 * MOST_PENDING  # five full batches: more than a short writer's queue holds
        for number in range(count):
            by_checked(ui, number)
        assert view.changes(0, wait=False) is None  # the pushes too read it only when it is free
        # The loop runs this while the lock is held only if its flush (due FLUSH_SECONDS later) did not
        # wait for the lock; else the holder gives up after 10 s and the check below fails.
        asyncio.get_running_loop().call_later(0.3, release.set)
        await asyncio.to_thread(holder.join)
        assert released_in_time == [True]
        await indexed(view, count)
        assert [row["path"] for row in view.window(Query(), 0, 500)["exchanges"]] == [
            f"/v2/n/{number}" for number in range(count)
        ]
    finally:
        ui.close()
