"""Replay beyond one cassette: choosing a cassette per request, usage, latency and injected faults."""

from __future__ import annotations

import time
from pathlib import Path

import aiohttp
import pytest

from proxy.app.replay_setup import ReplayOptions
from proxy.core.cassette.document import Cassette
from proxy.core.model.exchange import Exchange
from proxy.core.redaction.redact import RedactionPolicy
from proxy.core.replay.book import ReplayBook
from proxy.core.replay.faults import Fault, Latency
from proxy.core.replay.matching import MatchPolicy
from proxy.errors import UsageError
from proxy.server.replay import create_replay_app
from proxy.store.cassette_reader.loading import load_cassettes
from proxy.store.saving import save_cassette
from tests.conftest import Serve, json_body, make_exchange, make_request


def answering(path: str, value: str, duration_ms: float | None = None) -> Exchange:
    exchange = make_exchange(make_request(path=path), body=json_body({"from": value}))
    return Exchange(exchange.request, exchange.response, duration_ms=duration_ms)


def folder_of(tmp_path: Path) -> Path:
    """Two cassettes recording /v2/a differently, one more below a subfolder, and a secret outside."""
    folder = tmp_path / "cassettes"
    (folder / "team").mkdir(parents=True)
    save_cassette(
        folder / "first.yaml", Cassette((answering("/v2/a", "first"), answering("/v2/only-first", "x")))
    )
    save_cassette(folder / "second.yaml", Cassette((answering("/v2/a", "second"),)))
    save_cassette(folder / "team" / "third.yml", Cassette((answering("/v2/a", "third"),)))
    save_cassette(tmp_path / "outside.yaml", Cassette((answering("/v2/a", "outside"),)))
    (folder / "escape.yaml").symlink_to(tmp_path / "outside.yaml")
    return folder


async def replay_of(serve: Serve, paths: list[Path], options: ReplayOptions) -> str:
    loaded = load_cassettes(paths)
    book = ReplayBook.build(
        [(str(one.path), one.cassette) for one in loaded], MatchPolicy(), RedactionPolicy()
    )
    return await serve(create_replay_app(book, options))


async def get(session: aiohttp.ClientSession, url: str, **headers: str) -> tuple[int, dict[str, str], object]:
    async with session.get(url, headers=headers) as answer:
        return answer.status, {k.lower(): v for k, v in answer.headers.items()}, await answer.json()


async def test_the_cassette_header_picks_one_cassette_of_the_folder(serve: Serve, tmp_path: Path) -> None:
    """Without the header the cassettes answer in the order given; with it, only the named one does."""
    folder = folder_of(tmp_path)
    url = await replay_of(
        serve, [folder / "second.yaml", folder / "first.yaml"], ReplayOptions(folder=folder)
    )
    async with aiohttp.ClientSession() as session:
        assert (await get(session, f"{url}/v2/a"))[2] == {"from": "second"}
        for name, expected in (("first", "first"), ("first.yaml", "first"), ("team/third", "third")):
            status, _, body = await get(session, f"{url}/v2/a", **{"X-Commerce-Cassette": name})
            assert (status, body) == (200, {"from": expected}), name
        # Each chosen cassette keeps its own sequence: first.yaml answers /v2/only-first, second.yaml does not.
        status, headers, body = await get(
            session, f"{url}/v2/only-first", **{"X-Commerce-Cassette": "second"}
        )
        assert status == 404 and headers["x-commerce-proxy"] == "no-match"


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("../outside", "relative name inside the cassette folder"),
        ("/etc/passwd", "relative name inside the cassette folder"),
        ("team/../../outside", "relative name inside the cassette folder"),
        ("escape", "leads outside the cassette folder"),
        ("nope", "no cassette 'nope'"),
        ("a\\b", "backslash"),
    ],
)
async def test_cassette_names_cannot_leave_the_folder(
    serve: Serve, tmp_path: Path, name: str, problem: str
) -> None:
    folder = folder_of(tmp_path)
    url = await replay_of(serve, [folder / "first.yaml"], ReplayOptions(folder=folder))
    async with aiohttp.ClientSession() as session:
        status, headers, body = await get(session, f"{url}/v2/a", **{"X-Commerce-Cassette": name})
    assert status == 400 and headers["x-commerce-proxy"] == "bad-cassette"
    assert problem in body["errors"][0]["detail"]  # type: ignore[index]


async def test_usage_names_unused_recordings_and_misses(serve: Serve, tmp_path: Path) -> None:
    folder = folder_of(tmp_path)
    report = tmp_path / "usage.json"
    options = ReplayOptions(folder=folder, usage_report=report)
    url = await replay_of(serve, [folder / "first.yaml", folder / "second.yaml"], options)
    async with aiohttp.ClientSession() as session:
        await get(session, f"{url}/v2/a")
        await get(session, f"{url}/v2/a")  # the sequence continues into second.yaml
        await get(session, f"{url}/v2/missing")
        await get(session, f"{url}/v2/missing")
        await get(session, f"{url}/v2/a", **{"X-Commerce-Cassette": "team/third"})
        async with session.get(f"{url}/_proxy/usage") as answer:
            usage = await answer.json()
    assert usage["requests"] == {"recorded": 3, "simulated": 0, "missed": 2}
    by_name = {cassette["cassette"]: cassette for cassette in usage["cassettes"]}
    first = by_name[str(folder / "first.yaml")]
    assert (first["exchanges"], first["used"]) == (2, 1)
    assert first["unused"] == [{"index": 1, "method": "GET", "target": "/v2/only-first", "status": 200}]
    assert by_name[str(folder / "second.yaml")]["unused"] == []
    assert by_name[str(folder / "team" / "third.yml")]["used"] == 1
    assert usage["misses"] == [
        {"method": "GET", "target": "/v2/missing", "cassette": None, "count": 2, "reason": None}
    ]


async def test_latency_waits_the_recorded_or_a_fixed_time(serve: Serve, tmp_path: Path) -> None:
    """Lower bounds only: a shared machine may be slower, never faster."""
    path = tmp_path / "slow.yaml"
    save_cassette(path, Cassette((answering("/v2/a", "a", duration_ms=400.0),)))
    recorded = await replay_of(serve, [path], ReplayOptions(latency=Latency.parse("recorded")))
    fixed = await replay_of(serve, [path], ReplayOptions(latency=Latency.parse("250ms")))
    async with aiohttp.ClientSession() as session:
        for url, at_least in ((recorded, 0.4), (fixed, 0.25)):
            started = time.monotonic()
            assert (await get(session, f"{url}/v2/a"))[0] == 200
            assert time.monotonic() - started >= at_least


def test_latency_and_fault_options_refuse_nonsense() -> None:
    for text, problem in (("soon", "expected recorded, none or milliseconds"), ("-5", "outside 0 to 600000")):
        with pytest.raises(UsageError, match=problem):
            Latency.parse(text)
    for text, problem in (
        ("404:1", "kind must be one of"),
        ("503:often", "share must be like 0.1 or 10%"),
        ("503:150%", "between 0 and 1"),
        ("503:1:v2/orders", "must start with '/'"),
        ("503:1:GE+T /v2", "matcher must be"),
    ):
        with pytest.raises(UsageError, match=problem):
            Fault.parse(text)


async def test_status_faults_hit_the_chosen_share_the_same_way_for_the_same_seed(
    serve: Serve, tmp_path: Path
) -> None:
    path = tmp_path / "c.yaml"
    save_cassette(path, Cassette(tuple(answering(f"/v2/r{number}", "r") for number in range(100))))
    faults = (Fault.parse("503:30%"),)
    urls = [
        await replay_of(serve, [path], ReplayOptions(faults=faults, fault_seed=seed)) for seed in (7, 7, 8)
    ]
    outcomes = []
    async with aiohttp.ClientSession() as session:
        for url in urls:
            statuses = []
            for number in range(100):
                status, headers, body = await get(session, f"{url}/v2/r{number}")
                statuses.append(status)
                if status == 503:
                    assert headers["x-commerce-proxy"] == "fault"
                    assert body["errors"][0]["title"] == "Service Unavailable"  # type: ignore[index]
            outcomes.append(statuses)
    assert outcomes[0] == outcomes[1]  # the same seed: the same requests fail
    assert outcomes[0] != outcomes[2]
    assert 15 <= outcomes[0].count(503) <= 45
    assert set(outcomes[0]) == {200, 503}


async def test_a_matcher_limits_faults_and_429_says_when_to_retry(serve: Serve, tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    save_cassette(path, Cassette((answering("/v2/orders", "o"), answering("/v2/brands", "b"))))
    url = await replay_of(serve, [path], ReplayOptions(faults=(Fault.parse("429:100%:GET /v2/ord*"),)))
    async with aiohttp.ClientSession() as session:
        status, headers, _ = await get(session, f"{url}/v2/orders")
        assert (status, headers["retry-after"]) == (429, "1")
        assert (await get(session, f"{url}/v2/brands"))[0] == 200


async def test_drop_closes_the_connection_and_slow_trickles_the_whole_body(
    serve: Serve, tmp_path: Path
) -> None:
    path = tmp_path / "c.yaml"
    save_cassette(path, Cassette((answering("/v2/a", "a" * 5000),)))
    dropping = await replay_of(serve, [path], ReplayOptions(faults=(Fault.parse("drop:1"),)))
    slow = await replay_of(serve, [path], ReplayOptions(faults=(Fault.parse("slow:1"),), slow_body_ms=500.0))
    async with aiohttp.ClientSession() as session:
        with pytest.raises(aiohttp.ClientError):
            await get(session, f"{dropping}/v2/a")
        started = time.monotonic()
        status, _, body = await get(session, f"{slow}/v2/a")
        assert (status, body) == (200, {"from": "a" * 5000})
        assert time.monotonic() - started >= 0.45
