"""While record, spy or replay serves the UI, no answer it gives outside /_proxy/ui/ can run as a page of
the UI's origin: every one carries `access.OUTSIDE_UI` (a `sandbox` policy, no framing, no sniffing),
whatever its type, status, method or path spelling, and whoever made it (the upstream, the cassette, a
fault, a miss); our own answers (admin routes, refusals) carry the UI's policy instead; the cassette never
holds it, and `--no-ui` adds nothing.
Failed before: an upstream's or a cassette's HTML answer was served as is on the UI's origin, where its
script read the page's token and drove the UI's API (found by an outside review)."""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import itertools
import signal
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from proxy.core.model.access import OUTSIDE_UI, TOKEN_HEADER, TOKEN_VARIABLE
from proxy.server.admin import UI_HEADERS
from tests.integration.cli.test_ui_wiring import ui_of
from tests.running import Running, commerce_proxy

HOSTILE = b"<html><body><script>parent.postMessage(localStorage.length,'*')</script></body></html>"
TYPES = [
    "text/html",
    "TEXT/HTML; charset=utf-8",
    "image/svg+xml",
    "application/xhtml+xml",
    "text/xml",
    "application/xml",
    None,  # no Content-Type: a browser sniffs it
    "application/json",
    "text/plain",
    "application/octet-stream",
]
STATUSES = [200, 201, 404, 500, 503]
# The answer's path, spelled several ways (the upstream answers by the query's kind=N, whatever the path).
SPELLINGS = ["/v2/help", "//v2/help", "/v2/./help", "/%76%32/help", "/v2/help;x", "/V2/x/../help", "/"]


def answers() -> Iterator[tuple[int, str | None, int, str]]:
    """(kind, type, status, path): every type and status, each on one of the path spellings."""
    for kind, (kind_type, status) in enumerate(itertools.product(TYPES, STATUSES)):
        yield kind, kind_type, status, SPELLINGS[kind % len(SPELLINGS)]


ANSWERS = list(answers())
OPAQUE = [  # what a browser marks a sandboxed document's requests with
    {"Origin": "null"},
    {"Origin": "null", "Sec-Fetch-Site": "cross-site"},
    {"Sec-Fetch-Site": "cross-site"},
    {"Origin": "null", "Sec-Fetch-Site": "same-origin"},
]


@contextlib.asynccontextmanager
async def hostile_upstream() -> AsyncIterator[str]:
    """An upstream answering `?kind=N` with ANSWERS' type and status and an HTML body, its head written
    by hand (no Content-Type added for it); a HEAD gets the head alone."""

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.closing(writer), contextlib.suppress(ConnectionError, asyncio.IncompleteReadError):
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                method, target = head.split(b" ", 2)[:2]
                kind = int(target.partition(b"kind=")[2].split(b"&")[0] or b"0")
                _, kind_type, status, _ = ANSWERS[kind]
                lines = [f"HTTP/1.1 {status} Whatever", f"Content-Length: {len(HOSTILE)}"]
                if kind_type is not None:
                    lines.append(f"Content-Type: {kind_type}")
                lines.append("Content-Security-Policy: script-src 'unsafe-inline'")  # the upstream's own
                wire = ("\r\n".join(lines) + "\r\n\r\n").encode()
                writer.write(wire if method == b"HEAD" else wire + HOSTILE)
                await writer.drain()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    try:
        yield f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}"
    finally:
        server.close()


def fetched(
    base: str, method: str, target: str, headers: dict[str, str] | None = None
) -> tuple[int, list[tuple[str, str]], bytes]:
    """One request on its own connection (Host this machine): status, header pairs, body."""
    host, port = base.removeprefix("http://").rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    try:
        connection.request(method, target, headers=headers or {})
        answer = connection.getresponse()
        return answer.status, answer.getheaders(), answer.read()
    finally:
        connection.close()


def sandboxed(headers: list[tuple[str, str]]) -> bool:
    """Whether every header of OUTSIDE_UI is there, as written."""
    return all(pair in headers for pair in OUTSIDE_UI)


def not_sandboxed(headers: list[tuple[str, str]]) -> bool:
    return not any(pair in headers for pair in OUTSIDE_UI)


async def check_answers(running: Running, ui: bool) -> int:
    """Every answer of the table, GET and HEAD, through the server: sandboxed when `ui`, else untouched;
    the upstream's own headers and bytes kept. How many answers were judged."""
    judged = 0
    for (kind, kind_type, status, path), method in itertools.product(ANSWERS, ["GET", "HEAD"]):
        target = f"{path}?kind={kind}"
        got, headers, body = await asyncio.to_thread(fetched, running.url, method, target)
        assert got == status, (target, method, got, body[:200])
        assert (sandboxed if ui else not_sandboxed)(headers), (target, method, headers)
        assert ("Content-Security-Policy", "script-src 'unsafe-inline'") in headers, (target, headers)
        typed = [value for name, value in headers if name.lower() == "content-type"]
        assert typed == ([] if kind_type is None else [kind_type]), (target, headers)
        assert body == (b"" if method == "HEAD" else HOSTILE), (target, method)
        judged += 1
    return judged


async def check_ours(running: Running, ui: bool) -> None:
    """Our own answers (an admin route, an unknown admin path, a target the wire refuses, the UI's)
    carry the UI's policy, with or without the UI, and never the sandbox: they are ours, not bytes an
    upstream or a cassette chose."""
    for method, target, status in [
        ("GET", "/_proxy/health", 200),
        ("GET", "/_proxy/nothing", 404),
        ("GET", "/%25252525252F", 400),
    ]:
        got, headers, _ = await asyncio.to_thread(fetched, running.url, method, target)
        assert got == status, (target, got)
        assert OUTSIDE_UI[0] not in headers, (target, headers)
        assert all(pair in headers for pair in UI_HEADERS.items()), (target, headers)
    if ui:
        base, token = ui_of(running)
        for target in [f"/_proxy/ui/?token={token}", "/_proxy/ui/", "/_proxy/ui/api/info", "/_proxy/./ui/"]:
            got, headers, _ = await asyncio.to_thread(fetched, base, "GET", target)
            assert got in (303, 403), (target, got)
            assert OUTSIDE_UI[0] not in headers, (target, headers)  # no sandbox: the page runs its script
            assert all(pair in headers for pair in UI_HEADERS.items()), (target, headers)
        await opaque_origins_refused(base, token)


async def opaque_origins_refused(base: str, token: str) -> None:
    """A document with an opaque origin (a sandboxed one: `Origin: null`, `Sec-Fetch-Site: cross-site`)
    opens neither the page (with its cookie), the data nor a change (with the token)."""
    _, headers, _ = await asyncio.to_thread(fetched, base, "GET", f"/_proxy/ui/?token={token}")
    cookie = next(value for name, value in headers if name == "Set-Cookie").partition(";")[0]
    asked = [
        ("GET", "/_proxy/ui/", {"Cookie": cookie}),
        ("GET", "/_proxy/ui/api/info", {TOKEN_HEADER: token}),
        ("POST", "/_proxy/reset", {TOKEN_HEADER: token, "Content-Length": "0"}),
    ]
    for (method, target, given), marks in itertools.product(asked, OPAQUE):
        got, _, _ = await asyncio.to_thread(fetched, base, method, target, {**given, **marks})
        assert got == 403, (method, target, marks, got)
    for method, target, given in asked[:2]:  # the same without the marks: opened
        got, _, _ = await asyncio.to_thread(fetched, base, method, target, given)
        assert got == 200, (method, target, got)


async def stop(running: Running) -> None:
    """Ctrl-C: record writes its cassette."""
    running.process.send_signal(signal.SIGINT)
    await asyncio.wait_for(running.process.communicate(), 60)
    assert running.process.returncode == 0, running.process.returncode


def flags(ui: bool) -> list[str]:
    return [] if ui else ["--no-ui"]


@pytest.mark.parametrize("ui", [True, False], ids=["ui", "no-ui"])
async def test_every_answer_outside_the_ui_is_sandboxed_while_the_ui_is_on(ui: bool, tmp_path: Path) -> None:
    """record, spy, then replay of what record kept: the table of answers through each."""
    cassette = tmp_path / "kept.yaml"
    environment = {TOKEN_VARIABLE: ""}
    async with hostile_upstream() as upstream:
        async with commerce_proxy(
            "record", "--upstream", upstream, "--cassette", str(cassette), *flags(ui), environment=environment
        ) as running:
            assert await check_answers(running, ui) == len(TYPES) * len(STATUSES) * 2
            await check_ours(running, ui)
            await stop(running)
        async with commerce_proxy(
            "spy", "--upstream", upstream, *flags(ui), environment=environment
        ) as running:
            await check_answers(running, ui)
            await check_ours(running, ui)
    kept = cassette.read_text()
    assert "sandbox" not in kept and "nosniff" not in kept  # added on the way out, never recorded
    faults = ["--slow-body-ms", "20"]
    for kind, method in itertools.product(["500:100%:", "slow:100%:"], ["GET", "HEAD"]):
        faults += ["--fault", f"{kind}{method} /{'fault' if kind[0] == '5' else 'slow'}*"]
    async with commerce_proxy(
        "replay", "--cassette", str(cassette), *faults, *flags(ui), environment=environment
    ) as running:
        await check_answers(running, ui)
        await check_ours(running, ui)
        for target, status in [("/fault/x", 500), ("/slow/x", 404), ("/not/recorded", 404)]:
            for method in ("GET", "HEAD"):
                got, headers, _ = await asyncio.to_thread(fetched, running.url, method, target)
                assert got == status, (target, method, got)
                assert (sandboxed if ui else not_sandboxed)(headers), (target, method, headers)
