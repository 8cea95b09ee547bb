"""Recording what is missing in front of a service that needs a token: the token endpoint is always asked
live (a replayed token is `<redacted>`), and a request whose credential is the placeholder is answered
401 by the proxy, never forwarded, never recorded."""

from __future__ import annotations

import signal
from pathlib import Path
from urllib.parse import unquote

import aiohttp

from proxy.store.cassette_reader.loading import read_cassette_file
from tests.conftest import sandbox_token
from tests.running import commerce_proxy, stop_with


async def session_through(url: str, cassette: Path, mode: str, paths: list[str]) -> list[int]:
    """Run `record` in `mode`, get a token through it and GET each path with it; the statuses."""
    statuses = []
    arguments = ["record", "--upstream", url, "--cassette", str(cassette), "--mode", mode, "--no-check"]
    async with commerce_proxy(*arguments) as proxy, aiohttp.ClientSession() as session:
        token = await sandbox_token(session, proxy.url)
        assert token != "<redacted>" and len(token) >= 20
        for path in paths:
            async with session.get(
                f"{proxy.url}{path}", headers={"Authorization": f"Bearer {token}"}
            ) as answer:
                statuses.append(answer.status)
        async with session.get(
            f"{proxy.url}/v2/products?page[limit]=3", headers={"Authorization": "Bearer <redacted>"}
        ) as answer:
            assert answer.status == 401
            assert "redaction placeholder" in (await answer.json())["errors"][0]["detail"]
        code, err = await stop_with(proxy, signal.SIGTERM)
    assert code == 0, err
    return statuses


async def test_new_episodes_asks_the_token_endpoint_live_and_records_no_refusal(
    sandbox_url: str, tmp_path: Path
) -> None:
    """A first recording, then `new_episodes` with one more request: the client gets a real token, the
    new request a 200, and the cassette holds no 401 and one token exchange."""
    cassette = tmp_path / "c.yaml"
    assert await session_through(sandbox_url, cassette, "once", ["/v2/products?page[limit]=2"]) == [200]
    more = ["/v2/products?page[limit]=2", "/v2/products?page[limit]=4"]
    assert await session_through(sandbox_url, cassette, "new_episodes", more) == [200, 200]
    exchanges = read_cassette_file(cassette).exchanges
    targets = [
        (exchange.request.method, exchange.request.path, unquote(exchange.request.query))
        for exchange in exchanges
    ]
    assert targets == [
        ("POST", "/oauth/access_token", ""),
        ("GET", "/v2/products", "page[limit]=2"),
        ("GET", "/v2/products", "page[limit]=4"),
    ]
    assert all(exchange.response.status == 200 for exchange in exchanges)
