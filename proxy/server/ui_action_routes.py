"""The UI's action routes under /_proxy/ui/api/: each reads its parameters or JSON body, calls the
actions (`proxy/app/ui_action_cases.py`, which decide), and writes the answer. The access decision has
let the request in; every POST came with the token header.

    GET  exchanges/ID/curl   diff?a=&b=[&all=1]   sources   cassette-diff?a=&b=[&all=1]
         export?FILTER&format=
    POST baseline   exchanges/ID/delete   exchanges/ID/edit   exchanges/ID/resend
"""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from proxy.app.ui_action_cases import Conflict, NotFound, Send, Stopping, TooMany, UiActions, WrongMode
from proxy.app.ui_actions import json_type
from proxy.core.editing.edits import parse_value
from proxy.core.model.bodies import body_from_bytes, body_to_bytes, error_document
from proxy.core.model.exchange import JSONValue, Request, Response
from proxy.core.model.hop_by_hop import end_to_end
from proxy.core.model.json_text import parse_json
from proxy.core.redaction.book import KNOWN
from proxy.core.reports.escaping import visible
from proxy.errors import CommerceProxyError, StillIndexing, UsageError
from proxy.server.admin import UI_HEADERS
from proxy.server.ui_parameters import ID_MOST, BadParameter, exchange_id, flag, given_once, only
from proxy.server.upstream import UpstreamError, UpstreamPool
from proxy.server.wire import Incoming, Outgoing, Reply, json_answer

BODY_MOST = 64 * 1024  # bytes of a POST's JSON body
ON_EXCHANGE = re.compile(r"exchanges/([^/]*)/(curl|delete|edit|resend)")
POSTS = frozenset({"baseline", "delete", "edit", "resend"})
STATUS: dict[type[Exception], tuple[int, str]] = {
    NotFound: (404, "Not Found"),
    WrongMode: (405, "Method Not Allowed"),
    Conflict: (409, "Conflict"),
    TooMany: (413, "Payload Too Large"),
    StillIndexing: (503, "Service Unavailable"),  # a text filter before the text is in: as the reads
    Stopping: (503, "Service Unavailable"),
}
ParseFilter = Callable[[Iterable[tuple[str, str]]], Any]
Pairs = list[tuple[str, str]]


class UpstreamFailed(CommerceProxyError):
    """A resend the upstream did not answer: 502."""


class ActionRoutes:
    """The action routes over one `UiActions`; `parse` reads a filter (the core's `parse_query`)."""

    def __init__(self, actions: UiActions, parse: ParseFilter) -> None:
        self.actions = actions
        self.parse = parse
        self._acting = threading.Lock()  # one action at a time, as when they ran on the loop

    def stop(self) -> None:
        """The server stops: an action waiting its turn, or a long one between steps, is refused."""
        self.actions.stopping = True

    def answer(self, incoming: Incoming, route: str, pairs: Pairs) -> Reply | Awaitable[Reply] | None:
        """The answer to an action route, or None when `route` names none (the read routes answer)."""
        matched = ON_EXCHANGE.fullmatch(route)
        name = matched.group(2) if matched else route
        if name not in POSTS and name not in ("curl", "diff", "sources", "cassette-diff", "export"):
            return None
        wanted = "POST" if name in POSTS else "GET"
        if incoming.method not in ((wanted,) if wanted == "POST" else ("GET", "HEAD")):
            document = error_document(
                405, "Method Not Allowed", f"/_proxy/ui/api/{route[:80]} takes {wanted}"
            )
            return json_answer(405, document, {"Allow": wanted, **UI_HEADERS})
        try:
            number = exchange_id(matched.group(1)) if matched else None
            if wanted == "POST":
                only(pairs, route if not matched else f"exchanges/ID/{name}", ())  # what it takes is its body
            body = _json_body(incoming) if wanted == "POST" else {}
            if wanted == "POST":
                _only_members(body, name)
        except (CommerceProxyError, UsageError) as error:
            return refused(error)
        if name == "resend" and number is not None:
            return self._resend(number)
        if wanted == "POST":
            return _in_thread(lambda: self._post(name, number, body), self._acting, self.actions)
        return _in_thread(lambda: self._get(name, number, pairs), self._acting, self.actions)

    def _get(self, name: str, number: int | None, pairs: Pairs) -> Outgoing:
        actions = self.actions
        if name == "curl" and number is not None:
            only(pairs, "exchanges/ID/curl", ())
            return _json(200, actions.curl(number))
        if name == "diff":
            only(pairs, "diff", ("a", "b", "all"))
            everything = flag(pairs, "all")
            return _json(
                200,
                actions.diff(
                    exchange_id(_one(pairs, "a"), "a"), exchange_id(_one(pairs, "b"), "b"), everything
                ),
            )
        if name == "sources":
            only(pairs, "sources", ())
            return _json(200, actions.sources())
        if name == "cassette-diff":
            only(pairs, "cassette-diff", ("a", "b", "all"))
            everything = flag(pairs, "all")
            return _json(200, actions.cassette_diff(_one(pairs, "a"), _one(pairs, "b"), everything))
        kind = _one(pairs, "format", "har")
        data, filename = actions.export(self.parse([p for p in pairs if p[0] != "format"]), kind)
        shown = "application/json" if kind == "har" else "application/yaml"
        headers = (
            ("Content-Type", f"{shown}; charset=utf-8"),
            ("Content-Disposition", f'attachment; filename="{filename}"'),
            *UI_HEADERS.items(),
        )
        return Outgoing(200, headers, data)

    def _post(self, name: str, number: int | None, body: dict[str, Any]) -> Outgoing:
        actions = self.actions
        if name == "baseline":
            rule = body.get("rule")
            if not isinstance(rule, str) or not rule:
                raise UsageError('expected {"exchange": ID, "rule": RULE}: "rule" is missing or not text')
            exchange = body.get("exchange")
            if not isinstance(exchange, int) or isinstance(exchange, bool) or not 1 <= exchange <= ID_MOST:
                raise UsageError('expected {"exchange": ID, "rule": RULE}: "exchange" is not an id')
            return _json(200, actions.accept(exchange, rule))
        assert number is not None
        identity = body.get("identity")
        if identity is not None and not isinstance(identity, str):
            raise UsageError("\"identity\" is the exchange's detail document's identity (text)")
        if name == "delete":
            return _json(200, actions.delete(number, identity))
        if name == "edit":
            field, unset = body.get("field"), body.get("unset", False)
            if not isinstance(field, str) or not field or not isinstance(unset, bool):
                raise UsageError('expected {"field": F, "value": V} or {"field": F, "unset": true}')
            typed = "text" not in body
            value = _edit_value(field, body, unset)
            return _json(200, actions.edit(number, field, value, unset, typed, identity))
        raise NotFound(f"/_proxy/ui/api/{name}: no such action")

    async def _resend(self, number: int) -> Reply:
        try:
            return _json(200, await self.actions.resend(number))
        except (CommerceProxyError, UsageError) as error:
            return refused(error)


async def _in_thread(
    work: Callable[[], Outgoing], one_at_a_time: threading.Lock, actions: UiActions
) -> Reply:
    """An action's answer made in a worker thread: an export of a large view, a diff of two large
    exchanges or an edit's re-index took seconds, and on the server's loop every exchange it proxies
    waited that long. Actions still run one after another (`one_at_a_time`), as on the loop: an export
    never reads a view an edit is replacing."""

    def run() -> Outgoing:
        try:
            with one_at_a_time:
                actions.check_going()
                return work()
        except (CommerceProxyError, UsageError) as error:
            return refused(error)

    return await asyncio.to_thread(run)


def refused(error: Exception) -> Outgoing:
    """A refusal as the API's one-line JSON error with its status (400 for bad input)."""
    status, title = next(
        (known for kind, known in STATUS.items() if isinstance(error, kind)), (400, "Bad Request")
    )
    if isinstance(error, UpstreamFailed):
        status, title = 502, "Bad Gateway"
    elif not isinstance(error, UsageError) and status == 400:
        status, title = 409, "Conflict"  # a file the action could not read, lock or write
    # One line as the command line prints it (a value it quotes, say a field name holding a line break,
    # cannot cut it short), the secrets the process knows scrubbed.
    line = visible(KNOWN.scrub(str(error) or type(error).__name__))
    return _json(status, error_document(status, title, line))


def pool_sender(pool: UpstreamPool) -> Send:
    """A resend through the server's own upstream client, as the client's request was forwarded."""

    async def send(request: Request) -> Response:
        headers = end_to_end(request.headers, frozenset({"host", "content-length"}))
        try:
            answer = await pool.send(request.method, request.target, headers, body_to_bytes(request.body))
        except UpstreamError as error:
            raise UpstreamFailed(f"{request.method} {request.path}: no answer: {error}") from None
        return Response(
            answer.status, answer.headers, body_from_bytes(answer.body, answer.headers), answer.reason
        )

    return send


def _edit_value(field: str, body: dict[str, Any], unset: bool) -> JSONValue:
    """An edit's value: `value` as typed JSON (its numbers as spelled), or `text` as typed on the command
    line (`cassette set F TEXT`, with `"string": true` as its `--string`), or none with `unset`."""
    given = [key for key in ("value", "text") if key in body]
    if unset and given:
        found = json_type(body[given[0]])
        raise UsageError(f'edit of {field[:80]!r}: "unset": true takes no "{given[0]}" (found {found})')
    if unset:
        return None
    if len(given) != 1:
        raise UsageError(f'edit of {field[:80]!r}: give "value" or "text" (one of them), or "unset": true')
    if given[0] == "value":
        return body["value"]  # type: ignore[no-any-return]
    text, string = body["text"], body.get("string", False)
    if not isinstance(text, str) or not isinstance(string, bool):
        raise UsageError(
            f'edit of {field[:80]!r}: "text" is the value as typed (a string), "string" true or false'
        )
    return parse_value(text, string)


# The members each POST's body takes: any other is a 400 (a typo must not read as left out).
BODY_MEMBERS = {
    "baseline": {"exchange", "rule"},
    "delete": {"identity"},
    "resend": set(),
    "edit": {"field", "value", "text", "string", "unset", "identity"},
}


def _only_members(body: dict[str, Any], name: str) -> None:
    others = sorted(set(body) - BODY_MEMBERS.get(name, set()))
    if others:
        takes = ", ".join(sorted(BODY_MEMBERS.get(name, set()))) or "none"
        raise BadParameter(
            f"{name} takes no body member {', '.join(map(repr, others))[:200]} (it takes {takes})"
        )


def _json_body(incoming: Incoming) -> dict[str, Any]:
    kind = (incoming.header("Content-Type") or "").partition(";")[0].strip().lower()
    if kind != "application/json":
        raise _Unsupported("a POST to the UI's API sends Content-Type: application/json")
    if len(incoming.body) > BODY_MOST:
        raise _TooLarge(f"the body is over {BODY_MOST} bytes")
    if not incoming.body.strip():
        return {}
    try:  # the project's one exact decoder: a number keeps its spelling (`1E2`, `-0`, 20 digits)
        document = parse_json(incoming.body.decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as error:
        raise UsageError(f"the body is not JSON: {error}") from None
    if not isinstance(document, dict):
        raise UsageError("the body is not a JSON object")
    return document


class _Unsupported(UsageError):
    """415."""


class _TooLarge(TooMany):
    """413."""


STATUS[_Unsupported] = (415, "Unsupported Media Type")


def _one(pairs: Pairs, name: str, default: str | None = None) -> str:
    value = given_once(pairs, name)
    if value is None and default is None:
        raise BadParameter(f"{name}: expected one value")
    return value if value is not None else str(default)


def _json(status: int, document: Any) -> Outgoing:
    return json_answer(status, document, UI_HEADERS)
