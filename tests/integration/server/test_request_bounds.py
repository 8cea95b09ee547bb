"""What one request can make a server do is bounded: a huge miss is explained within a budget while
another client is answered, and oversized page parameters or cassette names are a 4xx with a clear body."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path

import aiohttp
import pytest

from proxy.app.recording import RecordingSession, RecordSettings
from proxy.app.replay_setup import ReplayOptions
from proxy.core.cassette.document import Cassette
from proxy.core.model.exchange import Exchange
from proxy.core.redaction.policy import body_text
from proxy.core.redaction.redact import RedactionPolicy
from proxy.core.replay.book import ReplayBook
from proxy.core.replay.matching import NAMED_PER_RECORDING, MatchPolicy
from proxy.server.record import create_record_app
from proxy.server.replay import create_replay_app
from proxy.server.serving import start
from proxy.store.cassette_reader.loading import load_cassette
from proxy.store.saving import save_cassette
from tests.conftest import make_exchange, make_request
from tests.integration.server.test_simulate import Twin, assert_same, twin  # noqa: F401  (the fixture)
from tests.integration.server.upstream import create_upstream_app


async def test_a_huge_miss_is_explained_briefly_while_another_client_is_answered() -> None:
    """6,000 query parameters against 3,000 recordings: the 404 names 50 differences per near miss and
    counts the rest, and a health check sent meanwhile on another connection is answered."""
    exchanges = tuple(make_exchange(make_request(query=f"id={number}")) for number in range(3_000))
    book = ReplayBook.build([("c.yaml", Cassette(exchanges))], MatchPolicy(), RedactionPolicy())
    runner, url = await start(create_replay_app(book), "127.0.0.1", 0)
    query = "&".join(f"p{number}=x" for number in range(6_000))
    try:
        async with aiohttp.ClientSession() as session:

            async def huge() -> tuple[int, dict[str, object]]:
                async with session.get(f"{url}/v2/products?{query}") as answer:
                    return answer.status, await answer.json()

            async def health() -> int:
                async with session.get(f"{url}/_proxy/health") as answer:
                    return answer.status

            (status, document), healthy = await asyncio.gather(huge(), health())
    finally:
        await runner.cleanup()
    assert healthy == 200
    assert status == 404
    closest = document["errors"][0]["meta"]["closest"]  # type: ignore[index]
    assert closest and all(len(near["differences"]) == NAMED_PER_RECORDING for near in closest)
    assert all(near["more_differences"] > 5_000 for near in closest)


async def test_an_unusable_cassette_name_is_a_400(tmp_path: Path) -> None:
    """X-Commerce-Cassette of every length around the file system's limit, and long parts: a 400 in the
    API's error shape, never a 500."""
    (tmp_path / "ok.yaml").write_text("")
    book = ReplayBook.build([], MatchPolicy(), RedactionPolicy())
    runner, url = await start(create_replay_app(book, ReplayOptions(folder=tmp_path)), "127.0.0.1", 0)
    names = ["a" * length for length in range(245, 262)] + [
        "a" * 300,
        "d/" + "b" * 254,
        "c" * 100 + "/" + "e" * 300,
    ]
    try:
        async with aiohttp.ClientSession() as session:
            for name in names:
                async with session.get(f"{url}/v2/x", headers={"X-Commerce-Cassette": name}) as answer:
                    assert answer.status == 400, (len(name), await answer.text())
                    assert "cassette" in (await answer.json())["errors"][0]["detail"]
    finally:
        await runner.cleanup()


async def test_page_parameters_with_many_digits_are_refused_like_the_service(twin: Twin) -> None:  # noqa: F811
    """Offsets and limits of 13 to 5,000 digits (past int()'s 4,300), signed and zero-padded: the
    simulated answer is the sandbox's 400, not a 500 or a slow answer."""
    for name in ("page[limit]", "page[offset]"):
        for digits in (13, 50, 4_300, 4_301, 5_000):
            for value in ("9" * digits, "-" + "9" * digits, "0" * 20 + "9" * digits):
                for path in ("/v2/customers", "/v2/orders"):
                    simulated, live = await twin.both("GET", f"{path}?{name}={value}")
                    assert live.status == 400, (name, digits)
                    assert_same(simulated, live)
    assert json.dumps(simulated.document).count("9") < 100  # the value is not echoed whole


def padded_values() -> list[str]:
    """Small values behind thousands of leading zeros (int() counts them too), signed or not, blank-padded."""
    values = []
    for zeros in (4_299, 4_300, 4_301, 5_000, 7_000):  # a request line stays under the sandbox's 8 KB
        for significant in ("", "1", "5", "25", "9" * 12, "9" * 13):
            for sign in ("", "-"):
                values.append(f"{sign}{'0' * zeros}{significant}")
    return values


async def test_zero_padded_page_parameters_are_read_like_the_service(twin: Twin) -> None:  # noqa: F811
    """However many leading zeros, a page parameter is the number its digits spell: the simulated answer
    is the sandbox's (a page, or its 400), never a 500."""
    values = padded_values()
    assert len(values) == 60
    for name in ("page[limit]", "page[offset]"):
        for value in values:
            simulated, live = await twin.both("GET", f"/v2/customers?{name}={value}")
            assert live.status in (200, 400), (name, len(value), live.status)
            assert_same(simulated, live)


async def test_a_cassette_whose_name_is_near_the_file_system_limit_is_served(tmp_path: Path) -> None:
    """Cassettes named with 240 to 255 bytes exist, so their journal's name (8 bytes longer) cannot: each
    is served by name, not a 500."""
    recorded = make_exchange(make_request(path="/v2/x"))
    names = ["a" * (length - len(".yaml")) for length in range(240, 256)]
    for name in names:
        save_cassette(tmp_path / f"{name}.yaml", Cassette((recorded,)))
    book = ReplayBook.build([], MatchPolicy(), RedactionPolicy())
    runner, url = await start(create_replay_app(book, ReplayOptions(folder=tmp_path)), "127.0.0.1", 0)
    try:
        async with aiohttp.ClientSession() as session:
            for name in names:
                async with session.get(f"{url}/v2/x", headers={"X-Commerce-Cassette": name}) as answer:
                    assert answer.status == 200, (len(name), await answer.text())
    finally:
        await runner.cleanup()


@pytest.mark.parametrize("size", [300 * 1024, 900 * 1024])
async def test_record_answers_other_clients_while_it_redacts_a_large_exchange(
    tmp_path: Path, size: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Redacting a large exchange (its secrets searched in time linear in its size) runs off the event
    loop: held there until another client has been answered, the large exchange is then recorded."""
    upstream_runner, upstream_url = await start(create_upstream_app(), "127.0.0.1", 0)
    app = create_record_app(RecordSettings(upstream=upstream_url, cassette=tmp_path / "big.yaml"))
    runner, url = await start(app, "127.0.0.1", 0)
    other_answered = threading.Event()
    held = threading.Event()
    redacted = RecordingSession.redacted

    def slow_redaction(session: RecordingSession, exchange: Exchange) -> Exchange:
        if len(body_text(exchange.request.body)) >= size:
            held.set()
            assert other_answered.wait(20), (
                "the event loop answered nobody while a large exchange was redacted"
            )
        return redacted(session, exchange)

    monkeypatch.setattr(RecordingSession, "redacted", slow_redaction)
    try:
        async with aiohttp.ClientSession() as session:
            big = asyncio.ensure_future(session.post(f"{url}/v2/upload", data=b"x" * size))
            for _ in range(2000):  # until the large exchange is being redacted (20 s at most)
                if held.is_set() or big.done():
                    break
                await asyncio.sleep(0.01)
            assert held.is_set(), "the large exchange never reached redaction"
            async with session.get(f"{url}/_proxy/health") as answer:
                assert answer.status == 200
            other_answered.set()
            async with await big as answer:
                assert answer.status == 200
    finally:
        other_answered.set()
        await runner.cleanup()
        await upstream_runner.cleanup()
    assert len(load_cassette(tmp_path / "big.yaml").cassette.exchanges) == 1
