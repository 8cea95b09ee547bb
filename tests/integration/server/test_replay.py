"""The replay server on a real socket: faithful answers, sequences, link rewriting, misses."""

from __future__ import annotations

import base64
import json
from urllib.parse import unquote

import aiohttp
import pytest
from yarl import URL

from proxy.core.cassette.document import Cassette
from proxy.core.model.access import TOKEN_HEADER, TOKEN_VARIABLE
from proxy.core.model.exchange import Body, Exchange, Request, Response
from proxy.core.redaction.redact import RedactionPolicy
from proxy.core.replay.book import ReplayBook
from proxy.core.replay.matching import MatchPolicy
from proxy.server.replay import create_replay_app
from tests.conftest import Serve, json_body, make_exchange, make_request
from tests.paths import TESTS

UPSTREAM = "https://useast.api.example.com"
JSON_HEADERS = (
    ("Content-Type", "application/json"),
    ("Content-Length", "999"),
    ("Connection", "keep-alive"),
    ("Transfer-Encoding", "chunked"),
    ("X-Request-Id", "abc"),
)


async def replay(serve: Serve, *exchanges: Exchange) -> str:
    book = ReplayBook.build([("c.yaml", Cassette(exchanges, UPSTREAM))], MatchPolicy(), RedactionPolicy())
    return await serve(create_replay_app(book))


async def test_json_answer_keeps_status_key_order_and_end_to_end_headers(serve: Serve) -> None:
    """Status, headers less hop-by-hop (Content-Length recomputed) and the JSON in its key order."""
    document = {"z": 1, "a": {"y": [1, "é"], "b": None}}
    url = await replay(serve, make_exchange(status=201, body=json_body(document), headers=JSON_HEADERS))
    async with aiohttp.ClientSession() as session, session.get(f"{url}/v2/products") as answer:
        raw = await answer.read()
        assert answer.status == 201
        assert raw == '{"z":1,"a":{"y":[1,"é"],"b":null}}'.encode()
        assert answer.headers["Content-Length"] == str(len(raw))
        assert answer.headers["X-Request-Id"] == "abc"
        assert "Transfer-Encoding" not in answer.headers


async def test_non_json_bodies_are_the_same_bytes(serve: Serve) -> None:
    """Text and binary answers come back byte for byte; a decoded gzip body loses its Content-Encoding."""
    text = make_exchange(
        make_request(path="/t"), body=Body("text", "a\r\nb "), headers=(("Content-Type", "text/plain"),)
    )
    binary = make_exchange(
        make_request(path="/b"),
        body=Body("base64", base64.b64encode(b"\x00\xff").decode(), decoded_from="gzip"),
        headers=(("Content-Type", "application/octet-stream"), ("Content-Encoding", "gzip")),
    )
    url = await replay(serve, text, binary)
    async with aiohttp.ClientSession(auto_decompress=False) as session:
        async with session.get(f"{url}/t") as answer:
            assert await answer.read() == b"a\r\nb "
        async with session.get(f"{url}/b") as answer:
            assert await answer.read() == b"\x00\xff"
            assert "Content-Encoding" not in answer.headers


async def test_absolute_links_move_to_the_replay_origin(serve: Serve) -> None:
    """Links and Location at the recorded upstream point at the replay server; relative ones stay."""
    body = {
        "links": {"next": f"{UPSTREAM}/v2/products?page[limit]=2&page[offset]=2", "self": "/extensions/x/1"}
    }
    exchange = make_exchange(
        body=json_body(body),
        headers=(("Content-Type", "application/json"), ("Location", f"{UPSTREAM}/v2/products/1")),
    )
    url = await replay(serve, exchange)
    async with aiohttp.ClientSession() as session, session.get(f"{url}/v2/products") as answer:
        links = (await answer.json())["links"]
        assert links == {"next": f"{url}/v2/products?page[limit]=2&page[offset]=2", "self": "/extensions/x/1"}
        assert answer.headers["Location"] == f"{url}/v2/products/1"


async def test_sequences_play_in_order_repeat_the_last_and_rewind_on_reset(
    serve: Serve, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before and after an update get both versions; past the end the last repeats; reset (with the
    server's token, from COMMERCE_PROXY_UI_TOKEN) rewinds."""
    monkeypatch.setenv(TOKEN_VARIABLE, "reset-token-0123456789abcdef")
    entry = make_request(path="/v2/extensions/w/1")
    url = await replay(
        serve, make_exchange(entry, body=json_body({"v": 1})), make_exchange(entry, body=json_body({"v": 2}))
    )
    async with aiohttp.ClientSession() as session:
        seen = []
        for _ in range(3):
            async with session.get(f"{url}/v2/extensions/w/1") as answer:
                seen.append((await answer.json())["v"])
        async with session.post(f"{url}/_proxy/reset") as answer:
            assert answer.status == 403  # no token
        headers = {TOKEN_HEADER: "reset-token-0123456789abcdef"}
        async with session.post(f"{url}/_proxy/reset", headers=headers) as answer:
            assert answer.status == 200
        async with session.get(f"{url}/v2/extensions/w/1") as answer:
            seen.append((await answer.json())["v"])
    assert seen == [1, 2, 2, 1]


async def test_a_miss_is_a_404_in_the_api_error_shape_with_closest_recordings(serve: Serve) -> None:
    """No match: 404, X-Commerce-Proxy: no-match, closest recordings and differences, secrets redacted."""
    recorded = [
        make_exchange(make_request(query=f"page[offset]={offset}&api_key=<redacted>"))
        for offset in (0, 10, 20, 30)
    ]
    url = await replay(serve, *recorded)
    async with (
        aiohttp.ClientSession() as session,
        session.get(URL(f"{url}/v2/products?page[offset]=25&api_key=s3cr3t", encoded=True)) as answer,
    ):
        assert answer.status == 404
        assert answer.headers["X-Commerce-Proxy"] == "no-match"
        text = await answer.text()
        error = (await answer.json())["errors"][0]
    assert "s3cr3t" not in text
    assert (error["status"], error["title"]) == ("404", "No recorded exchange matches")
    assert (
        error["detail"] == "GET /v2/products?page[offset]=25&api_key=<redacted> matches no recorded exchange"
    )
    closest = error["meta"]["closest"]
    assert [miss["index"] for miss in closest] == [0, 1, 2]
    assert closest[1]["differences"] == [{"where": "query.page[offset]", "expected": "10", "found": "25"}]


async def test_health_and_unknown_admin_paths(serve: Serve) -> None:
    """/_proxy/health answers 200; other /_proxy/ paths are 404 and never matched against recordings."""
    url = await replay(serve, make_exchange(make_request(path="/_proxy/other")))
    async with aiohttp.ClientSession() as session:
        async with session.get(f"{url}/_proxy/health") as answer:
            assert answer.status == 200 and (await answer.json())["exchanges"] == 1
        async with session.get(f"{url}/_proxy/other") as answer:
            assert answer.status == 404 and "X-Commerce-Proxy" not in answer.headers


async def test_requests_match_with_real_secrets_in_form_bodies(serve: Serve) -> None:
    """A token request with the real client secret matches the redacted recording."""
    form = (("Content-Type", "application/x-www-form-urlencoded"),)
    recorded = Exchange(
        Request(
            "POST",
            "/oauth/access_token",
            "",
            form,
            Body("text", "grant_type=client_credentials&client_secret=<redacted>"),
        ),
        Response(200, (("Content-Type", "application/json"),), json_body({"access_token": "<redacted>"})),
    )
    url = await replay(serve, recorded)
    async with aiohttp.ClientSession() as session:
        data = {"client_secret": "real-secret", "grant_type": "client_credentials"}
        async with session.post(f"{url}/oauth/access_token", data=data) as answer:
            assert answer.status == 200


async def test_a_gzip_request_body_matches_by_meaning(serve: Serve) -> None:
    """A client that compresses its JSON body still matches the recording of that JSON."""
    import gzip

    recorded = make_exchange(
        make_request("PUT", "/v2/x", body=json_body({"data": {"a": 1}})), body=json_body({"ok": True})
    )
    url = await replay(serve, recorded)
    headers = {"Content-Type": "application/json", "Content-Encoding": "gzip"}
    async with (
        aiohttp.ClientSession() as session,
        session.put(f"{url}/v2/x", data=gzip.compress(b'{"data": {"a": 1}}'), headers=headers) as answer,
    ):
        assert answer.status == 200 and await answer.json() == {"ok": True}


async def test_replay_check_checks_each_answer_served_but_not_a_miss(serve: Serve) -> None:

    from proxy.core.rules.engine import Checker, LiveChecker
    from proxy.store.cassette_reader.loading import load_cassette
    from proxy.store.rule_files import load_rules
    from proxy.store.shipped import shipped_dir

    source = TESTS / "example" / "cassettes" / "test_catalog" / "test_entry_etag_is_weak.yaml"
    cassette = load_cassette(source).cassette
    entry = cassette.exchanges[1]
    headers = tuple(
        (name, 'W/"' + "0" * 64 + '"' if name == "ETag" else value) for name, value in entry.response.headers
    )
    broken = Exchange(entry.request, Response(entry.response.status, headers, entry.response.body))
    book = ReplayBook.build([("broken", Cassette(exchanges=(broken,)))], MatchPolicy(), RedactionPolicy())
    live = LiveChecker(Checker(load_rules(shipped_dir("rules"))))
    heard: list[str] = []
    live.follow(lambda checked: heard.extend(finding.rule for finding in checked.findings))
    base = await serve(create_replay_app(book, live=live))
    async with aiohttp.ClientSession() as session:
        async with session.get(base + entry.request.target, headers={"Authorization": "Bearer t"}) as answer:
            assert answer.status == 200
        async with session.get(base + "/v2/brands", headers={"Authorization": "Bearer t"}) as missed:
            assert missed.status == 404
        async with session.get(base + "/_proxy/findings") as answer:
            document = await answer.json()
    assert document["exchanges"] == 1  # the miss was not checked
    assert [finding["rule"] for finding in document["findings"]] == ["entry.etag.matches-etag-id"]
    assert heard == ["entry.etag.matches-etag-id"]
    unchecked = await serve(create_replay_app(book))
    async with aiohttp.ClientSession() as session, session.get(unchecked + "/_proxy/findings") as answer:
        assert answer.status == 404
        assert "--check" in (await answer.json())["errors"][0]["detail"]


async def test_replay_check_numbers_a_finding_by_its_recording_in_the_cassette(serve: Serve) -> None:
    """One numbering: a finding on a replayed answer names the cassette and the index `cassette show
    FILE N` opens, whatever order the requests come in; a simulated answer's are numbered apart."""
    from proxy.core.rules.engine import Checker, LiveChecker
    from proxy.core.rules.findings import SIMULATED
    from proxy.store.rule_files import load_rules
    from proxy.store.shipped import shipped_dir

    def listed(offset: int, records: int) -> Exchange:
        page = {"limit": 2, "offset": offset, "current": offset // 2 + 1, "total": 3}
        body = {"data": [], "links": {}, "meta": {"page": page, "results": {"total": records}}}
        query = f"page[limit]=2&page[offset]={offset}"
        request = Request("GET", "/v2/products", query, (("Authorization", "Bearer t"),))
        return Exchange(request, Response(200, (("Content-Type", "application/json"),), Body("json", body)))

    recorded = Cassette(exchanges=(listed(0, 6), listed(2, 6), listed(4, 6)))
    book = ReplayBook.build([("walk.yaml", recorded)], MatchPolicy(), RedactionPolicy(), simulate=True)
    live = LiveChecker(Checker(load_rules(shipped_dir("rules"))))
    base = await serve(create_replay_app(book, live=live))
    async with aiohttp.ClientSession() as session:
        for offset in (4, 0, 6):  # the last one was never recorded: the simulator answers it
            async with session.get(
                f"{base}/v2/products?page[limit]=2&page[offset]={offset}",
                headers={"Authorization": "Bearer t"},
            ) as answer:
                assert answer.status == 200
        async with session.get(base + "/_proxy/findings") as answer:
            document = await answer.json()
    numbered = {
        (finding["cassette"], finding["exchange"], unquote(finding["target"]))
        for finding in document["findings"]
    }
    recorded_ones = {item for item in numbered if item[0] == "walk.yaml"}
    assert recorded_ones == {
        ("walk.yaml", 2, "/v2/products?page[limit]=2&page[offset]=4"),
        ("walk.yaml", 0, "/v2/products?page[limit]=2&page[offset]=0"),
    }
    # The made-up page is never numbered as if the cassette held it.
    assert all(cassette == SIMULATED for cassette, _, target in numbered if target.endswith("offset]=6"))


def test_people_see_a_simulated_answers_number_apart_from_the_cassettes() -> None:
    from proxy.core.rules.findings import SIMULATED, Finding

    def numbered(cassette: str) -> str:
        return Finding(3, "GET", "/v2/x", "/v2/x", "r", "error", "s", "m", "w", "e", "f", cassette).number

    assert numbered("walk.yaml") == "#3"
    assert numbered(SIMULATED) == "simulated #3"


async def test_a_week_old_token_answer_is_not_expired_when_replayed(serve: Serve) -> None:
    """expires becomes now plus expires_in and Date now, every other byte as recorded; --time
    recorded keeps both."""
    import time
    from email.utils import parsedate_to_datetime

    from proxy.app.replay_setup import ReplayOptions
    from proxy.core.model.json_text import loads_exact

    week_ago = int(time.time()) - 7 * 86_400
    text = f'{{"access_token": "<redacted>", "expires": {week_ago + 3600}, "expires_in": 3600, "token_type": "Bearer"}}'
    token = Exchange(
        Request("POST", "/oauth/access_token", "", (("Content-Type", "application/x-www-form-urlencoded"),)),
        Response(
            200,
            (("Content-Type", "application/json"), ("Date", "Mon, 16 Nov 2026 09:00:00 GMT")),
            Body("json", loads_exact(text)),
        ),
    )
    book = ReplayBook.build([("t.yaml", Cassette(exchanges=(token,)))], MatchPolicy(), RedactionPolicy())
    moved = await serve(create_replay_app(book))
    kept = await serve(create_replay_app(book, ReplayOptions(time="recorded")))
    async with aiohttp.ClientSession() as session:
        async with session.post(f"{moved}/oauth/access_token") as answer:
            now_body, now_date = await answer.read(), answer.headers["Date"]
        async with session.post(f"{kept}/oauth/access_token") as answer:
            old_body, old_date = await answer.read(), answer.headers["Date"]
    document = json.loads(now_body)
    assert abs(document["expires"] - (time.time() + 3600)) < 60
    assert abs(parsedate_to_datetime(now_date).timestamp() - time.time()) < 60
    assert now_body.replace(str(document["expires"]).encode(), str(week_ago + 3600).encode()) == old_body
    assert json.loads(old_body)["expires"] == week_ago + 3600 and old_date == "Mon, 16 Nov 2026 09:00:00 GMT"


@pytest.mark.parametrize(
    ("recorded", "said"),
    [("186", "186"), ("0", "0"), ("1000000", "1000000"), (None, "0"), ("abc", "0"), ("12, 13", "0")],
)
async def test_a_head_answer_keeps_the_length_it_was_recorded_with(
    serve: Serve, recorded: str | None, said: str
) -> None:
    """A HEAD answer's Content-Length is the GET body's it stands for (RFC 9110): replayed as recorded
    when it is one whole number; a GET of the same path still gets its own body and length, and the
    connection stays usable after both (the framing is right)."""
    head_headers = (("Content-Type", "application/json"),) + (
        () if recorded is None else (("Content-Length", recorded),)
    )
    head = Exchange(Request("HEAD", "/v2/head"), Response(200, head_headers, Body("empty", None)))
    get = make_exchange(make_request(path="/v2/head"), body=json_body({"a": 1}), headers=JSON_HEADERS)
    url = await replay(serve, head, get)
    async with aiohttp.ClientSession() as session:
        for _ in range(2):  # one keep-alive connection, used again after each
            async with session.head(f"{url}/v2/head") as answer:
                assert answer.status == 200 and answer.headers["Content-Length"] == said
            async with session.get(f"{url}/v2/head") as answer:
                raw = await answer.read()
                assert raw == b'{"a":1}' and answer.headers["Content-Length"] == str(len(raw))
