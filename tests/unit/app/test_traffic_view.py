"""The UI's use case: offline views of cassettes, folders, journals and HAR files (checked as `check`
checks them, redacted, cached), and live views fed by the live checker and by replay."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
import zstandard

from proxy.app import traffic_view
from proxy.app.live_traffic import live_view
from proxy.app.traffic_view import Answered, offline_view
from proxy.core.cassette.journal_line import journal_line
from proxy.core.model.exchange import Body, Exchange, JSONFromText, Request, Response
from proxy.core.rules.engine import Checker, LiveChecker
from proxy.core.ui.query import Query
from proxy.errors import CommerceProxyError
from proxy.store.rule_files import RulesInForce
from proxy.store.traffic_index import TrafficIndex

SECRET = "sk_live_9f8e7d6c5b4a39281706f5e4d3c2b1a0"
CASSETTE = f"""\
cassette_format: 2
upstream: http://127.0.0.1:9
exchanges:
- recorded_at: '2026-11-22T03:11:09.552627Z'
  duration_ms: 2.5
  request:
    method: POST
    path: /oauth/access_token
    headers:
      Content-Type: application/x-www-form-urlencoded
    text: grant_type=client_credentials&client_id=c&client_secret={SECRET}
  response:
    status: 200
    headers:
      Content-Type: application/json
    json: '{{"access_token": "{SECRET}", "expires_in": 3600, "price": 1.50}}'
- recorded_at: '2026-11-22T03:11:10Z'
  request:
    method: GET
    path: /v2/settings
    query: access_token={SECRET}
    headers:
      Authorization: Bearer {SECRET}
      X-Echo: <script>alert(1)</script>
  response:
    status: 404
    headers:
      Content-Type: application/octet-stream
    base64: {"AAEC" * 1500}
"""


@pytest.fixture
def in_force(shipped_rules: RulesInForce) -> RulesInForce:
    return shipped_rules


pytestmark = pytest.mark.usefixtures("own_cache")


def test_an_offline_view_of_a_folder_shows_rows_details_and_findings(
    tmp_path: Path, in_force: RulesInForce
) -> None:
    folder = tmp_path / "cassettes"
    folder.mkdir()
    (folder / "a.yaml").write_text(CASSETTE)
    view = offline_view([folder], in_force)
    try:
        assert view.info() == {
            "mode": "offline",
            "sources": [str(folder / "a.yaml")],
            "exchanges": 2,
            "cursor": 2,
            "left_out": 0,
        }
        window = view.window(Query(), 0, 10)
        assert window["total"] == 2 and [row["index"] for row in window["exchanges"]] == [0, 1]
        first, second = window["exchanges"]
        assert first["cassette"] == str(folder / "a.yaml") and first["method"] == "POST"
        assert first["time"] == "2026-11-22T03:11:09.552627Z" and first["duration_ms"] == 2.5
        assert second["path"] == "/v2/settings?access_token=<redacted>" and second["status"] == 404
        assert second["size"] == 4500 and second["endpoint"] == "GET /v2/settings"
        detail = view.exchange(1)
        assert detail is not None
        body = detail["response"]["body"]
        assert body["kind"] == "json" and body["text"] == (
            '{\n  "access_token": "<redacted>",\n  "expires_in": 3600,\n  "price": 1.50\n}'
        )  # pretty-printed from the exact recorded text: 1.50 stays 1.50
        binary = view.exchange(2)
        assert binary is not None
        assert binary["response"]["body"] == {
            "kind": "binary", "size": 4500, "text": None, "hex": bytes([0, 1, 2] * 1500)[:4096].hex(),
            "truncated": True,
        }  # fmt: skip
        assert ["X-Echo", "<script>alert(1)</script>"] in binary["request"]["headers"]
        assert ["Authorization", "Bearer <redacted>"] in binary["request"]["headers"]
        assert view.exchange(3) is None and view.exchange(0) is None
        # the same findings `check`'s checker gives for the cassette
        from proxy.store.cassette_reader.loading import load_cassette

        expected = Checker(in_force.ruleset, in_force.project.config).check_all(
            load_cassette(folder / "a.yaml").cassette.exchanges
        )
        shown = [finding["rule"] for number in (1, 2) for finding in view.exchange(number)["findings"]]  # type: ignore[index]
        assert shown == [finding.rule for finding in expected] and shown
        counts = view.counts(Query())
        assert counts["total"] == 2 and sum(counts["rules"].values()) >= 1
        undocumented = view.window(Query(rule="coverage.undocumented-endpoint"), 0, 10)
        assert [row["id"] for row in undocumented["exchanges"]] == [2]
        assert view.window(Query(text="expires_in"), 0, 10)["total"] == 1
        assert view.changes(0)["cursor"] == 2 and view.changes(2) == {"cursor": 2, "exchanges": []}
        index_file = Path(view._index.path)
    finally:
        view.close()
    data = index_file.read_bytes()
    with closing(sqlite3.connect(index_file)) as database:
        stored = [document for (document,) in database.execute("SELECT document FROM details")]
    assert len(stored) == 2 and all(isinstance(document, bytes) for document in stored)
    unpack = zstandard.ZstdDecompressor().decompress
    data += b"".join(unpack(document) for document in stored)  # the details are compressed
    assert b"Bearer <redacted>" in data  # the search below reads the details' text
    assert SECRET.encode() not in data and b"9f8e7d6c5b4a" not in data  # no secret in the database file


def test_reopening_the_same_sources_uses_the_cache_and_a_change_rebuilds(
    tmp_path: Path, in_force: RulesInForce
) -> None:
    cassette = tmp_path / "a.yaml"
    cassette.write_text(CASSETTE)
    first = offline_view([cassette], in_force)
    cached = first._index.path
    first.close()
    assert cached.parent == tmp_path / "cache" and cached.stat().st_mode & 0o777 == 0o600
    before = cached.stat().st_mtime_ns
    again = offline_view([cassette], in_force)
    assert again._index.path == cached and cached.stat().st_mtime_ns == before
    assert again.window(Query(), 0, 5)["total"] == 2
    again.close()
    cassette.write_text(CASSETTE.replace("/v2/settings", "/v2/other"))
    changed = offline_view([cassette], in_force)
    assert changed._index.path == cached and cached.stat().st_mtime_ns != before  # replaced, not added
    assert changed.window(Query(path="/v2/other"), 0, 5)["total"] == 1
    changed.close()
    assert [file.name for file in cached.parent.iterdir()] == [cached.name]


@pytest.mark.parametrize("later_from", [0, 10**9])
def test_a_set_indexed_text_later_is_cached_once_its_text_is_in(
    later_from: int, tmp_path: Path, in_force: RulesInForce, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`commerce-proxy ui`'s view (`text_later`): from TEXT_LATER_FROM exchanges the rows answer first
    and the cache is written by the fill's thread when the text is in; below it, as before."""
    monkeypatch.setattr(traffic_view, "TEXT_LATER_FROM", later_from)
    cassette = tmp_path / "a.yaml"
    cassette.write_text(CASSETTE)
    first = offline_view([cassette], in_force, text_later=True)
    assert first._index.text_wait(30)
    cache = tmp_path / "cache"
    assert [file.suffix for file in cache.iterdir()] == [".sqlite"]
    texts = (
        first.window(Query(text="grant_type"), 0, 5)["total"],
        first.counts(Query(text="expires"))["total"],
    )
    assert texts == (1, 1)
    first.close()
    again = offline_view([cassette], in_force, text_later=True)
    assert again._index.path.parent == cache
    assert again.window(Query(text="grant_type"), 0, 5)["total"] == 1
    assert again.counts(Query(text="expires"))["total"] == 1
    again.close()


def test_journals_and_har_files_open_too(tmp_path: Path, in_force: RulesInForce) -> None:
    har = tmp_path / "t.har"
    entry = {
        "startedDateTime": "2026-11-22T03:11:09Z", "time": 3,
        "request": {"method": "GET", "url": f"http://127.0.0.1:9/v2/products?api_key={SECRET}", "httpVersion": "HTTP/1.1",
                    "headers": [{"name": "Authorization", "value": f"Bearer {SECRET}"}], "queryString": [],
                    "cookies": [], "headersSize": -1, "bodySize": 0},
        "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1",
                     "headers": [{"name": "Content-Type", "value": "application/json"}], "cookies": [],
                     "content": {"size": 11, "mimeType": "application/json", "text": '{"data": []}'},
                     "redirectURL": "", "headersSize": -1, "bodySize": 11},
        "cache": {}, "timings": {"send": 0, "wait": 3, "receive": 0},
    }  # fmt: skip
    har.write_text(
        json.dumps({"log": {"version": "1.2", "creator": {"name": "t", "version": "1"}, "entries": [entry]}})
    )
    journal = tmp_path / "rec.yaml.journal"
    header = {"commerce_proxy_journal": 1, "mode": "replace"}
    recorded = Exchange(
        Request("GET", "/v2/x", headers=(("Authorization", f"Bearer {SECRET}"),)),
        Response(200, (), Body("text", "hello journal")),
    )
    journal.write_bytes(json.dumps(header).encode() + b"\n" + journal_line(0, recorded))
    view = offline_view([har, journal], in_force, cache=False)
    try:
        rows = view.window(Query(), 0, 10)["exchanges"]
        assert [(row["method"], row["path"].split("?")[0]) for row in rows] == [
            ("GET", "/v2/products"),
            ("GET", "/v2/x"),
        ]
        assert SECRET not in json.dumps(rows) and SECRET not in json.dumps(view.exchange(1))
        assert view.window(Query(text="hello"), 0, 10)["total"] == 1
    finally:
        view.close()


def test_a_live_view_indexes_what_the_live_checker_follows(in_force: RulesInForce) -> None:
    live = LiveChecker(Checker(in_force.ruleset, in_force.project.config))
    view = live_view("record", live, in_force, sources=["http://127.0.0.1:9"], cassette="rec.yaml")

    async def scenario() -> tuple[int, int]:
        waiting = asyncio.ensure_future(view.wait(0, 5))
        await asyncio.sleep(0)
        exchange = Exchange(
            Request("GET", "/v2/settings", headers=(("Authorization", "Bearer <redacted>"),)),
            Response(200, (("Content-Type", "application/json"),), JSONFromText(text='{"a": 1}')),
        )
        live.check(exchange, 0)
        moved = await waiting
        return moved, await view.wait(moved, 0.01)

    try:
        moved, unchanged = asyncio.run(scenario())
        assert moved == 1 and unchanged == 1
        rows = view.changes(0)["exchanges"]
        assert rows[0]["path"] == "/v2/settings" and rows[0]["findings"]["info"] == 1
        assert (rows[0]["cassette"], rows[0]["index"]) == ("rec.yaml", 0)
        assert view.info()["mode"] == "record" and view.info()["cursor"] == 1
        view.add_answered(
            Exchange(Request("GET", "/v2/y", f"access_token={SECRET}", (("Authorization", f"Bearer {SECRET}"),)),
                     Response(200, (), Body("text", "ok"))),
            [],
            Answered("miss", None, "near miss: the query differs"),
        )  # fmt: skip
        view.flush()
        last = view.exchange(2)
        assert last is not None and last["answered"] == {
            "by": "miss",
            "recording": None,
            "detail": "near miss: the query differs",
        }
        assert SECRET not in json.dumps(last)
        assert view._index.path is None  # a temporary index: no name in any folder
    finally:
        view.close()


def test_windows_are_bounded_and_a_failed_build_says_why_in_one_line(
    tmp_path: Path, in_force: RulesInForce, monkeypatch: pytest.MonkeyPatch
) -> None:
    cassette = tmp_path / "a.yaml"
    cassette.write_text(CASSETTE)
    view = offline_view([cassette], in_force, cache=False)
    try:
        window = view.window(Query(), -5, 10_000)
        assert (window["offset"], window["limit"], window["total"]) == (0, 500, 2)
        assert view.changes(-1, 1) == {"cursor": 1, "exchanges": view.window(Query(), 0, 1)["exchanges"]}
    finally:
        view.close()

    def full(self: object, entries: object) -> int:
        raise CommerceProxyError("traffic.sqlite: cannot add to the UI's index: database or disk is full")

    monkeypatch.setattr(TrafficIndex, "add_prepared", full)  # where every add goes
    with pytest.raises(CommerceProxyError, match="disk is full"):
        offline_view([cassette], in_force, cache=False)
    with pytest.raises(CommerceProxyError, match="no such file or folder"):
        offline_view([tmp_path / "missing.yaml"], in_force)


@pytest.mark.parametrize("burst", [1, 63, 64, 65, 500, 2_000])
def test_a_live_burst_holds_a_bounded_number_of_exchanges_and_loses_none(
    in_force: RulesInForce, burst: int
) -> None:
    """However fast exchanges come (here: with the indexing thread stopped, so it never takes any), at
    most MOST_PENDING wait for the index at once; every one is indexed, in the order it came. Before,
    3,000 replayed 20 KB answers sent at once were all held until the thread woke (RSS +290 MB)."""
    from proxy.app.live_traffic import MOST_PENDING

    view = live_view("replay", None, in_force)
    indexer = view.indexer
    assert indexer is not None
    indexer._stop.set()
    indexer._thread.join(timeout=5)
    most = 0
    try:
        for number in range(burst):
            answer = Response(200, (), Body("text", f"answer {number}"))
            view.add_answered(Exchange(Request("GET", f"/v2/n/{number}"), answer), [], Answered("miss"))
            most = max(most, len(indexer._pending))
        assert most < MOST_PENDING
        view.flush()
        rows = view.window(Query(), 0, 500)
        assert rows["total"] == burst
        assert [row["path"] for row in rows["exchanges"]] == [f"/v2/n/{n}" for n in range(min(burst, 500))]
    finally:
        view.close()
