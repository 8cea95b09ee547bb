"""A live index keeps its bodies' text out of the text index until a text filter first asks for it
(`TrafficIndex.defer_text(until_asked=True)`): nothing is tokenized before; the first text filter puts
the text in (at once when it is little, else refused with its progress until the fill's thread is
done); from then on every answer is the reference's, for the exchanges added before, during and after."""

from __future__ import annotations

import contextlib
import random
import sqlite3

import pytest

from proxy.core.ui.query import Query
from proxy.errors import CommerceProxyError, StillIndexing
from proxy.store import traffic_index
from proxy.store.traffic_entries import Entry
from proxy.store.traffic_index import TrafficIndex, temporary_index
from tests.unit.store.test_traffic_index import attached, draw_entry, draw_query, matches, reference_counts


def tokenized(opened: TrafficIndex) -> int:
    """How many exchanges' text the text index holds (FTS5 keeps a size row for each)."""
    with opened.lock:
        return int(opened._db.execute("SELECT count(*) FROM bodies_docsize").fetchone()[0])


def with_text(entries: list[Entry]) -> int:
    return sum(1 for entry in entries if entry.request_text or entry.response_text)


def add(opened: TrafficIndex, entries: list[Entry], chance: random.Random) -> None:
    """In batches of a few, as the live indexing thread adds them."""
    first = 0
    while first < len(entries):
        size = chance.randint(1, 30)
        opened.add(entries[first : first + size])
        first += size


def assert_reference(opened: TrafficIndex, entries: list[Entry], chance: random.Random) -> None:
    for query in [Query(text="alp"), *(draw_query(chance) for _ in range(25))]:
        expected = [number for number, entry in enumerate(entries, start=1) if matches(query, entry)]
        total, rows = opened.window(query, 0, 500)
        assert (total, [row["id"] for row in rows]) == (len(expected), expected), query
        assert opened.counts(query) == reference_counts(query, entries), query


@pytest.mark.parametrize("seed", range(16))
def test_the_text_is_tokenized_only_once_asked_for_then_every_answer_is_the_reference(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    chance = random.Random(seed)
    monkeypatch.setattr(traffic_index, "LIVE_TEXT_CHUNK", chance.choice((1, 5, 40, 10_000)))
    opened = temporary_index()
    try:
        opened.defer_text(until_asked=True)
        entries = [draw_entry(chance) for _ in range(chance.randint(0, 120))]
        add(opened, entries, chance)
        no_text = Query(method=chance.choice(("GET", None)), rule="shape.feature")
        expected = [number for number, entry in enumerate(entries, start=1) if matches(no_text, entry)]
        assert opened.window(no_text, 0, 500)[0] == len(expected)  # other filters never start it
        assert tokenized(opened) == 0 and attached(opened) == ["main", "pending"]
        later = [draw_entry(chance) for _ in range(chance.randint(0, 40))]
        with opened.lock:  # a fill's thread waits for its first chunk: what the first ask gets is fixed
            at_once = len(entries) <= traffic_index.LIVE_TEXT_CHUNK
            if at_once:
                assert_reference(opened, entries, chance)  # little text: put in by the first ask
            else:
                for _ in range(2):
                    with pytest.raises(StillIndexing, match=rf"\(0 of {len(entries)} exchanges\)"):
                        opened.window(Query(text="alp"), 0, 10)
            add(opened, later, chance)  # exchanges keep coming while the text goes in
            entries += later
        assert opened.text_wait(30)
        assert attached(opened) == ["main"]  # the text kept aside is all in, its database gone
        after = [draw_entry(chance) for _ in range(chance.randint(0, 40))]
        add(opened, after, chance)
        entries += after
        assert tokenized(opened) == with_text(entries)  # the later ones straight into the text index
        assert_reference(opened, entries, chance)
    finally:
        opened.close()


def test_a_failed_fill_leaves_text_search_refused_never_answered_from_part(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A fill the first text filter runs itself that fails (a full disk) refuses text search after."""
    opened = temporary_index()
    try:
        opened.defer_text(until_asked=True)
        opened.add([Entry("GET", "/a", "/a", 0, response_text=f"alpha {number}") for number in range(5)])

        def full(connection: object, last: int, most: int | None) -> int:
            raise sqlite3.OperationalError("database or disk is full")

        monkeypatch.setattr(traffic_index, "fill_chunk", full)
        for _ in range(2):
            with pytest.raises(CommerceProxyError, match="disk is full"):
                opened.window(Query(text="alpha"), 0, 10)
        assert opened.window(Query(method="GET"), 0, 10)[0] == 5  # every other filter still answers
    finally:
        opened.close()


@pytest.mark.parametrize("chunk", [1, 5])
@pytest.mark.parametrize("count", [0, 1, 3, 7])
@pytest.mark.parametrize("way", ["asked", "offline at once", "offline by its thread"])
def test_text_kept_aside_goes_in_however_little_came_before(way: str, count: int, chunk: int) -> None:
    """Text kept aside is filled and its database detached with no exchange before the first text
    filter, one, or a few (a live view asked before its first exchange: the fill found the index's own
    setup still in an open transaction, `database pending is locked`), then answers as the reference."""
    chance = random.Random(count * 10 + chunk)
    entries = [draw_entry(chance) for _ in range(count)]
    opened = temporary_index()
    try:
        opened.defer_text(until_asked=way == "asked")
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(traffic_index, "LIVE_TEXT_CHUNK", chunk)
            patch.setattr("proxy.store.traffic_text.CHUNK", chunk)
            add(opened, entries, chance)
            if way == "asked":
                with contextlib.suppress(StillIndexing):  # more than one chunk: its thread goes on
                    opened.window(Query(text="alp"), 0, 10)
            else:
                opened.fill_text(lambda: None, at_once=way == "offline at once")
            assert opened.text_wait(30)
        assert attached(opened) == ["main"]
        assert_reference(opened, entries, chance)
    finally:
        opened.close()
