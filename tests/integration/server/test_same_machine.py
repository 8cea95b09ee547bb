"""Every server answers only a Host naming this machine, and a state-changing admin route refuses what a
browser marks as another site's: Host values and cross-site marks drawn by loops, sent on raw sockets."""

from __future__ import annotations

import argparse
import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path

import pytest

from proxy.app.recording import RecordSettings
from proxy.cli.options import allowed_host
from proxy.core.cassette.document import Cassette
from proxy.core.model.access import TOKEN_COOKIE, TOKEN_HEADER, TOKEN_VARIABLE
from proxy.core.model.hosts import HostPolicy
from proxy.core.redaction.redact import RedactionPolicy
from proxy.core.replay.book import ReplayBook
from proxy.core.replay.matching import MatchPolicy
from proxy.sandbox.app import SandboxSettings, create_sandbox_app
from proxy.server.record import create_record_app
from proxy.server.replay import create_replay_app
from proxy.server.serving import Runner, Servable, start
from tests.conftest import json_body, make_exchange, make_request
from tests.integration.server.upstream import HITS, create_upstream_app

TOKEN = "a-script-knows-this-token-0123456789"
FOREIGN_NAMES = [
    "attacker.example",
    "rebind.attacker.example",
    "localhost.attacker.example",
    "127.0.0.1.nip.io",
    "localtest.me",
    "evil",
    "xn--80ak6aa92e.com",
    "localhost.",
    "127.0.0.1.",
    "[::1].",
    "localhos",
    "local-host",
    "my_service",
    "0.0.0.0",
    "10.0.0.1",
    "192.168.1.10",
    "8.8.8.8",
    "127.0.0.2",
    "127.1",
    "2130706433",
    "0x7f000001",
    "[2001:db8::1]",
    "[fe80::1]",
    "[::]",
    "[::2]",
    "[::ffff:10.0.0.1]",
    "a" * 63 + "." + "b" * 63 + ".example",
]
MALFORMED = [
    "",
    " ",
    "::1",
    "[::1",
    "[::1]x",
    "[::1]:",
    "[not-an-address]",
    'local"host',
    '"localhost"',
    'localhost"',
    "localhost\\",
    "localhost/x",
    "localhost@evil",
    "user@localhost",
    "localhost#x",
    "localhost?x",
    "local host",
    "local\thost",
    "local\x01host",
    "local\x7fhost",
    "localhost\xe9",
    "\xe9xample.com",
    "localhost" + "x" * 5000,
    "[" + "1:" * 200 + "]",
    "a." * 200 + "example",
    "-localhost",
]
BAD_PORTS = [":", ":0x50", ":65536", ":99999", ":-1", ":8080:80", ":abc", ":+80", ": 80", ":" + "9" * 50]
ALLOWED = [
    "127.0.0.1",
    "localhost",
    "LocalHost",
    "LOCALHOST",
    "[::1]",
    "[0:0:0:0:0:0:0:1]",
    "[::ffff:127.0.0.1]",
]


def hosts(port: int) -> Iterator[tuple[str, bool]]:
    """(Host value, answered?) for every member of the table: names and IPs with and without ports."""
    ports = ["", ":80", ":8080", f":{port}", ":65535"]
    for name in FOREIGN_NAMES:
        for suffix in ports:
            yield name + suffix, False
    for name in MALFORMED:
        yield name, False
    for name in ALLOWED:
        for suffix in ports:
            yield name + suffix, True
        for suffix in BAD_PORTS:
            yield name + suffix, False


async def status_for(url: str, head: str) -> tuple[int, bytes]:
    """Send one request head on a new connection; the status and body of the answer."""
    address, port = url.removeprefix("http://").rsplit(":", 1)
    reader, writer = await asyncio.open_connection(address, int(port))
    try:
        writer.write(head.encode("latin-1"))
        await writer.drain()
        raw = await asyncio.wait_for(reader.read(), 10)  # every answer here ends the connection
    finally:
        writer.close()
    status_line, _, rest = raw.partition(b"\r\n")
    return int(status_line.split()[1]), rest.partition(b"\r\n\r\n")[2]


Started = Callable[[], Awaitable[str]]


@pytest.fixture
async def servers(tmp_path: Path) -> AsyncIterator[dict[str, Started]]:
    """Each kind of server, started on demand on 127.0.0.1 port 0 (the upstream's hits under "hits")."""
    running: list[Runner] = []
    upstream = create_upstream_app()
    upstream_runner, upstream_url = await start(upstream, "127.0.0.1", 0)
    running.append(upstream_runner)
    recorded = make_exchange(make_request(path="/v2/products"), body=json_body({"data": []}))
    book = ReplayBook.build([("c.yaml", Cassette((recorded,), None))], MatchPolicy(), RedactionPolicy())

    async def served(app: Servable) -> str:
        runner, url = await start(app, "127.0.0.1", 0)
        running.append(runner)
        return url

    kinds: dict[str, Started] = {
        "replay": lambda: served(create_replay_app(book)),
        "record": lambda: served(
            create_record_app(RecordSettings(upstream=upstream_url, cassette=tmp_path / "r.yaml"))
        ),
        "spy": lambda: served(create_record_app(RecordSettings(upstream=upstream_url, cassette=None))),
        "sandbox": lambda: served(create_sandbox_app(SandboxSettings())),
    }
    kinds["hits"] = upstream[HITS]  # type: ignore[assignment]
    yield kinds
    for runner in reversed(running):
        await runner.cleanup()


@pytest.mark.parametrize("kind", ["replay", "record", "spy", "sandbox"])
async def test_only_a_host_naming_this_machine_is_answered(
    servers: dict[str, Started], kind: str, tmp_path: Path
) -> None:
    """Over 250 Host values per server: foreign and rebinding names, other IPs, odd bytes, quotes, long
    values, ports, IPv6 forms are a 421 or 400 in the API's error shape (403 on /_proxy/ paths), and nothing is forwarded or
    recorded; loopback names at any port are answered."""
    url = await servers[kind]()
    port = int(url.rsplit(":", 1)[1])
    hits: dict[str, int] = servers["hits"]  # type: ignore[assignment]
    table = list(hosts(port))
    assert len(table) > 250
    for host, answered in table:
        target = "/_proxy/health" if answered and kind != "sandbox" else "/v2/products?page[limit]=1"
        status, body = await status_for(
            url, f"GET {target} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
        )
        if answered:
            assert status not in (400, 421), (host, status, body)
        else:
            assert status in (400, 421), (host, status, body)  # a proxied path: /_proxy/ is a 403
            if kind == "sandbox" and status == 400 and not body.startswith(b"{"):
                assert body, host  # aiohttp's own parser refused the bytes, saying which
            else:
                error = json.loads(body)["errors"][0]
                assert error["status"] == str(status) and error["detail"], host
    assert not hits, hits  # no refused request reached the upstream
    if kind in ("record", "spy"):
        head = f"GET /_proxy/health HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
        status, body = await status_for(url, head)
        assert json.loads(body)["recorded"] == 0, "a refused request was recorded"


@pytest.mark.parametrize("kind", ["replay", "record", "spy"])
async def test_a_foreign_host_gets_403_on_our_paths_and_421_on_the_proxied_ones(
    servers: dict[str, Started], kind: str
) -> None:
    """DNS rebinding reaches `/_proxy/` (the UI, the admin routes) with a foreign Host: 403, the access
    decision's answer; a proxied path keeps its 421; a malformed Host stays a 400 on both."""
    url = await servers[kind]()
    for target, foreign in [
        ("/_proxy/health", 403),
        ("/_proxy/ui/", 403),
        ("/_proxy/ui/api/info", 403),
        ("/_proxy/reset", 403),
        ("/v2/products?page[limit]=1", 421),
    ]:
        for host, expected in [("rebind.example:8080", foreign), ("attacker.test", foreign), ("a b", 400)]:
            method = "POST" if target == "/_proxy/reset" else "GET"
            status, body = await status_for(
                url, f"{method} {target} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
            )
            assert status == expected, (target, host, status, body)
            assert json.loads(body)["errors"][0]["status"] == str(expected)
    hits: dict[str, int] = servers["hits"]  # type: ignore[assignment]
    assert not hits, hits


async def test_a_request_without_host_is_a_scripts_and_is_answered(servers: dict[str, Started]) -> None:
    """HTTP/1.0 without Host is no browser's (a browser always names the host)."""
    url = await servers["replay"]()
    status, _ = await status_for(url, "GET /_proxy/health HTTP/1.0\r\n\r\n")
    assert status == 200


async def test_an_allowed_name_and_the_address_listened_on_are_answered() -> None:
    """--allow-host NAME, and the address the client connected to."""
    book = ReplayBook.build([], MatchPolicy(), RedactionPolicy())
    app = create_replay_app(book)
    app.hosts = HostPolicy.of(["proxy.internal"])
    runner, url = await start(app, "127.0.0.1", 0)
    try:
        for host, expected in [
            ("proxy.internal:9", 200),
            ("PROXY.INTERNAL", 200),
            ("proxy.internal.", 403),  # a trailing dot never names this machine, whichever name it ends
            ("127.0.0.1.:1", 403),
            ("localhost.", 403),
            ("other.internal", 403),  # a /_proxy/ path: refused as the access decision refuses
            ("127.0.0.1:1", 200),
        ]:
            status, _ = await status_for(
                url, f"GET /_proxy/health HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
            )
            assert status == expected, host
    finally:
        await runner.cleanup()


def foreign_origins(port: int) -> Iterator[str]:
    for name in FOREIGN_NAMES:
        for scheme in ("http", "https"):
            for suffix in ("", f":{port}", ":443"):
                yield f"{scheme}://{name}{suffix}"
    yield from ["null", "file://", "localhost", "chrome-extension://abc", "http://", 'http://local"host']


CROSS_SITE_FETCHES = ["cross-site", "same-site", "CROSS-SITE", " cross-site ", "unknown-value"]
FORM_TYPES = [
    "application/x-www-form-urlencoded",
    "Application/X-WWW-Form-Urlencoded; charset=UTF-8",
    "multipart/form-data; boundary=xyz",
    "text/plain",
    "TEXT/PLAIN;charset=utf-8",
]


def cross_site_marks(port: int) -> Iterator[str]:
    """Header lines a page on another site makes a browser send with its POST."""
    for origin in foreign_origins(port):
        yield f"Origin: {origin}\r\n"
    for site in CROSS_SITE_FETCHES:
        yield f"Sec-Fetch-Site: {site}\r\n"
        yield f"Sec-Fetch-Site: {site}\r\nOrigin: http://127.0.0.1:{port}\r\n"
    for kind in FORM_TYPES:
        yield f"Content-Type: {kind}\r\nContent-Length: 3\r\n"


async def test_a_cross_site_post_to_reset_is_refused_and_rewinds_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every cross-site mark gets a 403 and the sequence is not rewound, the token sent or not; a
    script's POST (no marks, or the marks of a page on this server) with the token header still rewinds;
    without it, or with the token only as a cookie, it is a 403."""
    monkeypatch.setenv(TOKEN_VARIABLE, TOKEN)
    first = make_exchange(make_request(path="/v2/seq"), body=json_body({"n": 1}))
    second = make_exchange(make_request(path="/v2/seq"), body=json_body({"n": 2}))
    book = ReplayBook.build([("c.yaml", Cassette((first, second), None))], MatchPolicy(), RedactionPolicy())
    runner, url = await start(create_replay_app(book), "127.0.0.1", 0)
    port = int(url.rsplit(":", 1)[1])
    host = f"Host: 127.0.0.1:{port}\r\n"

    async def next_n() -> int:
        status, body = await status_for(url, f"GET /v2/seq HTTP/1.1\r\n{host}Connection: close\r\n\r\n")
        assert status == 200
        return int(json.loads(body)["n"])

    async def reset(
        marks: str, body: str = "", token: str = f"{TOKEN_HEADER}: {TOKEN}\r\n"
    ) -> tuple[int, bytes]:
        head = f"POST /_proxy/reset HTTP/1.1\r\n{host}{token}{marks}Connection: close\r\n"
        if "Content-Length" not in marks:
            head += f"Content-Length: {len(body)}\r\n"
        return await status_for(
            url, head + "\r\n" + (body or ("a=b" if "Content-Length: 3" in marks else ""))
        )

    try:
        assert await next_n() == 1
        marks = list(cross_site_marks(port))
        assert len(marks) > 150
        for mark in marks:
            status, body = await reset(mark)
            assert status == 403, (mark, status, body)
            detail = json.loads(body)["errors"][0]["detail"]
            assert "changes this server's state" in detail or "may not use this server" in detail, detail
        assert await next_n() == 2  # never rewound
        for without in ["", f"Cookie: {TOKEN_COOKIE}={TOKEN}\r\n", f"{TOKEN_HEADER}: {TOKEN[:-1]}\r\n"]:
            status, body = await reset("", token=without)
            assert status == 403 and TOKEN_HEADER in json.loads(body)["errors"][0]["detail"], without
        assert await next_n() == 2  # never rewound
        for allowed in [
            "",
            f"Origin: http://127.0.0.1:{port}\r\nSec-Fetch-Site: same-origin\r\n",
            f"Origin: http://localhost:{port}\r\n",
            "Sec-Fetch-Site: none\r\n",
            "Content-Type: application/json\r\n",
        ]:
            status, body = await reset(allowed, "{}" if "json" in allowed else "")
            assert status == 200, (allowed, body)
            assert await next_n() == 1
        for path in ("/_proxy/health", "/_proxy/usage"):  # read-only routes: a script needs no token
            for origin, expected in (("", 200), ("Origin: http://attacker.example\r\n", 403)):
                head = f"GET {path} HTTP/1.1\r\n{host}{origin}Connection: close\r\n\r\n"
                assert (await status_for(url, head))[0] == expected, (path, origin)
    finally:
        await runner.cleanup()


def test_allow_host_takes_a_name_or_address_without_a_port() -> None:
    """--allow-host: names and IP literals (IPv6 bare or bracketed), lower-cased; a port, a URL or odd
    bytes are argparse's one-line usage error."""
    assert allowed_host("Proxy.Internal") == "proxy.internal"
    assert allowed_host("::1") == allowed_host("[::1]") == "::1"
    assert allowed_host("192.168.1.5") == "192.168.1.5"
    for bad in ["proxy.internal:80", "[::1]:80", "http://x", "a b", 'x"y', "", "x" * 300, "[::1"]:
        with pytest.raises(argparse.ArgumentTypeError):
            allowed_host(bad)


LOCAL_ORIGINS = ["http://localhost:3000", "http://127.0.0.1:5173", "https://[::1]:8443", "http://LOCALHOST"]


@pytest.mark.parametrize("kind", ["replay", "record", "spy"])
async def test_a_page_on_another_origin_cannot_use_the_api_paths(
    servers: dict[str, Started], kind: str
) -> None:
    """A blind request from a foreign page (a form post, a fetch, an image tag), with a loopback Host, is
    a 403 for every method and path: record never forwards it with the upstream credentials nor records
    it. Pages on this machine and requests with no browser marks are served."""
    url = await servers[kind]()
    port = int(url.rsplit(":", 1)[1])
    hits: dict[str, int] = servers["hits"]  # type: ignore[assignment]
    marks = [f"Origin: {origin}\r\n" for origin in foreign_origins(port)]
    marks += ["Sec-Fetch-Site: cross-site\r\n", "Sec-Fetch-Site: CROSS-SITE\r\nSec-Fetch-Mode: no-cors\r\n"]
    # what no browser sends: a list (one line or a proxy's join), an unknown value
    for value in (
        "same-origin, cross-site",
        "cross-site, same-origin",
        "none,cross-site",
        "bogus",
        "same-origin;x",
    ):
        marks.append(f"Sec-Fetch-Site: {value}\r\n")
    requests = [("GET", "/v2/products"), ("POST", "/oauth/access_token"), ("PUT", "/v2/products/1")]
    refused = 0
    for mark in marks:
        for method, path in requests:
            head = (
                f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{mark}"
                "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 3\r\n"
                "Connection: close\r\n\r\na=1"
            )
            status, body = await status_for(url, head)
            assert status == 403, (mark, method, status, body)
            assert json.loads(body)["errors"][0]["status"] == "403"
            refused += 1
    assert refused > 300 and not hits, hits
    for origin in LOCAL_ORIGINS:
        for mark in (
            f"Origin: {origin}\r\nSec-Fetch-Site: cross-site\r\n",
            "Sec-Fetch-Site: same-site\r\n",
            "",
        ):
            head = f"GET /_proxy/health HTTP/1.1\r\nHost: localhost:{port}\r\n{mark}Connection: close\r\n\r\n"
            status, _ = await status_for(url, head)
            assert status == 200, (origin, mark)
    if kind in ("record", "spy"):
        head = f"GET /_proxy/health HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
        assert json.loads((await status_for(url, head))[1])["recorded"] == 0
