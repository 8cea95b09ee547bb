"""Edits people make to cassettes: delete, keep, merge, split, set one field, rehost, repair ETags.

Pure: cassettes in, cassettes out; the command line reads and writes the files and re-checks the result.
Every refusal is an `EditError` that says what is wrong with the request, never a partial edit.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import Literal

from proxy.core.cassette.document import (
    Cassette,
    exchange_to_document,
    request_to_document,
    response_to_document,
)
from proxy.core.editing.selection import json_at
from proxy.core.model.bodies import dump_json, loads_exact, parse_json
from proxy.core.model.domain import duration_problem, exchange_fault
from proxy.core.model.exchange import (
    EMPTY_BODY,
    Body,
    Exchange,
    Headers,
    JSONValue,
    Request,
    Response,
    header_value,
    with_header,
    without_headers,
)
from proxy.core.model.links import OriginRewriter, origin_of
from proxy.errors import CommerceProxyError

SplitBy = Literal["path", "status"]
FIELDS_HELP = (
    "status, reason, method, path, query, recorded_at, duration_ms, req.header.NAME, resp.header.NAME, "
    "req.body, resp.body, req.json.PATH, resp.json.PATH"
)


class EditError(CommerceProxyError):
    """An edit that cannot be made as asked (an index out of range, an unknown field...)."""


def checked_indexes(cassette: Cassette, written: Sequence[str]) -> list[int]:
    """Exchange indexes as typed (0-based, `-1` for the last), each checked against the cassette."""
    count = len(cassette.exchanges)
    indexes: list[int] = []
    for text in written:
        try:
            index = int(text)
        except ValueError:
            raise EditError(f"index {text!r}: expected a whole number (0 is the first exchange)") from None
        if not -count <= index < count:
            raise EditError(f"index {index}: the cassette has {count} exchange(s), 0 to {count - 1}")
        indexes.append(index % count)
    return indexes


def delete_exchanges(cassette: Cassette, indexes: Iterable[int]) -> Cassette:
    """The cassette without the exchanges at these indexes."""
    doomed = set(indexes)
    kept = tuple(exchange for index, exchange in enumerate(cassette.exchanges) if index not in doomed)
    return replace(cassette, exchanges=kept)


def keep_exchanges(cassette: Cassette, keep: Callable[[int, Exchange], bool]) -> Cassette:
    """The cassette with only the exchanges `keep` says yes to, in their order."""
    kept = tuple(exchange for index, exchange in enumerate(cassette.exchanges) if keep(index, exchange))
    return replace(cassette, exchanges=kept)


def exchange_identity(exchange: Exchange) -> str:
    """Request and response, without when and how long: two exchanges with the same identity are one."""
    document = [request_to_document(exchange.request), response_to_document(exchange.response)]
    return dump_json(document, sort_keys=True).decode("utf-8")


def merge_cassettes(named: Sequence[tuple[str, Cassette]]) -> tuple[Cassette, int]:
    """All exchanges in order of recording time, each cassette's own order kept, and how many exact
    repeats were dropped.

    An exchange identical in request and response to one already kept is dropped; the same request
    with another answer is kept, since replay answers such a sequence in order. Exchanges with no
    `recorded_at` take the time of the one before them in their own cassette.
    """
    origins = {origin_of(cassette.upstream): name for name, cassette in named if cassette.upstream}
    if len(origins) > 1:
        (first, first_name), (second, second_name) = list(origins.items())[:2]
        raise EditError(
            f"{first_name} was recorded from {first} and {second_name} from {second}: "
            f"rehost one first (`commerce-proxy cassette rehost {second_name} --to {first}`)"
        )
    runs: list[list[tuple[str, Exchange]]] = []
    for _, cassette in named:
        last = ""
        run = []
        for exchange in cassette.exchanges:
            last = exchange.recorded_at or last
            run.append((last, exchange))
        runs.append(run)
    # Each cassette keeps its own order (a re-recording keeps unchanged entries with their old times,
    # so its times need not rise); the earliest head goes next, the earlier cassette on a tie.
    timed = list(heapq.merge(*runs, key=lambda item: item[0]))
    seen: set[str] = set()
    kept: list[Exchange] = []
    for _, exchange in timed:
        identity = exchange_identity(exchange)
        if identity in seen:
            continue
        seen.add(identity)
        kept.append(exchange)
    upstream = next((cassette.upstream for _, cassette in named if cassette.upstream), None)
    # a confirmation dates its own cassette's exchanges: kept only when every part shares it
    confirmed = {cassette.confirmed_at for _, cassette in named}
    confirmed_at = confirmed.pop() if len(confirmed) == 1 else None
    return Cassette(tuple(kept), upstream, confirmed_at), len(timed) - len(kept)


def split_cassette(cassette: Cassette, by: SplitBy) -> dict[str, Cassette]:
    """One cassette per path or per status, named for it (`v2-flows-products-entries`, `404`)."""
    groups: dict[str, list[Exchange]] = {}
    names: dict[str, str] = {}
    for exchange in cassette.exchanges:
        key = exchange.request.path if by == "path" else str(exchange.response.status)
        if key not in names:
            names[key] = _unique(_slug(key), set(names.values()))
        groups.setdefault(names[key], []).append(exchange)
    return {
        name: Cassette(tuple(found), cassette.upstream, cassette.confirmed_at)
        for name, found in groups.items()
    }


def _slug(text: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9._]+", "-", text).strip("-.")
    return slug or "root"


def _unique(name: str, taken: set[str]) -> str:
    candidate, number = name, 2
    while candidate in taken:
        candidate, number = f"{name}-{number}", number + 1
    return candidate


def parse_value(text: str, as_string: bool = False) -> JSONValue:
    """A value typed on the command line: JSON when it reads as JSON (12, true, null, {...}), else text."""
    if as_string:
        return text
    try:
        return parse_json(text)  # its numbers spelled as typed
    except ValueError:
        return text


def set_field(exchange: Exchange, field: str, value: JSONValue, now: float | None = None) -> Exchange:
    """The exchange with one field set; `FIELDS_HELP` lists the fields. A value the cassette reader would
    refuse (a CR or LF in a header or reason, a path that is not one) is refused here."""
    changed = _set_field(exchange, field, value)
    fault = exchange_fault(changed, now)  # `now`: a recording after it cannot be read back
    if fault is not None:
        raise EditError(f"{field}: {fault.problem}")
    return changed


def _set_field(exchange: Exchange, field: str, value: JSONValue) -> Exchange:
    request, response = exchange.request, exchange.response
    if field == "status":
        return replace(exchange, response=replace(response, status=value))  # type: ignore[arg-type]
    if field == "duration_ms":
        problem = duration_problem(value)
        if problem is not None:
            raise EditError(f"duration_ms: {problem}")
        return replace(exchange, duration_ms=float(value))  # type: ignore[arg-type]
    text = value if isinstance(value, str) else dump_json(value).decode("utf-8")
    if field in ("reason", "recorded_at"):
        if field == "reason":
            return replace(exchange, response=replace(response, reason=text))
        return replace(exchange, recorded_at=text)
    if field == "method":
        return replace(exchange, request=replace(request, method=text.upper()))
    if field == "path":
        if not text.startswith("/"):
            raise EditError(f"path: expected a path starting with '/', found {text!r}")
        return replace(exchange, request=replace(request, path=text))
    if field == "query":
        return replace(exchange, request=replace(request, query=text.removeprefix("?")))
    side, message = _side(exchange, field)
    rest = field.split(".", 1)[1]
    if rest.startswith("header."):
        name = _header_name(rest, field)
        return _with_message(
            exchange, side, replace(message, headers=with_header(message.headers, name, text))
        )
    if rest == "body":
        body = Body("json", value) if not isinstance(value, str) else _text_body(value, message.body)
        return _with_message(exchange, side, replace(message, body=body))
    if rest.startswith("json.") and len(rest) > len("json."):
        if message.body.kind != "json":
            raise EditError(f"{field}: the {_side_name(side)} body is not JSON (set {side}.body first)")
        document = _set_in(message.body.value, rest[len("json.") :].split("."), value, field)
        return _with_message(exchange, side, replace(message, body=replace(message.body, value=document)))
    raise EditError(f"{field}: unknown field; fields are {FIELDS_HELP}")


def unset_field(exchange: Exchange, field: str) -> Exchange:
    """The exchange with a header, JSON key, body, reason, recorded_at or duration_ms removed."""
    if field == "reason":
        return replace(exchange, response=replace(exchange.response, reason=None))
    if field == "recorded_at":
        return replace(exchange, recorded_at=None)
    if field == "duration_ms":
        return replace(exchange, duration_ms=None)
    if field in ("status", "method", "path", "query"):
        raise EditError(f"{field}: cannot be removed (every exchange has one); set it instead")
    side, message = _side(exchange, field)
    rest = field.split(".", 1)[1]
    if rest.startswith("header."):
        name = _header_name(rest, field)
        if header_value(message.headers, name) is None:
            raise EditError(f"{field}: the {_side_name(side)} has no {name} header")
        return _with_message(
            exchange, side, replace(message, headers=without_headers(message.headers, [name]))
        )
    if rest == "body":
        return _with_message(exchange, side, replace(message, body=EMPTY_BODY))
    if rest.startswith("json.") and message.body.kind == "json" and len(rest) > len("json."):
        document = _unset_in(message.body.value, rest[len("json.") :].split("."), field)
        return _with_message(exchange, side, replace(message, body=replace(message.body, value=document)))
    raise EditError(
        f"{field}: cannot be removed; removable are reason, recorded_at, duration_ms, "
        "req/resp.header.NAME, req/resp.body and req/resp.json.PATH of a JSON body"
    )


def _side(exchange: Exchange, field: str) -> tuple[str, Request | Response]:
    side = field.split(".", 1)[0]
    if side == "req" and "." in field:
        return side, exchange.request
    if side == "resp" and "." in field:
        return side, exchange.response
    raise EditError(f"{field}: unknown field; fields are {FIELDS_HELP}")


def _side_name(side: str) -> str:
    return "request" if side == "req" else "response"


def _header_name(rest: str, field: str) -> str:
    name = rest[len("header.") :]
    if not name or not re.fullmatch(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+", name):
        raise EditError(f"{field}: expected a header name after 'header.'")
    return name


def _with_message(exchange: Exchange, side: str, message: Request | Response) -> Exchange:
    if side == "req":
        assert isinstance(message, Request)
        return replace(exchange, request=message)
    assert isinstance(message, Response)
    return replace(exchange, response=message)


def _text_body(text: str, old: Body) -> Body:
    return Body("text", text, old.decoded_from) if text else EMPTY_BODY


def _copy(value: JSONValue) -> JSONValue:
    return loads_exact(dump_json(value))  # type: ignore[no-any-return]


def _parent(document: JSONValue, parts: list[str], field: str) -> tuple[JSONValue, str]:
    node = document
    for part in parts[:-1]:
        child = json_at(node, part)
        if not isinstance(child, dict | list):
            raise EditError(f"{field}: no object or list at {part!r} to go into")
        node = child
    return node, parts[-1]


def _set_in(document: JSONValue, parts: list[str], value: JSONValue, field: str) -> JSONValue:
    result = _copy(document)
    parent, last = _parent(result, parts, field)
    if isinstance(parent, dict):
        parent[last] = value
    elif isinstance(parent, list) and last.isdigit() and int(last) < len(parent):
        parent[int(last)] = value
    else:
        raise EditError(f"{field}: {last!r} is not an item of the list there")
    return result


def _unset_in(document: JSONValue, parts: list[str], field: str) -> JSONValue:
    result = _copy(document)
    parent, last = _parent(result, parts, field)
    if isinstance(parent, dict) and last in parent:
        del parent[last]
    elif isinstance(parent, list) and last.isdigit() and int(last) < len(parent):
        del parent[int(last)]
    else:
        raise EditError(f"{field}: nothing at {last!r} to remove")
    return result


def rehost_cassette(cassette: Cassette, to: str) -> tuple[Cassette, int]:
    """The cassette as if recorded from `to`: upstream, absolute links in bodies and Location headers,
    and the request Host header moved; returns how many exchanges changed."""
    if not cassette.upstream:
        raise EditError("the cassette names no upstream to move from (set `upstream:` first)")
    rewriter = OriginRewriter(cassette.upstream, to, keep_new_path=True)
    host = to.split("://", 1)[-1].split("/", 1)[0]
    changed = 0
    exchanges: list[Exchange] = []
    for exchange in cassette.exchanges:
        request = exchange.request
        headers: Headers = request.headers
        if header_value(headers, "Host") is not None:
            headers = with_header(headers, "Host", host)
        moved = replace(
            exchange,
            request=replace(request, headers=headers, body=_rehost_body(request.body, rewriter)),
            response=replace(
                exchange.response,
                headers=rewriter.headers(exchange.response.headers),
                body=_rehost_body(exchange.response.body, rewriter),
            ),
        )
        changed += exchange_to_document(moved) != exchange_to_document(exchange)
        exchanges.append(moved)
    return Cassette(tuple(exchanges), to.rstrip("/"), cassette.confirmed_at), changed


def _rehost_body(body: Body, rewriter: OriginRewriter) -> Body:
    if body.kind == "json":
        return replace(body, value=rewriter.json(body.value))
    return body


def fix_etags(cassette: Cassette) -> tuple[Cassette, list[int]]:
    """Every entry answer's ETag set to `W/"<etag_id>"` from its body (spec, Get a custom API entry,
    rule 2); returns the indexes changed. Answers with no `data.meta.etag_id`, or a non-GET answer
    with no ETag at all, are left alone: the tool does not invent headers the service does not send."""
    fixed: list[int] = []
    exchanges: list[Exchange] = []
    for index, exchange in enumerate(cassette.exchanges):
        response = exchange.response
        etag_id = json_at(response.body.value, "data.meta.etag_id") if response.body.kind == "json" else None
        present = header_value(response.headers, "ETag")
        wanted = f'W/"{etag_id}"'
        eligible = isinstance(etag_id, str) and 200 <= response.status < 300
        if eligible and present != wanted and (present is not None or exchange.request.method == "GET"):
            exchange = replace(
                exchange, response=replace(response, headers=with_header(response.headers, "ETag", wanted))
            )
            fixed.append(index)
        exchanges.append(exchange)
    return replace(cassette, exchanges=tuple(exchanges)), fixed
