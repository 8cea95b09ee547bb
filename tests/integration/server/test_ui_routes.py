"""The UI's routes over a small hand-built view, on a real server and raw sockets: the token's cookie,
the security headers on every answer, the JSON API, the event stream resumed by Last-Event-ID, path
traversal probes on the assets, and a server without a UI."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Iterable
from pathlib import Path
from typing import Any

import pytest

from proxy.core.model.access import TOKEN_COOKIE, TOKEN_HEADER, TOKEN_VARIABLE, cookie_name, ours, page_pass
from proxy.core.redaction.redact import RedactionPolicy
from proxy.core.replay.book import ReplayBook
from proxy.core.replay.matching import MatchPolicy
from proxy.errors import StillIndexing, UsageError
from proxy.server.admin import UI_HEADERS
from proxy.server.replay import Replayer
from proxy.server.serving import start
from proxy.server.ui_routes import UiRoutes, create_ui_app
from proxy.store.page_files import page_files

TOKEN = "ui-test-token-0123456789abcdefghij"
FILTERS = ("method", "status", "path", "endpoint", "rule", "severity", "has_findings", "cassette", "text")
PAGE_FILES = {
    "index.html": b"<!doctype html><title>traffic</title>",
    "app.js": b"export const x = 1;",
    "style.css": b"body{}",
    "lib/list.js": b"export const y = 2;",
    "logo.svg": b"<svg/>",
}


def row(number: int) -> dict[str, Any]:
    method = "POST" if number % 3 == 0 else "GET"
    return {"id": number, "method": method, "path": f"/v2/products/{number}", "status": 200}


class FakeView:
    """A view over an in-memory list of rows, filtering by method only (the real index is Part A's)."""

    mode = "offline"

    def __init__(self, rows: int) -> None:
        self.rows = [row(number) for number in range(1, rows + 1)]
        self.moved = asyncio.Event()
        self.closed = False
        self.text_pending = False  # as a large offline index whose bodies' text is still going in

    def add(self, count: int) -> None:
        start = len(self.rows) + 1
        self.rows += [row(number) for number in range(start, start + count)]
        self.moved.set()

    def info(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "sources": ["c.yaml"],
            "exchanges": len(self.rows),
            "cursor": len(self.rows),
        }

    def _matching(self, query: dict[str, str]) -> list[dict[str, Any]]:
        if self.text_pending and "text" in query:
            raise StillIndexing("the bodies' text is still being indexed (10 of 1,200 exchanges)")
        if query.get("cassette") == "nobody":  # as a view refuses a name no cassette has
            raise UsageError("cassette=nobody: no cassette of that name is open")
        return [found for found in self.rows if query.get("method", found["method"]) == found["method"]]

    def window(self, query: dict[str, str], offset: int, limit: int) -> dict[str, Any]:
        assert limit <= 500
        rows = self._matching(query)
        page = rows[offset : offset + limit]
        return {
            "total": len(rows),
            "offset": offset,
            "limit": limit,
            "cursor": len(self.rows),
            "exchanges": page,
        }

    def counts(self, query: dict[str, str]) -> dict[str, Any]:
        return {"total": len(self._matching(query)), "rules": {}, "severities": {}, "endpoints": {}}

    def exchange(self, number: int) -> dict[str, Any] | None:
        return {**self.rows[number - 1], "findings": []} if 1 <= number <= len(self.rows) else None

    def changes(self, cursor: int, limit: int = 500, wait: bool = True) -> dict[str, Any] | None:
        rows = self.rows[cursor : cursor + limit]
        return {"cursor": cursor + len(rows), "exchanges": rows}

    async def wait(self, cursor: int, timeout: float) -> int:
        if len(self.rows) == cursor:
            self.moved.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.moved.wait(), timeout)
        return len(self.rows)

    def wake(self) -> None:
        self.moved.set()

    def close(self) -> None:
        self.closed = True


def parse(pairs: Iterable[tuple[str, str]]) -> dict[str, str]:
    """Stands for Part A's parse_query: known names only, a one-line UsageError otherwise."""
    query = {}
    for name, value in pairs:
        if name not in FILTERS:
            raise UsageError(f"unknown filter parameter {name!r}")
        query[name] = value
    return query


@pytest.fixture
async def ui() -> AsyncIterator[tuple[str, FakeView]]:
    view = FakeView(1200)
    server = create_ui_app(UiRoutes(view, parse, PAGE_FILES, keep_alive=0.2), TOKEN)
    runner, url = await start(server, "127.0.0.1", 0)
    yield url, view
    await runner.cleanup()
    assert view.closed


async def fetch(url: str, target: str, *lines: str, method: str = "GET") -> tuple[int, dict[str, str], bytes]:
    """One request on a new connection (raw: the target goes as written); status, headers, body."""
    address, port = url.removeprefix("http://").rsplit(":", 1)
    reader, writer = await asyncio.open_connection(address, int(port))
    try:
        extra = "".join(f"{line}\r\n" for line in lines)
        writer.write(
            f"{method} {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{extra}Connection: close\r\n\r\n".encode()
        )
        raw = await asyncio.wait_for(reader.read(), 10)
    finally:
        writer.close()
    head, _, body = raw.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    headers = {
        name.lower(): value.strip() for name, _, value in (line.partition(":") for line in header_lines)
    }
    return int(status_line.split()[1]), headers, body


def secured(headers: dict[str, str]) -> None:
    for name, value in UI_HEADERS.items():
        assert headers[name.lower()] == value, name


AUTH = f"{TOKEN_HEADER}: {TOKEN}"


async def test_the_printed_address_moves_the_token_to_the_fragment_and_its_cookie_opens_the_page_alone(
    ui: tuple[str, FakeView],
) -> None:
    """?token=T answers 303 to the page with the token in the fragment (the page's script keeps it), and a
    cookie named after the port whose value is not the token; that cookie opens the page and its files,
    and no data."""
    url, _ = ui
    port = int(url.rsplit(":", 1)[1])
    status, headers, _ = await fetch(url, "/_proxy/ui/")
    assert status == 403
    secured(headers)
    status, headers, _ = await fetch(url, f"/_proxy/ui/?token={TOKEN}&rule=a.b")
    assert status == 303 and headers["location"] == f"/_proxy/ui/?rule=a.b#token={TOKEN}"
    cookie = f"{cookie_name(port)}={page_pass(TOKEN)}"
    assert headers["set-cookie"] == f"{cookie}; HttpOnly; SameSite=Strict; Path=/_proxy/ui/"
    assert cookie_name(port) == f"{TOKEN_COOKIE}_{port}" and TOKEN not in headers["set-cookie"]
    secured(headers)
    for page in ("/_proxy/ui/?rule=a.b", "/_proxy/ui/assets/app.js"):
        status, headers, body = await fetch(url, page, f"Cookie: {cookie}")
        assert status == 200, page
        secured(headers)
    assert body == PAGE_FILES["app.js"]
    status, _, _ = await fetch(url, "/_proxy/ui/?token=wrong")
    assert status == 403


async def test_no_cookie_opens_data_and_info_never_tells_the_token(ui: tuple[str, FakeView]) -> None:
    """Every data route needs the header: the page's cookie, the token sent as a cookie under any name,
    are each a 403; api/info, asked with the header, does not hold the token."""
    url, _ = ui
    port = int(url.rsplit(":", 1)[1])
    _, _, body = await fetch(url, "/_proxy/ui/api/info", AUTH)
    assert "token" not in json.loads(body) and TOKEN.encode() not in body
    cookies = [
        f"{name}={value}" for name in (TOKEN_COOKIE, cookie_name(port)) for value in (TOKEN, page_pass(TOKEN))
    ]
    for cookie in cookies:
        for route in ("info", "exchanges", "counts", "exchanges/1", "events?cursor=0"):
            status, _, body = await fetch(url, f"/_proxy/ui/api/{route}", f"Cookie: {cookie}")
            assert status == 403 and TOKEN.encode() not in body, (cookie, route)


async def test_the_api_answers_the_views_documents_with_the_security_headers(
    ui: tuple[str, FakeView],
) -> None:
    url, _ = ui
    status, headers, body = await fetch(url, "/_proxy/ui/api/info", AUTH)
    assert status == 200 and json.loads(body)["exchanges"] == 1200
    secured(headers)
    status, headers, body = await fetch(url, "/_proxy/ui/api/exchanges?method=POST&offset=10&limit=500", AUTH)
    document = json.loads(body)
    assert status == 200 and document["total"] == 400 and len(document["exchanges"]) == 390
    assert document["exchanges"][0]["id"] == 33
    secured(headers)
    status, _, body = await fetch(url, "/_proxy/ui/api/exchanges", AUTH)
    assert len(json.loads(body)["exchanges"]) == 100  # the default window
    status, _, body = await fetch(url, "/_proxy/ui/api/counts?method=GET", AUTH)
    assert json.loads(body)["total"] == 800
    status, _, body = await fetch(url, "/_proxy/ui/api/exchanges/7", AUTH)
    assert status == 200 and json.loads(body)["path"] == "/v2/products/7"
    for missing in ("/_proxy/ui/api/exchanges/0", "/_proxy/ui/api/exchanges/1201", "/_proxy/ui/api/nothing"):
        status, headers, _ = await fetch(url, missing, AUTH)
        assert status == 404, missing
        secured(headers)
    for bad in ("limit=501", "offset=-1", "offset=x", "limit=1&limit=2", "colour=red", "offset=1e3"):
        status, headers, body = await fetch(url, f"/_proxy/ui/api/exchanges?{bad}", AUTH)
        detail = json.loads(body)["errors"][0]["detail"]
        assert status == 400 and "\n" not in detail and detail, (bad, detail)
        secured(headers)
    status, headers, _ = await fetch(url, "/_proxy/ui/api/info", AUTH, method="DELETE")
    assert status == 405
    status, _, body = await fetch(url, "/_proxy/health")  # scripts need no token
    assert status == 200 and json.loads(body) == {"status": "ok", "mode": "offline", "exchanges": 1200}
    for elsewhere in ("/v2/products", "/_proxy/reset", "/_proxy/findings"):
        assert (await fetch(url, elsewhere, AUTH))[0] == 404, elsewhere


async def read_events(
    url: str, target: str, *lines: str, events: int
) -> tuple[dict[str, str], list[tuple[int, list[int]]]]:
    """Open the event stream; the head and the first `events` events as (id, row ids)."""
    address, port = url.removeprefix("http://").rsplit(":", 1)
    reader, writer = await asyncio.open_connection(address, int(port))
    extra = "".join(f"{line}\r\n" for line in lines)
    writer.write(f"GET {target} HTTP/1.1\r\n{extra}\r\n".encode())
    head = (await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)).decode("latin-1")
    headers = {
        name.lower(): value.strip()
        for name, _, value in (line.partition(":") for line in head.split("\r\n")[1:])
    }
    seen: list[tuple[int, list[int]]] = []
    text = ""
    try:
        while len(seen) < events:
            size = int(await asyncio.wait_for(reader.readuntil(b"\r\n"), 10), 16)
            text += (await asyncio.wait_for(reader.readexactly(size + 2), 10))[:-2].decode()
            while "\n\n" in text:
                event, _, text = text.partition("\n\n")
                fields = dict(line.split(": ", 1) for line in event.split("\n") if not line.startswith(":"))
                if fields:
                    assert fields["event"] == "exchanges"
                    data = json.loads(fields["data"])
                    assert int(fields["id"]) == data["cursor"]
                    seen.append((int(fields["id"]), [found["id"] for found in data["exchanges"]]))
    finally:
        writer.close()
    return headers, seen


async def test_events_resume_from_the_cursor_or_last_event_id_and_push_what_comes(
    ui: tuple[str, FakeView],
) -> None:
    """From ?cursor=N, or Last-Event-ID (which wins: it is the browser's own resumption), each batch of
    rows once, at most 500 an event, in order; rows added later arrive as they come."""
    url, view = ui
    headers, seen = await read_events(url, "/_proxy/ui/api/events?cursor=1190", AUTH, events=1)
    assert headers["content-type"] == "text/event-stream; charset=utf-8"
    secured(headers)
    assert seen == [(1200, list(range(1191, 1201)))]
    headers, seen = await read_events(
        url, "/_proxy/ui/api/events?cursor=5", AUTH, "Last-Event-ID: 100", events=3
    )
    assert seen == [
        (600, list(range(101, 601))),
        (1100, list(range(601, 1101))),
        (1200, list(range(1101, 1201))),
    ]

    async def later() -> None:
        await asyncio.sleep(0.3)  # after a keep-alive comment or two
        view.add(3)

    adding = asyncio.create_task(later())
    _, seen = await read_events(url, "/_proxy/ui/api/events", AUTH, "Last-Event-ID: 1200", events=1)
    await adding
    assert seen == [(1203, [1201, 1202, 1203])]
    assert (await fetch(url, "/_proxy/ui/api/events", AUTH, "Last-Event-ID: x"))[0] == 400
    assert (await fetch(url, "/_proxy/ui/api/events?cursor=0"))[0] == 403  # no token, no events


TRAVERSALS = [
    "../secret.txt",
    "..%2fsecret.txt",
    "..%2Fsecret.txt",
    "%2e%2e/secret.txt",
    "%2e%2e%2fsecret.txt",
    "..\\secret.txt",
    "..%5csecret.txt",
    "lib/../../secret.txt",
    "lib/%2e%2e/%2e%2e/secret.txt",
    "....//secret.txt",
    "/secret.txt",
    "//etc/passwd",
    "/etc/passwd",
    "%2fetc%2fpasswd",
    "lib/../app.js",
    "./app.js",
    "app.js/",
    "app.js%00.css",
    "APP.JS",
    ".hidden",
    "_private.js",
    "lib",
    "lib/",
    "",
    "..",
    "%2e%2e",
    "file:///etc/passwd",
    "ui_page/app.js",
]


async def test_only_the_files_the_package_ships_are_served_whatever_the_path_says(tmp_path: Path) -> None:
    """Path traversal probes, encoded and not, dot and underscore files, folders: 404, and no byte of a
    file beside the page's folder is ever answered."""
    folder = tmp_path / "ui_page"
    (folder / "lib").mkdir(parents=True)
    for name, body in PAGE_FILES.items():
        (folder / name).write_bytes(body)
    (folder / ".hidden").write_bytes(b"SECRET-hidden")
    (folder / "_private.js").write_bytes(b"SECRET-private")
    (tmp_path / "secret.txt").write_bytes(b"SECRET-beside")
    files = page_files(folder)
    assert files == PAGE_FILES
    view = FakeView(1)
    runner, url = await start(create_ui_app(UiRoutes(view, parse, files), TOKEN), "127.0.0.1", 0)
    try:
        for name, body in PAGE_FILES.items():
            status, headers, answered = await fetch(url, f"/_proxy/ui/assets/{name}", AUTH)
            assert (status, answered) == (200, body), name
            secured(headers)
        kinds = {"app.js": "text/javascript", "style.css": "text/css", "logo.svg": "image/svg+xml"}
        for name, kind in kinds.items():
            assert (await fetch(url, f"/_proxy/ui/assets/{name}", AUTH))[1]["content-type"].startswith(kind)
        for probe in TRAVERSALS:
            for prefix in ("/_proxy/ui/assets/", "/_proxy/ui/"):
                status, headers, answered = await fetch(url, prefix + probe, AUTH)
                assert b"SECRET" not in answered and b"root:" not in answered, probe
                secured(headers)  # every answer, a 400 or a 404 too
                # Answered as the route its plain spelling names, as every server does (`access.ours`):
                # `assets/lib/../app.js` is the shipped app.js, `assets/..` the page; never another file.
                route = ours(prefix + probe) or ""
                sendable = route.isprintable() and " " not in route  # not `app.js\x00.css`
                if sendable and route != prefix + probe and status != 400:
                    routed, _, expected = await fetch(url, route, AUTH)
                    assert (status, answered) == (routed, expected), (prefix + probe, route)
                elif prefix.endswith("assets/") or probe:
                    assert status in (400, 404), (prefix + probe, status)
    finally:
        await runner.cleanup()


async def test_a_server_without_a_ui_answers_404_there_and_reset_needs_the_token(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """replay --no-ui (and the plugin's servers): /_proxy/ui/ is a 404 with or without the token; a UI
    added later is served behind the same token that guards POST /_proxy/reset."""
    monkeypatch.setenv(TOKEN_VARIABLE, TOKEN)
    replayer = Replayer(ReplayBook.build([], MatchPolicy(), RedactionPolicy()))
    runner, url = await start(replayer.server, "127.0.0.1", 0)
    try:
        for target in ("/_proxy/ui/", f"/_proxy/ui/?token={TOKEN}", "/_proxy/ui/api/info", "/_proxy/ui"):
            assert (await fetch(url, target, AUTH))[0] == 404, target
        assert (await fetch(url, "/_proxy/reset", method="POST"))[0] == 403
        assert (await fetch(url, "/_proxy/reset", AUTH, method="POST"))[0] == 200
        replayer.door.ui = UiRoutes(FakeView(3), parse, PAGE_FILES)
        assert (await fetch(url, "/_proxy/ui/api/info"))[0] == 403
        status, _, body = await fetch(url, "/_proxy/ui/api/info", AUTH)
        assert status == 200 and json.loads(body)["exchanges"] == 3
        status, headers, _ = await fetch(url, "/_proxy/ui", AUTH)
        assert status == 308 and headers["location"] == "/_proxy/ui/"
    finally:
        await runner.cleanup()


async def test_a_text_filter_while_the_text_is_indexed_is_a_503_saying_so(ui: tuple[str, FakeView]) -> None:
    url, view = ui
    view.text_pending = True
    for route in ("exchanges", "counts"):
        status, headers, body = await fetch(url, f"/_proxy/ui/api/{route}?method=GET&text=abc", AUTH)
        detail = json.loads(body)["errors"][0]["detail"]
        assert status == 503 and "still being indexed" in detail and "\n" not in detail, route
        secured(headers)
        assert (await fetch(url, f"/_proxy/ui/api/{route}?method=GET", AUTH))[0] == 200  # rows answer
    view.text_pending = False
    assert (await fetch(url, "/_proxy/ui/api/exchanges?text=abc", AUTH))[0] == 200


async def test_a_filter_the_view_refuses_is_a_400_from_every_read_route(ui: tuple[str, FakeView]) -> None:
    """The view is read in a worker thread: what it refuses there is a 400, as a refusal of the parser."""
    url, _ = ui
    for route in ("exchanges", "counts"):
        status, headers, body = await fetch(url, f"/_proxy/ui/api/{route}?cassette=nobody", AUTH)
        assert status == 400, route
        assert json.loads(body)["errors"][0]["detail"] == "cassette=nobody: no cassette of that name is open"
        secured(headers)
