"""The UI's routes under /_proxy/ui/: the page, its files, the JSON API and the push of new exchanges.

An adapter like the CLI: each route reads its parameters and calls the traffic view (the use case in
`proxy/app/traffic_view.py`), which does the work. The access decision has already let the request in
(`admin.answer_ours`). The API documents are the view's own; docs/ui.md describes them.

    GET /_proxy/ui/                    the page          GET /_proxy/ui/api/info            view.info()
    GET /_proxy/ui/assets/NAME         its files         GET /_proxy/ui/api/counts?FILTER   view.counts
    GET /_proxy/ui/api/exchanges?FILTER&offset=&limit=   view.window
    GET /_proxy/ui/api/exchanges/ID    view.exchange     GET /_proxy/ui/api/events?cursor=N  events
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from typing import Any, Protocol
from urllib.parse import parse_qsl

from proxy.core.model.access import UI_PATH, ours
from proxy.core.model.bodies import dump_json, error_document
from proxy.core.redaction.book import KNOWN
from proxy.core.reports.escaping import visible
from proxy.errors import StillIndexing, UsageError
from proxy.server.admin import UI_HEADERS, Door, answer_ours
from proxy.server.ui_assets import PAGE, Assets
from proxy.server.ui_parameters import BadParameter, exchange_id, number, only, whole_number
from proxy.server.wire import Incoming, Outgoing, Reply, Stream, WireServer, json_answer

API = UI_PATH + "api/"
ASSETS = UI_PATH + "assets/"
LIMIT, MOST = 100, 500  # rows in a window by default, and at most
KEEP_ALIVE_SECONDS = 15.0  # a comment line this often keeps an idle event stream open through proxies
# New rows are pushed at most this often (what arrives meanwhile goes in the same event) rather than
# once per flush of the index: fewer events to frame, query and send, and fewer frames for the page to
# draw (a page following `record` at full rate cost Chromium's renderer about half as much as at 0.1 s),
# well within the second a row may take to appear.
PUSH_SECONDS = 0.25
HEALTH = "/_proxy/health"

Document = dict[str, Any]
ParseFilter = Callable[[Iterable[tuple[str, str]]], Any]  # `parse_query`: a Query, or a QueryError


class TrafficViewing(Protocol):
    """What the routes call of a traffic view (`proxy.app.traffic_view.TrafficView`)."""

    mode: str

    def info(self) -> Document: ...
    def window(self, query: Any, offset: int, limit: int) -> Document: ...
    def counts(self, query: Any) -> Document: ...
    def exchange(self, number: int) -> Document | None: ...
    def changes(self, cursor: int, limit: int = MOST, wait: bool = True) -> Document | None: ...
    async def wait(self, cursor: int, timeout: float) -> int: ...
    def wake(self) -> None: ...
    def close(self) -> None: ...


class ActionAnswering(Protocol):
    """The action routes (`ui_action_routes.ActionRoutes`): an answer, or None for a route not theirs."""

    def answer(
        self, incoming: Incoming, route: str, pairs: list[tuple[str, str]]
    ) -> Reply | Awaitable[Reply] | None: ...
    def stop(self) -> None: ...


class UiRoutes:
    """The routes over one view. `parse` reads a filter's parameters (the core's `parse_query`), `files`
    are the page's files by name."""

    def __init__(
        self,
        view: TrafficViewing,
        parse: ParseFilter,
        files: Mapping[str, bytes],
        keep_alive: float = KEEP_ALIVE_SECONDS,
        actions: ActionAnswering | None = None,
        push_every: float = PUSH_SECONDS,
    ) -> None:
        self.view = view
        self.parse = parse
        self.assets = Assets(files)
        self.keep_alive = keep_alive
        self.push_every = push_every
        self.actions = actions  # the action routes (curl, diff, export, baseline, edit...), when served
        self.finishing = False  # the server stops: each event stream sends what is left and ends

    def stop(self) -> None:
        """The server begins to stop: an action not done yet is given up (a 503), not waited for."""
        if self.actions is not None:
            self.actions.stop()

    def finish(self) -> None:
        """End every event stream after the rows indexed by now (called once every answer is given)."""
        self.finishing = True
        self.view.wake()

    def answer(self, incoming: Incoming, path: str, query: str) -> Reply | Awaitable[Reply]:
        """The answer to a request the door let in."""
        if self.actions is not None and path.startswith(API):
            pairs = parse_qsl(query, keep_blank_values=True)
            handled = self.actions.answer(incoming, path.removeprefix(API), pairs)
            if handled is not None:
                return handled
        if incoming.method not in ("GET", "HEAD"):
            document = error_document(405, "Method Not Allowed", f"{path} takes GET")
            return json_answer(405, document, {"Allow": "GET", **UI_HEADERS})
        try:
            return self._route(incoming, path, parse_qsl(query, keep_blank_values=True))
        except (BadParameter, UsageError, StillIndexing) as error:
            return _refused(error)

    def _route(self, incoming: Incoming, path: str, pairs: list[tuple[str, str]]) -> Reply | Awaitable[Reply]:
        if path == UI_PATH:
            return self.assets.answer(PAGE)
        if path.startswith(ASSETS):
            return self.assets.answer(path.removeprefix(ASSETS))
        route = path.removeprefix(API)
        if route == "info":
            only(pairs, "info", ())
            return _json(200, self.view.info())
        if route == "counts":
            query = self.parse(pairs)
            return _off_loop(lambda: _json(200, self.view.counts(query)))
        if route == "exchanges":
            offset = number(pairs, "offset", 0)
            limit = number(pairs, "limit", LIMIT)
            if limit > MOST:
                raise BadParameter(f"limit={limit}: at most {MOST} exchanges a window")
            rest = [(name, value) for name, value in pairs if name not in ("offset", "limit")]
            query = self.parse(rest)
            return _off_loop(lambda: _json(200, self.view.window(query, offset, limit)))
        if route.startswith("exchanges/") and "/" not in route.removeprefix("exchanges/"):
            wanted = exchange_id(route.removeprefix("exchanges/"))
            only(pairs, "exchanges/ID", ())
            return _off_loop(lambda: self._exchange(wanted))
        if route == "events":
            return self._events(incoming, pairs)
        return _json(404, error_document(404, "Not Found", f"no UI route {path[:80]!r}"))

    def _events(self, incoming: Incoming, pairs: list[tuple[str, str]]) -> Reply:
        # The stream is every added row: a filter it ignored would look applied.
        only(pairs, "events", ("cursor",), "; the stream sends every row added: ask exchanges?FILTER")
        resumed = [value.strip() for name, value in incoming.headers if name.lower() == "last-event-id"]
        if len(resumed) > 1:
            raise BadParameter(f"Last-Event-ID given {len(resumed)} times: give it once")
        resumed = [value for value in resumed if value]  # an empty one: none (a first connection)
        cursor = whole_number(resumed[0], "Last-Event-ID") if resumed else number(pairs, "cursor", 0)
        last = int(self.view.info()["cursor"])
        if cursor > last:  # a cursor of another run (a restart): resuming there would skip rows unseen
            detail = (
                f"cursor {cursor} is past this server's last exchange ({last}): it comes from another "
                "run of the server; ask from cursor=0"
            )
            return _json(409, error_document(409, "Conflict", detail))
        headers = (("Content-Type", "text/event-stream; charset=utf-8"), *UI_HEADERS.items())
        return Stream(200, headers, self.events(cursor))

    def _exchange(self, number: int) -> Reply:
        found = self.view.exchange(number)
        if found is None:
            return _json(404, error_document(404, "Not Found", f"no exchange {number}"))
        return _json(200, found)

    async def events(self, cursor: int) -> AsyncIterator[bytes]:
        """Server-Sent Events from `cursor`: the rows added since the last event as one `exchanges`
        event whose id is the cursor after it (so a reconnecting page resumes with Last-Event-ID), at
        most one every `push_every` seconds (at once while the client is a full event behind), a
        comment line when nothing happened for a while."""
        loop = asyncio.get_running_loop()
        pushed = loop.time() - self.push_every
        yield b": commerce-proxy events\n\n"
        while True:
            # On the loop when the view is free (a live view's batches are added by this loop); else
            # in a thread, not to stall the traffic while a reader or a writer thread holds the view.
            found = self._event(cursor, wait=False) or await asyncio.to_thread(self._event, cursor)
            assert found is not None  # a wait always finds
            cursor, count, event = found
            if count:
                yield event
                if count >= MOST:
                    continue  # behind: the next rows at once
                pushed = loop.time()
            if self.finishing:
                return  # the last rows are sent
            if await self.view.wait(cursor, self.keep_alive) == cursor:
                if not self.finishing:
                    yield b": keep-alive\n\n"
                continue
            if not self.finishing:
                await asyncio.sleep(pushed + self.push_every - loop.time())  # let more rows gather

    def _event(self, cursor: int, wait: bool = True) -> tuple[int, int, bytes] | None:
        """The cursor after the rows past `cursor`, how many, and their event; None, without `wait`,
        when the view is busy."""
        changed = self.view.changes(cursor, MOST, wait)
        if changed is None:
            return None
        moved, rows = int(changed["cursor"]), len(changed["exchanges"])
        if not rows:
            return moved, 0, b""
        text = KNOWN.scrub(dump_json(changed).decode("utf-8"))  # orjson: a tenth of json's time
        return moved, rows, f"id: {moved}\nevent: exchanges\ndata: {text}\n\n".encode()


def _json(status: int, document: Any) -> Outgoing:
    return json_answer(status, document, UI_HEADERS)


async def _off_loop(answer: Callable[[], Reply]) -> Reply:
    """An answer read from the view in a worker thread: a large filter's step, or a writer thread
    adding a batch, holds it, and the server's loop, waiting for it there, would stall every exchange
    it proxies meanwhile. A refusal raised there is answered as on the loop."""
    try:
        return await asyncio.to_thread(answer)
    except (BadParameter, UsageError, StillIndexing) as error:
        return _refused(error)


def _refused(error: Exception) -> Reply:
    """A bad parameter is a 400; a text filter before the text is all in a 503 (asked again later).
    The message is one line as the command line prints it: a value it quotes cannot cut it short."""
    line = visible(str(error))
    if isinstance(error, StillIndexing):
        return _json(503, error_document(503, "Service Unavailable", line))
    return _json(400, error_document(400, "Bad Request", line))


def create_ui_app(routes: UiRoutes, token: str) -> WireServer:
    """`commerce-proxy ui`'s server: the UI over its view, and /_proxy/health; nothing else is served."""

    def health() -> Outgoing:
        info = routes.view.info()
        return json_answer(200, {"status": "ok", "mode": routes.view.mode, "exchanges": info["exchanges"]})

    door = Door({HEALTH: ("GET", health)}, token, routes)

    def handle(incoming: Incoming) -> Reply | Awaitable[Reply]:
        path = incoming.target.partition("?")[0]
        if (route := ours(path)) is not None:  # every spelling, judged as the route it names
            return answer_ours(door, incoming, route, server.hosts)
        detail = f"this server shows recorded traffic at {UI_PATH}; it serves nothing at {path[:80]!r}"
        incoming.for_ui = True  # ours too (this server passes nothing on): the UI's headers, no sandbox
        return json_answer(404, error_document(404, "Not Found", detail), UI_HEADERS)

    async def close_view() -> None:
        routes.view.close()

    async def finish() -> None:
        routes.finish()

    server = WireServer(handle, has_ui=door.has_ui)
    server.on_stopping.append(routes.stop)
    server.on_drained.append(finish)
    server.on_cleanup.append(close_view)
    return server
