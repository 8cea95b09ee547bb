"""Shared test helpers: real servers on 127.0.0.1 port 0, and small factories for core values."""

from __future__ import annotations

import asyncio
import re
import ssl
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path

import aiohttp
import pytest
from aiohttp import web

from proxy.core.model.exchange import EMPTY_BODY, Body, Exchange, Headers, Request, Response
from proxy.core.redaction.book import KNOWN
from proxy.sandbox.app import SandboxSettings, create_sandbox_app
from proxy.server.serving import start
from tests.tls import self_signed

Serve = Callable[[web.Application], Awaitable[str]]
pytest_plugins = ("pytester",)  # the pytest plugin's tests run real inner pytest sessions


@pytest.fixture(autouse=True)
def private_parse_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Parsed cassettes are cached in a test folder (processes inherit it), never the user's cache."""
    monkeypatch.setenv("COMMERCE_PROXY_CACHE", str(tmp_path_factory.getbasetemp() / "parse-cache"))


@pytest.fixture(autouse=True)
def fresh_secret_book() -> Iterator[None]:
    """Each test starts knowing no secret, as a new process does: the process's book of secrets seen
    (`KNOWN`) would otherwise carry one test's tokens into the next one's outputs."""
    KNOWN.forget()
    yield
    KNOWN.forget()


@pytest.fixture
async def serve() -> AsyncIterator[Serve]:
    """Start apps on free ports; every one is cleaned up at the end of the test."""
    runners: list[web.AppRunner] = []

    async def serve_app(app: web.Application) -> str:
        runner, url = await start(app, "127.0.0.1", 0)
        runners.append(runner)
        return url

    yield serve_app
    for runner in reversed(runners):
        await runner.cleanup()


@pytest.fixture
async def sandbox_url(serve: Serve) -> str:
    """A running sandbox with default credentials."""
    return await serve(create_sandbox_app(SandboxSettings()))


async def sandbox_token(session: aiohttp.ClientSession, base: str) -> str:
    """An access token from the sandbox (or a proxy in front of it), the way clients get one."""
    form = {
        "grant_type": "client_credentials",
        "client_id": "sandbox-client",
        "client_secret": "sandbox-secret",
    }
    async with session.post(f"{base}/oauth/access_token", data=form) as answer:
        assert answer.status == 200, await answer.text()
        return str((await answer.json())["access_token"])


def make_request(
    method: str = "GET",
    path: str = "/v2/products",
    query: str = "",
    headers: Headers = (),
    body: Body = EMPTY_BODY,
) -> Request:
    """A core request with sensible defaults."""
    return Request(method=method, path=path, query=query, headers=headers, body=body)


def make_exchange(
    request: Request | None = None,
    status: int = 200,
    body: Body = EMPTY_BODY,
    headers: Headers = (("Content-Type", "application/json"),),
) -> Exchange:
    """An exchange answering `request` (a GET of /v2/products by default)."""
    return Exchange(
        request=request or make_request(),
        response=Response(status=status, headers=headers, body=body),
    )


def json_body(value: object) -> Body:
    """A JSON body."""
    return Body("json", value)  # type: ignore[arg-type]


ENTRY_CASSETTE = (
    Path(__file__).parent / "example" / "cassettes" / "test_catalog" / "test_entry_etag_is_weak.yaml"
)


def entry_cassette_with_wrong_etag(digit: str) -> str:
    """The example entry-read cassette as text, its ETag header made W/"<64 x digit>" (not the etag_id)."""
    text = ENTRY_CASSETTE.read_text()
    etag = re.search(r'ETag: W/"([0-9a-f]+)"', text)
    assert etag is not None and etag.group(1) != digit * 64
    return text.replace(etag.group(0), 'ETag: W/"' + digit * 64 + '"')


async def start_tls_sandbox(cert: Path, key: Path) -> tuple[web.AppRunner, str]:
    """The sandbox over HTTPS on a free port with this certificate; its runner and URL."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    runner = web.AppRunner(create_sandbox_app())
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=context)
    await site.start()
    return runner, f"https://127.0.0.1:{runner.addresses[0][1]}"


@pytest.fixture
async def tls_sandbox(tmp_path: Path) -> AsyncIterator[tuple[str, Path]]:
    """The sandbox over HTTPS on a free port, and its certificate."""
    cert, key = self_signed(tmp_path)
    runner, url = await start_tls_sandbox(cert, key)
    yield url, cert
    await runner.cleanup()


@pytest.fixture
def tls_sandbox_in_a_thread(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """`tls_sandbox` on an event loop of its own, for tests that block (a pytest run inside a test)."""
    cert, key = self_signed(tmp_path)
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    runner, url = asyncio.run_coroutine_threadsafe(start_tls_sandbox(cert, key), loop).result(30)
    yield url, cert
    asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(30)
    loop.call_soon_threadsafe(loop.stop)
    thread.join(10)
    loop.close()
