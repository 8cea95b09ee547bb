"""The proxy's own credentials never leave the process, and every spelling of a `/_proxy/` path is ours.

Sent through `record` and `spy` to an upstream on 127.0.0.1 that keeps every raw request head: the UI's
token header in any case and its cookies (this port's, another port's, the bare name) in every position
of a Cookie header never reach it, while the other cookies do; and no spelling of a `/_proxy/` path
(doubled slashes, dot segments, escapes, backslashes, parameters, case) is forwarded. The upstream client
every way out uses (record, spy, the UI's resend, verify) is driven directly too. Failed before: record
and spy sent `X-Commerce-Proxy-Token` and `commerce_proxy_token_PORT` upstream and forwarded
`//_proxy/ui/api/info`."""

from __future__ import annotations

import asyncio
import itertools
import random
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from proxy.app.recording import RecordSettings
from proxy.core.model.access import TOKEN_COOKIE, TOKEN_HEADER, ours, without_our_credentials
from proxy.server.record import create_record_app
from proxy.server.serving import Runner, start
from proxy.server.upstream import UpstreamPool
from tests.unit.core.model.spellings import NOT_OURS, draw

SECRET = "our-ui-token-0123456789-abcdefghij"
ANSWER = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"


class Capture:
    """An upstream on 127.0.0.1 keeping each request head as it arrived."""

    def __init__(self) -> None:
        self.heads: list[bytes] = []
        self.server: asyncio.Server | None = None

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                self.heads.append(head)
                writer.write(ANSWER)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    async def start(self) -> str:
        self.server = await asyncio.start_server(self.serve, "127.0.0.1", 0)
        return f"http://127.0.0.1:{self.server.sockets[0].getsockname()[1]}"


def header_spellings() -> Iterator[str]:
    name = TOKEN_HEADER
    yield from (name, name.lower(), name.upper(), name.swapcase(), "x-COMMERCE-proxy-TOKEN")


def our_cookies(port: int) -> Iterator[str]:
    for name in (
        f"{TOKEN_COOKIE}_{port}",
        f"{TOKEN_COOKIE}_1",
        TOKEN_COOKIE,
        f"{TOKEN_COOKIE.upper()}_{port}",
    ):
        yield f"{name}={SECRET}"


def cookie_headers(port: int) -> Iterator[tuple[list[str], list[str]]]:
    """(the Cookie header values sent, the cookies of others that must arrive), ours in each position."""
    for ours_one in our_cookies(port):
        yield [ours_one], []
        yield [f"{ours_one}; a=1"], ["a=1"]
        yield [f"a=1; {ours_one}"], ["a=1"]
        yield [f"a=1; {ours_one}; b=2"], ["a=1", "b=2"]
        yield [f"a=1;{ours_one};b=2"], ["a=1", "b=2"]
        yield ["a=1", ours_one], ["a=1"]
        yield [ours_one, f"b=2; {ours_one}"], ["b=2"]


@pytest.fixture
async def proxies(tmp_path: Path) -> AsyncIterator[tuple[Capture, dict[str, str]]]:
    capture = Capture()
    upstream = await capture.start()
    running: list[Runner] = []
    urls = {}
    for kind, cassette in (("record", tmp_path / "r.yaml"), ("spy", None)):
        runner, url = await start(
            create_record_app(RecordSettings(upstream=upstream, cassette=cassette)), "127.0.0.1", 0
        )
        running.append(runner)
        urls[kind] = url
    yield capture, urls
    for runner in running:
        await runner.cleanup()
    assert capture.server is not None
    capture.server.close()


async def _send(url: str, head: str) -> int:
    address, port = url.removeprefix("http://").rsplit(":", 1)
    reader, writer = await asyncio.open_connection(address, int(port))
    try:
        writer.write(head.encode("latin-1"))
        await writer.drain()
        raw = await asyncio.wait_for(reader.read(), 10)
    finally:
        writer.close()
    return int(raw.split(b" ", 2)[1])


@pytest.fixture(params=["record", "spy"])
def forwarder(
    proxies: tuple[Capture, dict[str, str]], request: pytest.FixtureRequest
) -> tuple[Capture, str, int]:
    """Record or spy in front of the capture: the capture, the proxy's URL and its port."""
    capture, urls = proxies
    url = urls[request.param]
    return capture, url, int(url.rsplit(":", 1)[1])


async def test_record_and_spy_send_no_token_header_and_no_cookie_of_ours(
    forwarder: tuple[Capture, str, int],
) -> None:
    capture, url, port = forwarder
    cases = list(itertools.product(header_spellings(), cookie_headers(port)))
    for number, (spelling, (cookies, others)) in enumerate(cases):
        lines = "".join(f"Cookie: {value}\r\n" for value in cookies)
        head = (
            f"GET /v2/products?n={number} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{spelling}: {SECRET}\r\n"
            f"{lines}X-Kept: yes\r\nConnection: close\r\n\r\n"
        )
        assert await _send(url, head) == 200, (spelling, cookies)
        sent = capture.heads[-1].decode("latin-1")
        assert f"n={number} " in sent and "X-Kept: yes" in sent
        assert SECRET not in sent and TOKEN_COOKIE not in sent.lower(), (spelling, cookies, sent)
        for other in others:
            assert other in sent, (cookies, sent)
    assert len(capture.heads) == len(cases) > 100


def path_spellings(route: str) -> Iterator[str]:
    """Ways a client (or a page) may spell one of our paths that an upstream may read as it."""
    rest = route.removeprefix("/_proxy/")
    yield from (
        "/" + route,
        "//" + route.lstrip("/"),
        "/./" + route.lstrip("/"),
        "/v2/../" + route.lstrip("/"),
        "/v2/x/../../" + route.lstrip("/"),
        f"/%5Fproxy/{rest}",
        f"/%5fproxy/{rest}",
        f"/%255Fproxy/{rest}",
        f"/_proxy%2F{rest}",
        f"/%2F_proxy/{rest}",
        f"/_%70roxy/{rest}",
        f"/_proxy//{rest}",
        f"/_proxy/./{rest}",
        f"/_proxy\\{rest}",
        f"/\\_proxy/{rest}",
        f"/_proxy;x=1/{rest}",
        f"/_PROXY/{rest}",
        f"/_Proxy/{rest}",
    )


ROUTES = ["/_proxy/ui/api/info", "/_proxy/health", "/_proxy/ui/", "/_proxy/reset", "/_proxy/ui/api/exchanges"]


def test_ours_decides_every_spelling_and_leaves_the_apis_paths() -> None:
    for route in ROUTES:
        for spelling in path_spellings(route):
            assert ours(spelling) is not None, spelling
    for path in ("/v2/products", "/v2/_proxy/x", "/_proxyx/ui", "/v2/a.json", "/v2/%5Fx", "/v2/a;b", "/"):
        assert ours(path) is None, path


async def test_no_spelling_of_our_paths_is_forwarded(forwarder: tuple[Capture, str, int]) -> None:
    capture, url, port = forwarder
    sent = 0
    for route, method in itertools.product(ROUTES, ["GET", "POST"]):
        for spelling in path_spellings(route):
            head = (
                f"{method} {spelling} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 0\r\n"
                "Connection: close\r\n\r\n"
            )
            status = await _send(url, head)
            assert status != 200 or route == "/_proxy/health", (spelling, status)
            sent += 1
    assert sent > 150 and capture.heads == []


async def test_drawn_spellings_are_answered_or_refused_never_forwarded(
    forwarder: tuple[Capture, str, int],
) -> None:
    """Members drawn from the whole class (`tests/unit/core/model/spellings.py`); the same spellings
    of other first segments still reach the upstream. Failed before: `/_proxy#/ui/`,
    `//127.0.0.1:PORT/_proxy/`, `/_proxy./ui/`, five encodings, NUL, space, tab and full-width forms
    were forwarded."""
    capture, url, port = forwarder
    rng = random.Random(port)
    statuses = set()
    for method in ("GET", "POST") * 150:
        target = draw(rng, port, wire=True).target
        head = f"{method} {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 0\r\n"
        statuses.add(await _send(url, head + "Connection: close\r\n\r\n"))
        assert capture.heads == [], (target, capture.heads)
    assert 400 in statuses and statuses - {400}
    others = [draw(rng, port, name=rng.choice(NOT_OURS), wire=True) for _ in range(100)]
    plain = [o.target for o in others if o.target[0] == "/" and "#" not in o.target and o.level < 4]
    for target in plain:
        head = f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
        assert await _send(url, head) == 200, target
    assert len(capture.heads) == len(plain) > 30


async def test_the_upstream_client_of_every_way_out_sends_none_of_ours() -> None:
    """record, spy, the UI's resend and verify all write their requests through `UpstreamPool`."""
    capture = Capture()
    upstream = await capture.start()
    pool = UpstreamPool(upstream, 5, 1 << 20)
    try:
        cases = list(itertools.product(header_spellings(), cookie_headers(8080)))
        for spelling, (cookies, others) in cases:
            headers = ((spelling, SECRET), *(("Cookie", value) for value in cookies), ("X-Kept", "yes"))
            await pool.send("GET", "/v2/x", headers, b"")
            sent = capture.heads[-1].decode("latin-1")
            assert SECRET not in sent and "X-Kept: yes" in sent
            assert all(other in sent for other in others)
        assert len(capture.heads) == len(cases)
    finally:
        pool.close()
        assert capture.server is not None
        capture.server.close()


def test_without_our_credentials_keeps_everything_else_in_order() -> None:
    headers = (("Accept", "*/*"), ("Cookie", "a=1; b=2"), ("X-Commerce-Proxy-Tokens", "not ours"))
    assert without_our_credentials(headers) == headers
    assert without_our_credentials((("Cookie", f"{TOKEN_COOKIE}x=1"),)) == (("Cookie", f"{TOKEN_COOKIE}x=1"),)
