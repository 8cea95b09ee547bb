"""The UI's traffic index against a plain-Python filter over the same rows: many drawn exchange sets and
filters, the index's windows and counts must be the reference's."""

from __future__ import annotations

import fnmatch
import random
from collections import Counter
from dataclasses import replace
from typing import Any

import pytest

from proxy.core.ui.query import Query
from proxy.errors import StillIndexing
from proxy.store import traffic_index, traffic_text
from proxy.store.traffic_entries import Answered, Entry
from proxy.store.traffic_index import TrafficIndex, temporary_index

METHODS = ("GET", "PUT", "POST", "DELETE")
ROUTES = ("/v2/products", "/v2/products/[1]", "/v2/extensions/a/b", "/oauth/access_token", "/v2/x?y")
RULES = ("pagination.links.next", "auth.bearer.missing", "shape.feature", "coverage.error-body")
ENDPOINTS = ("list products (GET /v2/products)", "update a feature", None)
WORDS = ("alpha", "Beta", "gamma", "ÉTÉ", "delta-42", '"quoted"', "a*b", "100%")
STATUSES = (200, 201, 204, 301, 404, 422, 500, 503)


def draw_entry(chance: random.Random) -> Entry:
    route = chance.choice(ROUTES)
    rules = frozenset(chance.sample(RULES, chance.choice((0, 0, 1, 2))))
    severities = (chance.randint(0, 2), chance.randint(0, 1), chance.randint(0, 1)) if rules else (0, 0, 0)
    by = chance.choice((None, "recording", "miss"))
    return Entry(
        method=chance.choice(METHODS),
        target=route + chance.choice(("", "?page[limit]=1")),
        route=route,
        size=chance.randint(0, 5000),
        cassette=chance.choice(("a.yaml", "b.yaml", None)),
        index=chance.randint(0, 50),
        status=chance.choice(STATUSES),
        time=chance.choice((None, "2024-01-01T00:00:00Z")),
        duration_ms=chance.choice((None, 1.5)),
        endpoint=chance.choice(ENDPOINTS),
        severities=severities,
        rules=rules,
        answered=None if by is None else Answered(by, "a.yaml#3" if by == "recording" else None, None),
        request_text=" ".join(chance.sample(WORDS, chance.randint(0, 3))),
        response_text=" ".join(chance.sample(WORDS, chance.randint(0, 3))),
        detail={"n": chance.random()},
    )


def draw_query(chance: random.Random) -> Query:
    def maybe(*values: Any) -> Any:
        return chance.choice((None, None, *values))

    return Query(
        method=maybe(*METHODS),
        status=maybe("2xx", "4xx", "5xx", "404", "3xx"),
        path=maybe("/v2/*", "*/[1]", "/v2/product?", "*", "/oauth/*", "/v2/x?y", "/v2/products"),
        endpoint=maybe(*[endpoint for endpoint in ENDPOINTS if endpoint]),
        rule=maybe(*RULES, "no.such-rule"),
        severity=maybe("error", "warning", "info"),
        has_findings=maybe(True, False),
        cassette=maybe("a.yaml", "b.yaml"),
        text=maybe("alp", "beta", "été", "ta-4", '"quo', "a*b", "00%", "mma Bet", "zzz"),
    )


def matches(query: Query, entry: Entry) -> bool:
    """The reference: each filter as the contract says, in plain Python."""
    statuses = query.status_range
    severity_at = {"error": 0, "warning": 1, "info": 2}
    return (
        (query.method is None or entry.method == query.method)
        and (statuses is None or (entry.status is not None and statuses[0] <= entry.status <= statuses[1]))
        and (query.path is None or fnmatch.fnmatchcase(entry.route, query.path.replace("[", "[[]")))
        and (query.endpoint is None or entry.endpoint == query.endpoint)
        and (query.rule is None or query.rule in entry.rules)
        and (query.severity is None or entry.severities[severity_at[query.severity]] > 0)
        and (query.has_findings is None or (sum(entry.severities) > 0) == query.has_findings)
        and (query.cassette is None or entry.cassette == query.cassette)
        and (
            query.text is None
            or query.text.lower() in entry.request_text.lower()
            or query.text.lower() in entry.response_text.lower()
        )
    )


def reference_counts(query: Query, entries: list[Entry]) -> dict[str, Any]:
    chosen = [entry for entry in entries if matches(query, entry)]
    return {
        "total": len(chosen),
        "rules": dict(sorted(Counter(rule for entry in chosen for rule in entry.rules).items())),
        "severities": {
            name: sum(1 for entry in chosen if entry.severities[at] > 0)
            for at, name in enumerate(("error", "warning", "info"))
        },
        "endpoints": dict(sorted(Counter(entry.endpoint for entry in chosen if entry.endpoint).items())),
    }


@pytest.fixture
def index() -> Any:
    opened = temporary_index()
    yield opened
    opened.close()


@pytest.mark.parametrize("seed", range(12))
def test_windows_and_counts_are_the_reference_filters(seed: int, index: TrafficIndex) -> None:
    chance = random.Random(seed)
    entries: list[Entry] = []
    # The same filters asked between batches: the kept lists of matching ids must follow the growth.
    asked = [draw_query(chance) for _ in range(6)]
    for _ in range(chance.randint(1, 4)):  # built incrementally, in batches
        batch = [draw_entry(chance) for _ in range(chance.randint(0, 60))]
        entries.extend(batch)
        assert index.add(batch) == len(entries)
        for query in asked:
            expected = [number for number, entry in enumerate(entries, start=1) if matches(query, entry)]
            offset = chance.randint(0, 30)
            total, rows = index.window(query, offset, 10)
            assert (total, [row["id"] for row in rows]) == (len(expected), expected[offset : offset + 10])
            assert index.counts(query) == reference_counts(query, entries), query
        assert index.counts(Query()) == reference_counts(Query(), entries)
    for _ in range(40):
        query = draw_query(chance)
        expected = [number for number, entry in enumerate(entries, start=1) if matches(query, entry)]
        offset, limit = chance.randint(0, 30), chance.randint(0, 40)
        total, rows = index.window(query, offset, limit)
        assert total == len(expected), query
        assert [row["id"] for row in rows] == expected[offset : offset + limit], query
        assert index.counts(query) == reference_counts(query, entries), query


def test_a_row_says_what_its_entry_said(index: TrafficIndex) -> None:
    entry = Entry(
        method="GET", target="/v2/products?page[limit]=1", route="/v2/products", size=12, cassette="a.yaml",
        index=4, status=200, time="2024-01-01T00:00:00Z", duration_ms=2.5, endpoint="list",
        severities=(1, 0, 2), rules=frozenset({"r"}), answered=Answered("miss", None, "near: x"),
        detail={"request": 1},
    )  # fmt: skip
    index.add([entry, replace(entry, answered=None, status=None)])
    rows = index.after(0, 10)
    assert rows[0] == {
        "id": 1, "cassette": "a.yaml", "index": 4, "method": "GET", "path": "/v2/products?page[limit]=1",
        "status": 200, "time": "2024-01-01T00:00:00Z", "duration_ms": 2.5, "size": 12, "endpoint": "list",
        "findings": {"error": 1, "warning": 0, "info": 2},
        "answered": {"by": "miss", "recording": None, "detail": "near: x"},
    }  # fmt: skip
    assert rows[1]["answered"] is None and rows[1]["status"] is None
    assert index.after(1, 10) == rows[1:] and index.after(2, 10) == []
    assert index.exchange(1) == (rows[0], {"request": 1})
    assert index.exchange(3) is None


def test_user_text_is_never_sql(index: TrafficIndex) -> None:
    tricky = "x' OR 1=1; DROP TABLE exchanges; --"
    index.add([Entry("GET", "/a", "/a", 0, cassette="c", response_text="safe")])
    query = Query(method="GET", path=tricky.replace("x", "/"), cassette=tricky, rule=tricky, text=tricky)
    assert index.window(query, 0, 10) == (0, [])
    assert index.window(Query(text='afe"'), 0, 10)[0] == 0
    assert index.window(Query(), 0, 10)[0] == 1


@pytest.mark.parametrize("seed", range(8))
def test_text_kept_aside_is_refused_until_filled_then_is_the_reference(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A large offline index's body text goes into the text index after its rows (`defer_text`): until
    the fill is done a text filter is refused, never answered from part of the text; then every filter
    is the reference's, and the file of pending text is gone."""
    monkeypatch.setattr(traffic_text, "CHUNK", 7)  # through many chunks
    chance = random.Random(seed)
    opened = temporary_index()
    try:
        opened.defer_text()
        entries = [draw_entry(chance) for _ in range(chance.randint(0, 120))]
        for first in range(0, len(entries), 25):
            opened.add(entries[first : first + 25])
        assert attached(opened) == ["main", "pending"]
        filled: list[int] = []
        with opened.lock:  # the fill's first chunk waits: nothing of the text is in yet
            opened.fill_text(lambda: filled.append(opened.cursor), at_once=False)
            for query in (Query(text="alpha"), Query(method="GET", text="ph")):
                with pytest.raises(StillIndexing, match="still being indexed"):
                    opened.window(query, 0, 10)
                with pytest.raises(StillIndexing):
                    opened.counts(query)
            no_text = Query(method="GET")
            expected = [number for number, entry in enumerate(entries, start=1) if matches(no_text, entry)]
            total, rows = opened.window(no_text, 0, 500)  # the rows answer meanwhile
            assert (total, [row["id"] for row in rows]) == (len(expected), expected)
        assert opened.text_wait(30)
        assert filled == [len(entries)] and attached(opened) == ["main"]  # the pending text detached
        for _ in range(40):
            query = draw_query(chance)
            expected = [number for number, entry in enumerate(entries, start=1) if matches(query, entry)]
            total, rows = opened.window(query, 0, 500)
            assert (total, [row["id"] for row in rows]) == (len(expected), expected), query
            assert opened.counts(query) == reference_counts(query, entries), query
    finally:
        opened.close()


def attached(opened: TrafficIndex) -> list[str]:
    """The databases the index's connection has attached, by name."""
    with opened.lock:
        return [name for _, name, _ in opened._db.execute("PRAGMA database_list")]


def test_closing_an_index_stops_its_text_fill() -> None:
    opened = temporary_index()
    opened.defer_text()
    opened.add([Entry("GET", "/a", "/a", 0, response_text=f"text {number}") for number in range(50)])
    with opened.lock:
        opened.fill_text(lambda: None, at_once=False)
    opened.close()
    fill = opened._fill
    assert fill is not None and fill._thread is not None and not fill._thread.is_alive()  # stopped


def test_windows_of_the_whole_traffic_are_its_rows_from_any_offset(index: TrafficIndex) -> None:
    """The unfiltered window reads from id `offset + 1` (ids have no gap), never past rows."""
    chance = random.Random(7)
    entries = [draw_entry(chance) for _ in range(90)]
    for first in range(0, 90, 30):
        index.add(entries[first : first + 30])
        count = first + 30
        for offset in range(0, count + 3):
            for limit in (0, 1, 7, 500):
                total, rows = index.window(Query(), offset, limit)
                expected = list(range(offset + 1, min(count, offset + limit) + 1))
                assert (total, [row["id"] for row in rows]) == (count, expected), (offset, limit)


@pytest.mark.parametrize("seed", range(12))
def test_a_window_without_its_total_is_the_references_and_the_total_comes(
    seed: int, index: TrafficIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With chunks of a few ids (a large index in small), a filter's first windows come from its first
    matches before its total is known, and what comes after (total, counts, every window) is the
    reference's; rows added meanwhile are followed."""
    monkeypatch.setattr(traffic_index, "CHUNK", 7)
    chance = random.Random(seed)
    entries: list[Entry] = []
    waited = 0  # windows answered before their total
    for _ in range(chance.randint(1, 3)):
        batch = [draw_entry(chance) for _ in range(chance.randint(40, 120))]
        entries.extend(batch)
        index.add(batch)
        for query in [broad_query(chance) for _ in range(6)]:
            expected = [number for number, entry in enumerate(entries, start=1) if matches(query, entry)]
            offset, limit = chance.choice((0, 0, chance.randint(0, 40))), chance.randint(0, 30)
            total, at_least, rows = index.window_now(query, offset, limit)
            assert [row["id"] for row in rows] == expected[offset : offset + limit], query
            assert total in (None, len(expected)), query
            waited += total is None
            assert at_least <= len(expected) and (total is None or at_least == total), query
            counts = index.counts_now(query)
            assert counts in (None, reference_counts(query, entries)), query
            assert index.totals_wait(10)
            total, at_least, rows = index.window_now(query, offset, limit)
            assert (total, at_least) == (len(expected), len(expected)), query
            assert [row["id"] for row in rows] == expected[offset : offset + limit], query
            assert index.counts_now(query) == reference_counts(query, entries), query
    assert waited > 0


def broad_query(chance: random.Random) -> Query:
    """A drawn query of one or two filters (most rows of a drawn set match one)."""
    drawn = draw_query(chance)
    fields = [name for name in Query.__dataclass_fields__ if getattr(drawn, name) is not None]
    kept = chance.sample(fields, min(len(fields), chance.randint(1, 2)))
    return replace(Query(), **{name: getattr(drawn, name) for name in kept})


def steps_counting(index: TrafficIndex, query: Query, since: int, until: int) -> int:
    """SQLite's virtual machine steps of counting the rows in (since, until] matching `query`."""
    from proxy.store.traffic_matches import counts_between
    from proxy.store.traffic_query import compiled

    steps = 0

    def step() -> int:
        nonlocal steps
        steps += 1
        return 0

    index._db.set_progress_handler(step, 1)
    try:
        counts_between(index._db, compiled(query), since, until)
    finally:
        index._db.set_progress_handler(None, 1)
    return steps


@pytest.mark.parametrize("seed", range(6))
def test_counting_a_chunk_reads_its_own_rows_not_the_whole_index(seed: int) -> None:
    """A large filter's counts are summed a chunk of ids at a time: each chunk's work must not grow
    with the rows outside it. Before, each chunk's counts per rule read every finding of the index,
    so counting 1,000,000 exchanges in chunks took twice as long as in one pass. (A rule or text
    filter's own condition reads that rule's or that text's matches: left out here.)"""
    chance = random.Random(seed)
    entries = [draw_entry(chance) for _ in range(4000)]
    small, large = temporary_index(), temporary_index()
    try:
        small.add(entries[:200])
        large.add(entries)
        for _ in range(5):
            query = replace(draw_query(chance), rule=None, text=None)
            since = chance.randint(0, 150)
            alone, among = (
                steps_counting(small, query, since, since + 50),
                steps_counting(large, query, since, since + 50),
            )
            assert among < 2 * alone, (query, alone, among)
    finally:
        small.close()
        large.close()
