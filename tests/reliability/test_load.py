"""64 concurrent clients through `record` in front of the sandbox, for a bounded time: every
acknowledged exchange is in the cassette exactly once and whole, and the recorder's memory stays flat."""

from __future__ import annotations

import asyncio
import signal
import time
from pathlib import Path
from urllib.parse import parse_qs

import aiohttp
import pytest

from proxy.core.model.exchange import fresh_value, header_value
from proxy.store.cassette_reader.loading import read_cassette_file
from tests.conftest import sandbox_token
from tests.reliability.figures import write_figure
from tests.running import commerce_proxy, stop_with

CLIENTS = 64
SECONDS = 20.0
REQUEST_CAP = 40_000
FEATURE = "3f8e2a4c-9b1d-4c6e-8f0a-1b2c3d4e5f60"
RSS_GROWTH_CEILING = 1.25  # last third's peak over the first third's, past the warm-up


def rss_mb(pid: int) -> float:
    """Resident memory of a process and its children (record's rule checker), from /proc (Linux)."""
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    total = 0.0
    for process in [pid, *map(int, children)]:
        status = Path(f"/proc/{process}/status").read_text()
        total += (
            next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:")) / 1024
        )
    return total


@pytest.mark.long
@pytest.mark.serial
async def test_64_clients_lose_tear_and_repeat_nothing_and_memory_stays_flat(tmp_path: Path) -> None:
    """Lists with distinct pages and partial updates with distinct descriptions, from 64 clients at once;
    each recorded answer must belong to its own request, each acknowledged one be there exactly once."""
    cassette = tmp_path / "load.yaml"
    acknowledged: set[str] = set()
    sent = 0
    samples: list[tuple[float, float]] = []
    async with (
        commerce_proxy("sandbox") as sandbox,
        commerce_proxy("record", "--upstream", sandbox.url, "--cassette", str(cassette), "--quiet") as record,
        aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=CLIENTS)) as session,
    ):
        token = await sandbox_token(session, sandbox.url)
        auth = {"Authorization": f"Bearer {token}"}
        started = time.monotonic()

        async def client(number: int) -> None:
            nonlocal sent
            while sent < REQUEST_CAP and time.monotonic() - started < SECONDS:
                sent += 1
                load_id = f"c{number}-{sent}"
                headers = {**auth, "X-Load-Id": load_id}
                if sent % 4 == 0:
                    body = {
                        "data": {
                            "id": FEATURE,
                            "type": "subscription_feature",
                            "attributes": {"description": load_id},
                        }
                    }
                    request = session.put(
                        f"{record.url}/v2/subscriptions/features/{FEATURE}", json=body, headers=headers
                    )
                else:
                    limit = 50 + sent % 50  # 25 to 50 KB answers: memory kept per exchange would show
                    offset = (sent % 50) * limit
                    url = f"{record.url}/v2/orders?page[limit]={limit}&page[offset]={offset}"
                    request = session.get(url, headers=headers)
                async with request as answer:
                    await answer.read()
                    if answer.status == 200:
                        acknowledged.add(load_id)

        async def sampler() -> None:
            while time.monotonic() - started < SECONDS:
                samples.append((time.monotonic() - started, rss_mb(record.process.pid)))
                await asyncio.sleep(0.25)

        await asyncio.gather(sampler(), *(client(number) for number in range(CLIENTS)))
        code, err = await stop_with(record, signal.SIGINT)
    assert code == 0, err
    exchanges = read_cassette_file(cassette).exchanges
    seen: dict[str, int] = {}
    for exchange in exchanges:
        load_id = header_value(exchange.request.headers, "X-Load-Id")
        assert load_id is not None
        seen[load_id] = seen.get(load_id, 0) + 1
        answer = fresh_value(exchange.response.body)
        assert isinstance(answer, dict), load_id
        if exchange.request.method == "PUT":  # the answer is the update this request made
            assert fresh_value(exchange.request.body)["data"]["attributes"]["description"] == load_id  # type: ignore[index,call-overload]
            assert answer["data"]["attributes"]["description"] == load_id, load_id
        else:  # the page this request asked for
            asked = parse_qs(exchange.request.query)
            assert len(answer["data"]) == int(asked["page[limit]"][0]), load_id
            assert answer["meta"]["page"]["offset"] == int(asked["page[offset]"][0]), (
                load_id,
                answer["meta"],
            )
    repeated = [load_id for load_id, count in seen.items() if count > 1]
    lost = acknowledged - seen.keys()
    assert not repeated and not lost, (repeated[:5], sorted(lost)[:5])
    third = SECONDS / 3
    early = max(rss for at, rss in samples if third / 2 <= at < third)  # past the warm-up
    late = max(rss for at, rss in samples if at >= 2 * third)
    print(
        f"load figures: {CLIENTS} clients, {SECONDS:g} s, {sent} sent, {len(acknowledged)} acknowledged, "
        f"{len(exchanges)} recorded; RSS of record and its checker {early:.0f} MB early, {late:.0f} MB late, "
        f"peak {max(rss for _, rss in samples):.0f} MB"
    )
    assert late <= early * RSS_GROWTH_CEILING, (early, late)
    write_figure("load_clients", CLIENTS, "concurrent clients through `record` in front of the sandbox")
    write_figure(
        "load_lost_or_repeated",
        len(lost) + len(repeated),
        "acknowledged exchanges lost, torn or recorded twice",
    )
    write_figure(
        "load_rss_growth_ceiling", f"{RSS_GROWTH_CEILING:.2f}x", "late peak RSS over early peak RSS, at most"
    )
