"""No exchange is dropped between a real `record` at full rate and a client following the UI's event
stream: every exchange sent is pushed once, in id order, with no gap, across a reconnect from the last
cursor in the middle of the traffic (while exchanges keep coming). The speed is for scripts/bench."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import aiohttp

from proxy.core.model.access import TOKEN_HEADER
from tests.running import commerce_proxy

THIRDS = (300, 600, 300)  # sent with the client following, gone (more than one event's 500 rows), back
CLIENTS = 16  # requests in flight at once: record's full rate on a small machine
SECONDS = 60  # a bound on each wait, not a measure: a row never pushed fails the test after it


async def send(session: aiohttp.ClientSession, base: str, numbers: range) -> None:
    """GET /v2/products/N for each number, CLIENTS at a time, as fast as record answers."""
    queue = list(numbers)

    async def client() -> None:
        while queue:
            async with session.get(f"{base}/v2/products/{queue.pop(0)}") as answer:
                await answer.read()
                assert answer.status == 200, answer.status

    await asyncio.gather(*(client() for _ in range(CLIENTS)))


class Follower:
    """A plain HTTP client of /_proxy/ui/api/events: the ids and paths of the rows it was pushed."""

    def __init__(self, session: aiohttp.ClientSession, ui: str, token: str) -> None:
        self.session, self.ui, self.token = session, ui, token
        self.ids: list[int] = []
        self.paths: list[str] = []
        self.cursor = 0

    async def follow_until(self, count: int) -> None:
        """Read the stream from the last cursor until `count` rows were pushed in all, then hang up."""
        try:
            await asyncio.wait_for(self._follow_until(count), SECONDS)
        except TimeoutError:
            missing = sorted({f"/v2/products/{number}" for number in range(count)} - set(self.paths))
            raise AssertionError(f"{len(self.ids)} of {count} rows pushed; never: {missing[:10]}") from None

    async def _follow_until(self, count: int) -> None:
        url = f"{self.ui}/_proxy/ui/api/events?cursor={self.cursor}"
        async with self.session.get(url, headers={TOKEN_HEADER: self.token}) as stream:
            assert stream.status == 200, stream.status
            buffer = b""
            async for piece in stream.content.iter_any():
                buffer += piece
                while b"\n\n" in buffer and len(self.ids) < count:
                    block, buffer = buffer.split(b"\n\n", 1)
                    self._take(block.decode())
                if len(self.ids) >= count:
                    return
        raise AssertionError(f"the stream ended after {len(self.ids)} of {count} rows")

    def _take(self, block: str) -> None:
        fields = dict(line.split(": ", 1) for line in block.split("\n") if not line.startswith(":"))
        if fields.get("event") != "exchanges":
            return
        document: dict[str, Any] = json.loads(fields["data"])
        self.ids += [row["id"] for row in document["exchanges"]]
        self.paths += [row["path"] for row in document["exchanges"]]
        assert int(fields["id"]) == document["cursor"] == self.ids[-1], (fields["id"], document["cursor"])
        self.cursor = document["cursor"]


async def indexed(session: aiohttp.ClientSession, ui: str, token: str, count: int) -> None:
    """Wait (bounded) until the UI's index holds `count` exchanges."""
    for _ in range(SECONDS * 20):
        async with session.get(f"{ui}/_proxy/ui/api/info", headers={TOKEN_HEADER: token}) as answer:
            if (await answer.json())["exchanges"] >= count:
                return
        await asyncio.sleep(0.05)
    raise AssertionError(f"fewer than {count} exchanges indexed after {SECONDS} s")


async def server_rows(session: aiohttp.ClientSession, ui: str, token: str) -> list[dict[str, Any]]:
    """Every row the server's index holds, window by window."""
    rows: list[dict[str, Any]] = []
    while True:
        url = f"{ui}/_proxy/ui/api/exchanges?offset={len(rows)}&limit=500"
        async with session.get(url, headers={TOKEN_HEADER: token}) as answer:
            window = (await answer.json())["exchanges"]
        if not window:
            return rows
        rows += window


async def test_a_client_following_record_at_full_rate_is_pushed_every_exchange_once_in_order(
    tmp_path: Path, products_upstream: str
) -> None:
    cassette = tmp_path / "rate.yaml"
    first, gone, back = THIRDS
    total = first + gone + back
    async with (
        commerce_proxy(
            "record", "--upstream", products_upstream, "--cassette", str(cassette), "--quiet"
        ) as record,
        aiohttp.ClientSession() as session,
    ):
        found = re.search(r"ui: (http://[^/]+)/_proxy/ui/\?token=([A-Za-z0-9_-]+)", record.ui or "")
        assert found, record.ui
        ui, token = found.groups()
        follower = Follower(session, ui, token)
        # Following from cursor 0 while the first third is sent.
        following = asyncio.create_task(follower.follow_until(first))
        await send(session, record.url, range(0, first))
        await following
        # Hung up while the second third is sent and indexed; back from the last cursor for the rest.
        await send(session, record.url, range(first, first + gone))
        await indexed(session, ui, token, first + gone)
        following = asyncio.create_task(follower.follow_until(total))
        await send(session, record.url, range(first + gone, total))
        await following
        rows = await server_rows(session, ui, token)

    assert [row["id"] for row in rows] == list(range(1, total + 1))
    assert follower.ids == [row["id"] for row in rows]  # in order, no gap, none twice
    assert follower.paths == [row["path"] for row in rows]
    assert sorted(follower.paths) == sorted(f"/v2/products/{number}" for number in range(total))
