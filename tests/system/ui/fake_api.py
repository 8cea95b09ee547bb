"""A stand-in for the UI's server (docs/ui.md's routes and documents), for the page's browser tests.

It serves proxy/ui_page/ at /_proxy/ui/ with the server's headers, lets each request in or not by the
servers' own access decision (`decide_access`: the token header for data and actions, the port's page
cookie set from `?token=` for the page alone), and answers the JSON API from an in-test list of detail documents (or a
function making the document of exchange N, for 100,000 rows). Filters are evaluated here in plain
Python, with one-line 400 answers for bad values like the real parser's.
"""

from __future__ import annotations

import asyncio
import contextlib
import fnmatch
import json
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from aiohttp import web

from proxy.core.model.access import Refuse, SetCookie, decide_access
from proxy.core.model.hosts import HostPolicy
from tests.paths import ROOT

PAGE_FOLDER = ROOT / "proxy" / "ui_page"
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
TYPES = {".html": "text/html", ".js": "text/javascript", ".css": "text/css"}
ROW_FIELDS = (
    "id",
    "cassette",
    "index",
    "method",
    "path",
    "status",
    "time",
    "duration_ms",
    "size",
    "endpoint",
    "findings",
    "answered",
)
Detail = dict[str, Any]


class BadFilter(ValueError):
    """A filter value the real parser refuses too; its text is the 400 answer's one line."""


class FakeTraffic:
    """The exchanges the fake serves: detail documents held, or made on demand for a large `count`."""

    def __init__(
        self,
        details: Sequence[Detail] = (),
        *,
        mode: str = "spy",
        sources: Sequence[str] = (),
        count: int = 0,
        make: Callable[[int], Detail] | None = None,
        baseline: bool = True,
        upstream: str = "http://127.0.0.1:9",
        left_out: int = 0,
    ) -> None:
        self.mode = mode
        self.left_out = left_out  # replay's answers served before the page asked that it does not list
        self.baseline: list[tuple[int, str]] | None = [] if baseline else None  # what was accepted
        self.upstream = upstream
        self.asked: list[tuple[str, dict[str, str]]] = []  # action calls the tests look at
        self.sources = list(sources)
        self._held = list(details)
        self._count = count
        self._make = make
        self._lock = threading.Lock()
        self._moved: list[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = []
        self._counts_cache: dict[str, dict[str, Any]] = {}
        self.counting = False  # as a large filter still being counted: `total` null, counts null
        self.streams: list[int] = []  # the cursor each event request asked from
        self.drops = 0  # event streams opened before the last `drop_streams` end
        self.refusing = 0  # event requests still to answer 503

    @property
    def total(self) -> int:
        return self._count + len(self._held)

    def detail(self, number: int) -> Detail | None:
        if 1 <= number <= self._count and self._make is not None:
            return self._make(number)
        if self._count < number <= self.total:
            return self._held[number - self._count - 1]
        return None

    def add(self, details: Sequence[Detail]) -> None:
        """Exchanges arriving live (any thread): numbered on, and every open event stream is woken."""
        with self._lock:
            for detail in details:
                self._held.append({**detail, "id": self.total + 1})
            self._counts_cache.clear()
            waiting, self._moved = self._moved, []
        for loop, moved in waiting:
            loop.call_soon_threadsafe(moved.set)

    def remove(self, number: int) -> None:
        """Exchange `number` deleted (a held one): the ones after it move up a number, as the real
        view's do after it re-indexes the cassette."""
        with self._lock:
            del self._held[number - self._count - 1]
            for place, detail in enumerate(self._held):
                detail["id"] = self._count + place + 1
            self._counts_cache.clear()

    def drop_streams(self, refuse: int = 0) -> None:
        """Every open event stream ends, as a server's connection drops (any thread), and the next
        `refuse` event requests are answered 503, as a server not back yet."""
        with self._lock:
            self.drops += 1
            self.refusing = refuse
            waiting, self._moved = self._moved, []
        for loop, moved in waiting:
            loop.call_soon_threadsafe(moved.set)

    def refuse_stream(self) -> bool:
        """Whether this event request is one `drop_streams` said to refuse."""
        with self._lock:
            if self.refusing == 0:
                return False
            self.refusing -= 1
            return True

    async def wait(self, cursor: int, timeout: float) -> None:
        moved = asyncio.Event()
        with self._lock:
            if self.total != cursor:
                return
            self._moved.append((asyncio.get_running_loop(), moved))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(moved.wait(), timeout)

    def matching(self, query: dict[str, str]) -> Iterator[Detail]:
        check = compile_filter(query)
        for number in range(1, self.total + 1):
            detail = self.detail(number)
            if detail is not None and check(detail):
                yield detail

    def window(self, query: dict[str, str], offset: int, limit: int) -> dict[str, Any]:
        if not query:
            numbers = range(offset + 1, min(self.total, offset + limit) + 1)
            rows = [row_of(self.detail(number) or {}) for number in numbers]
            total = self.total
        else:
            found = list(self.matching(query))
            rows = [row_of(detail) for detail in found[offset : offset + limit]]
            total = len(found)
        at_least = total
        if query and self.counting:
            total, at_least = None, offset + len(rows)
        return {
            "total": total,
            "at_least": at_least,
            "offset": offset,
            "limit": limit,
            "cursor": self.total,
            "exchanges": rows,
        }

    def counts(self, query: dict[str, str]) -> dict[str, Any]:
        if query and self.counting:
            return dict.fromkeys(("total", "rules", "severities", "endpoints"))
        key = json.dumps(query, sort_keys=True)
        if key not in self._counts_cache:
            document: dict[str, Any] = {"total": 0, "rules": {}, "severities": {}, "endpoints": {}}
            for detail in self.matching(query):
                document["total"] += 1
                for finding in detail.get("findings", []):
                    rules, severities = document["rules"], document["severities"]
                    rules[finding["rule"]] = rules.get(finding["rule"], 0) + 1
                    severities[finding["severity"]] = severities.get(finding["severity"], 0) + 1
                if detail.get("endpoint"):
                    name = detail["endpoint"]
                    document["endpoints"][name] = document["endpoints"].get(name, 0) + 1
            self._counts_cache[key] = document
        return self._counts_cache[key]


def row_of(detail: Detail) -> Detail:
    """A detail document's row: its row fields, findings counted by severity."""
    row = {name: detail.get(name) for name in ROW_FIELDS}
    findings = detail.get("findings", [])
    if isinstance(findings, list):
        row["findings"] = {
            severity: sum(1 for finding in findings if finding["severity"] == severity)
            for severity in ("error", "warning", "info")
        }
    return row


def compile_filter(query: dict[str, str]) -> Callable[[Detail], bool]:
    tests = [one_test(name, value) for name, value in query.items()]
    return lambda detail: all(test(detail) for test in tests)


def one_test(name: str, value: str) -> Callable[[Detail], bool]:
    """One filter parameter as a test of a detail document; BadFilter as the real parser words it."""
    if name == "method":
        if not re.fullmatch(r"[A-Za-z]+", value):
            raise BadFilter(
                f"filter parameter 'method': expected an HTTP method such as GET, found {value!r}"
            )
        return lambda d: bool(d["method"] == value.upper())
    if name == "status":
        if not re.fullmatch(r"[1-5](xx|\d\d)", value.lower()):
            raise BadFilter(
                f"filter parameter 'status': expected a class such as 2xx or a status such as 404, found {value!r}"
            )
        pattern = value.lower().replace("x", r"\d")
        return lambda d: re.fullmatch(pattern, str(d["status"])) is not None
    if name == "path":
        return lambda d: fnmatch.fnmatchcase(d["path"].split("?")[0], value)
    if name in ("endpoint", "cassette"):
        return lambda d: bool(d.get(name) == value)
    if name == "rule":
        return lambda d: any(f["rule"] == value for f in d.get("findings", []))
    if name == "severity":
        if value not in ("error", "warning", "info"):
            raise BadFilter(
                f"filter parameter 'severity': expected one of error, warning, info, found {value!r}"
            )
        return lambda d: any(f["severity"] == value for f in d.get("findings", []))
    if name == "has_findings":
        if value not in ("true", "false"):
            raise BadFilter(f"filter parameter 'has_findings': expected true or false, found {value!r}")
        return lambda d: bool(d.get("findings")) == (value == "true")
    if name == "text":
        return lambda d: value in body_text(d)
    raise BadFilter(f"unknown filter parameter {name!r}")


def compile_filter_or_400(query: dict[str, str]) -> Callable[[Detail], bool]:
    try:
        return compile_filter(query)
    except BadFilter as error:
        raise web.HTTPBadRequest(
            text=json.dumps({"error": str(error)}), content_type="application/json"
        ) from None


def body_text(detail: Detail) -> str:
    sides = (detail.get("request") or {}, detail.get("response") or {})
    return "\n".join((side.get("body") or {}).get("text") or "" for side in sides)


def fake_app(traffic: FakeTraffic, token: str, csp: bool = True) -> web.Application:
    """The fake's routes, behind the real servers' access decision; `csp=False` leaves the
    Content-Security-Policy out, so the XSS probes show the page safe on its own too."""
    stopping = asyncio.Event()

    @web.middleware
    async def guard(request: web.Request, handler: Any) -> web.StreamResponse:
        headers = tuple(
            (name.decode("latin-1"), value.decode("latin-1")) for name, value in request.raw_headers
        )
        local = request.transport.get_extra_info("sockname") if request.transport is not None else None
        at, port = (str(local[0]), int(local[1])) if isinstance(local, tuple) else (None, None)
        decision = decide_access(request.method, request.raw_path, headers, token, HostPolicy.of(), at, port)
        if isinstance(decision, SetCookie):
            return web.Response(
                status=303, headers={"Location": decision.location, "Set-Cookie": decision.cookie}
            )
        if isinstance(decision, Refuse):
            return web.Response(status=decision.status, text=f"commerce-proxy: {decision.detail}\n")
        answer = await handler(request)
        if not answer.prepared:
            answer.headers.update({"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"})
            if csp:
                answer.headers["Content-Security-Policy"] = CSP
        return answer

    def query_of(request: web.Request) -> dict[str, str]:
        return {name: value for name, value in request.query.items() if name not in ("offset", "limit")}

    def api(document: Any, status: int = 200) -> web.Response:
        return web.json_response(document, status=status, headers={"Cache-Control": "no-store"})

    async def index(request: web.Request) -> web.StreamResponse:
        return asset_response("index.html")

    async def asset(request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]
        if not re.fullmatch(r"[a-z_]+\.(js|css)", name) or not (PAGE_FOLDER / name).is_file():
            raise web.HTTPNotFound()
        return asset_response(name)

    async def info(request: web.Request) -> web.Response:
        document: dict[str, Any] = {
            "mode": traffic.mode,
            "sources": traffic.sources,
            "exchanges": traffic.total,
            "cursor": traffic.total,
            "left_out": traffic.left_out,
        }
        return api(document)

    async def exchanges(request: web.Request) -> web.Response:
        try:
            offset = int(request.query.get("offset", "0"))
            limit = int(request.query.get("limit", "100"))
            if offset < 0 or not 1 <= limit <= 500:
                raise BadFilter(f"offset {offset} and limit {limit}: limit is 1 to 500")
            return api(traffic.window(query_of(request), offset, limit))
        except (BadFilter, ValueError) as error:
            return api({"error": str(error)}, 400)

    async def counts(request: web.Request) -> web.Response:
        try:
            return api(traffic.counts(query_of(request)))
        except BadFilter as error:
            return api({"error": str(error)}, 400)

    async def one(request: web.Request) -> web.Response:
        detail = traffic.detail(int(request.match_info["number"]))
        if detail is None:
            return api({"error": "no such exchange"}, 404)
        return api({**row_of(detail), **detail})

    async def events(request: web.Request) -> web.StreamResponse:
        cursor = int(request.headers.get("Last-Event-ID") or request.query.get("cursor", "0"))
        traffic.streams.append(cursor)
        if traffic.refuse_stream():
            return api({"error": "not back yet"}, 503)
        opened_at = traffic.drops
        stream = web.StreamResponse(
            headers={"Content-Type": "text/event-stream", "Cache-Control": "no-store"}
        )
        await stream.prepare(request)
        while not stopping.is_set() and traffic.drops == opened_at:
            if traffic.total > cursor:
                rows = [
                    row_of(traffic.detail(n) or {})
                    for n in range(cursor + 1, min(traffic.total, cursor + 500) + 1)
                ]
                cursor += len(rows)
                document = json.dumps({"cursor": cursor, "exchanges": rows})
                await stream.write(f"id: {cursor}\nevent: exchanges\ndata: {document}\n\n".encode())
                continue
            await stream.write(b": still here\n\n")
            await traffic.wait(cursor, 0.5)
        return stream

    async def stop(app: web.Application) -> None:
        stopping.set()

    app = web.Application(middlewares=[guard])
    app.router.add_get("/_proxy/ui/", index)
    app.router.add_get("/_proxy/ui/assets/{name}", asset)
    app.router.add_get("/_proxy/ui/api/info", info)
    app.router.add_get("/_proxy/ui/api/exchanges", exchanges)
    app.router.add_get("/_proxy/ui/api/counts", counts)
    app.router.add_get(r"/_proxy/ui/api/exchanges/{number:\d+}", one)
    app.router.add_get("/_proxy/ui/api/events", events)
    app.on_shutdown.append(stop)
    from tests.system.ui.fake_actions import add_action_routes  # it imports this module

    add_action_routes(app, traffic)
    return app


def asset_response(name: str) -> web.Response:
    path: Path = PAGE_FOLDER / name
    return web.Response(body=path.read_bytes(), content_type=TYPES[path.suffix], charset="utf-8")
