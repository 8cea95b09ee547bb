"""The cassette format: YAML text to `Cassette` and back, with versioned migrations.

Pure: text in, text out. Errors name the source, the line and the problem. YAML is only ever loaded
with a safe loader (the C one when PyYAML has it), timestamps stay strings, duplicate keys are errors.

Format 2 stores a JSON body as its JSON text, pretty-printed in a literal block: the JSON a person reads
in the API's documentation, diffed line by line, and about twelve times faster to load than format 1's
YAML structure (PyYAML builds every node of a structure in Python; a block is one string, and the JSON
parser is C). Format 1 cassettes still load; they are written back as format 2.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any

import yaml

from proxy.core.cassette import format_keys as keys
from proxy.core.cassette.format_keys import BODY_KINDS, FORMAT_KEY, MIGRATIONS, key_outside
from proxy.core.cassette.node_lines import line_of
from proxy.core.cassette.safe_yaml import load_yaml, yaml_problem
from proxy.core.model.bodies import parse_json, pretty_json
from proxy.core.model.confirmation import CONFIRMED_KEY, confirmed_at_problem
from proxy.core.model.domain import duration_problem, exchange_fault, upstream_problem
from proxy.core.model.exchange import EMPTY_BODY, Body, Exchange, Headers, JSONValue, Request, Response
from proxy.errors import CassetteFormatError

FORMAT_VERSION = 2
JSON_TEXT_SINCE = 2  # from this format version on, a `json` body is stored as JSON text
HEADER_COMMENT = "# commerce-proxy cassette; its format is described in docs/cassette-format.md.\n"
# Header lines earlier versions wrote: still the format's own, so those cassettes stay in the normal layout.
EARLIER_HEADERS = ("# commerce-proxy cassette; the format is described in the README, 'Cassette format'.\n",)


def with_current_header(text: str) -> str:
    """The cassette text with an earlier version's header line read as today's."""
    for earlier in EARLIER_HEADERS:
        if text.startswith(earlier):
            return HEADER_COMMENT + text[len(earlier) :]
    return text


_SafeDumper: type[yaml.SafeDumper] = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


@dataclass(frozen=True, slots=True)
class Cassette:
    """A recorded session: where it was recorded from and its exchanges in order of arrival, and the
    day they were last confirmed (`proxy.core.model.confirmation`), when later than their recording."""

    exchanges: tuple[Exchange, ...] = ()
    upstream: str | None = None
    confirmed_at: str | None = None


class CassetteDumper(_SafeDumper):  # type: ignore[misc,valid-type]
    """Block layout, no anchors, multi-line text as literal blocks."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value and len(value) > 40 else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


CassetteDumper.add_representer(str, _represent_str)


class JSONText(str):
    """A JSON body's text, always written as a literal block (even when short)."""


def _represent_json_text(dumper: yaml.SafeDumper, value: JSONText) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", str(value), style=style)


CassetteDumper.add_representer(JSONText, _represent_json_text)


def _only_keys(item: Mapping[Any, Any], allowed: frozenset[str], path: tuple[str | int, ...]) -> None:
    outside = key_outside(item, allowed)
    if outside is not None:
        raise _DocumentError((*path, outside[0]), outside[1])


class _DocumentError(CassetteFormatError):
    """A problem at a path inside the loaded document; turned into file:line by `parse_cassette`."""

    def __init__(self, path: tuple[str | int, ...], message: str) -> None:
        super().__init__(f"{_path_text(path)}: {message}")  # as a journal's reader says it
        self.path = path
        self.message = message


# ---------------------------------------------------------------------------------------- writing


def headers_to_document(headers: Headers) -> dict[str, str | list[str]]:
    """Headers as a mapping in arrival order; a repeated header becomes a list of its values."""
    document: dict[str, str | list[str]] = {}
    for name, value in headers:
        if name in document:
            existing = document[name]
            document[name] = [*existing, value] if isinstance(existing, list) else [existing, value]
        else:
            document[name] = value
    return document


def _body_into(document: dict[str, Any], body: Body) -> None:
    if body.kind != "empty":
        document[body.kind] = body.value
    if body.decoded_from:
        document["decoded_from"] = body.decoded_from


def request_to_document(request: Request) -> dict[str, Any]:
    """A request as the plain mapping stored in cassettes and journals."""
    document: dict[str, Any] = {"method": request.method, "path": request.path}
    if request.query:
        document["query"] = request.query
    if request.headers:
        document["headers"] = headers_to_document(request.headers)
    _body_into(document, request.body)
    return document


def response_to_document(response: Response) -> dict[str, Any]:
    """A response as the plain mapping stored in cassettes and journals."""
    document: dict[str, Any] = {"status": response.status}
    if response.reason and response.reason != _standard_reason(response.status):
        document["reason"] = response.reason
    if response.headers:
        document["headers"] = headers_to_document(response.headers)
    _body_into(document, response.body)
    return document


def exchange_to_document(exchange: Exchange) -> dict[str, Any]:
    """An exchange as the plain mapping stored in cassettes and journals."""
    document: dict[str, Any] = {}
    if exchange.recorded_at is not None:
        document["recorded_at"] = exchange.recorded_at
    if exchange.duration_ms is not None:
        document["duration_ms"] = exchange.duration_ms
    document["request"] = request_to_document(exchange.request)
    document["response"] = response_to_document(exchange.response)
    return document


def cassette_to_document(cassette: Cassette) -> dict[str, Any]:
    """The whole cassette as a plain mapping."""
    document: dict[str, Any] = {FORMAT_KEY: FORMAT_VERSION}
    if cassette.upstream:
        document["upstream"] = cassette.upstream
    if cassette.confirmed_at and cassette.exchanges:
        document[CONFIRMED_KEY] = cassette.confirmed_at
    document["exchanges"] = [exchange_to_document(exchange) for exchange in cassette.exchanges]
    return document


def json_bodies_as_text(exchange: dict[str, Any]) -> dict[str, Any]:
    """An exchange's document with each JSON body as the JSON text a cassette stores (in place)."""
    for side in ("request", "response"):
        message = exchange[side]
        if "json" in message:
            message["json"] = JSONText(pretty_json(message["json"]) + "\n")
    return exchange


def dump_cassette(cassette: Cassette) -> str:
    """The cassette as YAML text in the normal layout (the same cassette always gives the same text)."""
    document = cassette_to_document(cassette)
    for exchange in document["exchanges"]:
        json_bodies_as_text(exchange)
    text = yaml.dump(
        document,
        Dumper=CassetteDumper,
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=100,
    )
    return HEADER_COMMENT + text


def _standard_reason(status: int) -> str | None:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return None


# ---------------------------------------------------------------------------------------- reading


def parse_cassette(text: str, source: str, now: float | None = None) -> Cassette:
    """Parse cassette text; any problem is a `CassetteFormatError` naming `source`, line and cause
    (`now`, seconds since the epoch: a recording after it is outside the format; None: not judged)."""
    try:
        document = load_yaml(text)
    except yaml.YAMLError as error:
        line, problem = yaml_problem(error, text)
        where = f"{source}:{line}" if line else source
        raise CassetteFormatError(f"{where}: not valid YAML: {problem}") from None
    try:
        return cassette_from_document(_json_bodies_parsed(document), now)
    except _DocumentError as error:
        number = line_of(text, error.path)
        where = _path_text(error.path)
        location = f"{source}:{number}" if number else source
        raise CassetteFormatError(f"{location}: {where}: {error.message}") from None


def _json_bodies_parsed(document: Any) -> Any:
    """A format 2 document with its JSON body texts parsed, as `cassette_from_document` takes it."""
    if not isinstance(document, dict) or not isinstance(document.get("exchanges"), list):
        return document
    version = document.get(FORMAT_KEY)
    if not isinstance(version, int) or isinstance(version, bool) or version < JSON_TEXT_SINCE:
        return document
    for index, exchange in enumerate(document["exchanges"]):
        _json_parsed_in(exchange, index, version)
    return document


def _json_parsed_in(exchange: Any, index: int, version: int) -> None:
    """Parse the JSON body texts of one format 2 exchange in place."""
    if not isinstance(exchange, dict):
        return
    for side in ("request", "response"):
        message = exchange.get(side)
        if not isinstance(message, dict) or "json" not in message:
            continue
        text = message["json"]
        path = ("exchanges", index, side, "json")
        if not isinstance(text, str):
            raise _DocumentError(path, f"expected JSON text (format {version}), found {_kind(text)}")
        try:
            message["json"] = parse_json(text)
        except ValueError as error:
            raise _DocumentError(path, f"not valid JSON: {error}") from None


class NotStreamed(Exception):
    """A cassette read item by item that only the whole-document parse may judge: an older format, or
    any problem, which that parse reports with its line."""


def streamed_exchange(top: dict[Any, Any], item: Any, index: int, now: float | None = None) -> Exchange:
    """Exchange `index` of a cassette read one item at a time (`top`: the keys read before the list)."""
    if top.get(FORMAT_KEY) != FORMAT_VERSION or type(top.get(FORMAT_KEY)) is not int:
        raise NotStreamed  # older formats migrate whole documents
    try:
        _json_parsed_in(item, index, FORMAT_VERSION)
        return exchange_from_document(item, ("exchanges", index), now, _confirmed_at(top, now))
    except _DocumentError:
        raise NotStreamed from None


def streamed_upstream(top: Any) -> str | None:
    """The upstream of a cassette read one item at a time, once its top-level mapping is complete."""
    return streamed_top(top).upstream


def streamed_top(top: Any) -> Cassette:
    """The cassette-level fields (upstream, confirmed_at) of a cassette read one item at a time, once
    its top-level mapping is complete (the exchanges are not in it)."""
    try:
        cassette = cassette_from_document(top)
    except _DocumentError:
        raise NotStreamed from None
    return Cassette((), cassette.upstream, _confirmed_at(top, None))


def cassette_from_document(document: Any, now: float | None = None) -> Cassette:
    """Validate and convert a loaded document, migrating older format versions."""
    if not isinstance(document, dict):
        raise _DocumentError((), f"expected a mapping with '{FORMAT_KEY}', found {_kind(document)}")
    version = document.get(FORMAT_KEY)
    if version is None:
        hint = " (a vcrpy cassette? it has 'interactions')" if "interactions" in document else ""
        raise _DocumentError((), f"missing '{FORMAT_KEY}': not a commerce-proxy cassette{hint}")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise _DocumentError((FORMAT_KEY,), f"expected a positive integer, found {version!r}")
    if version > FORMAT_VERSION:
        raise _DocumentError(
            (FORMAT_KEY,),
            f"format version {version} is newer than this commerce-proxy reads "
            f"({FORMAT_VERSION}); upgrade commerce-proxy",
        )
    while version < FORMAT_VERSION:
        document = MIGRATIONS[version](document)
        version += 1
    upstream = document.get("upstream")
    if upstream is not None and not isinstance(upstream, str):
        raise _DocumentError(("upstream",), f"expected a URL string, found {_kind(upstream)}")
    _refuse(("upstream",), upstream_problem(upstream) if upstream is not None else None)
    items = document.get("exchanges")
    if items is None:
        items = []
    if not isinstance(items, list):
        raise _DocumentError(("exchanges",), f"expected a list, found {_kind(items)}")
    _only_keys(document, keys.TOP_KEYS, ())
    confirmed_at = _confirmed_at(document, now)
    exchanges = tuple(
        exchange_from_document(item, ("exchanges", i), now, confirmed_at) for i, item in enumerate(items)
    )
    return Cassette(exchanges=exchanges, upstream=upstream, confirmed_at=confirmed_at)


def _confirmed_at(document: Mapping[Any, Any], now: float | None) -> str | None:
    """The cassette's `confirmed_at`, judged; absent in cassettes never confirmed after recording."""
    confirmed_at = document.get(CONFIRMED_KEY)
    if confirmed_at is not None:
        _refuse((CONFIRMED_KEY,), confirmed_at_problem(confirmed_at, now))
    return confirmed_at


def exchange_from_document(
    document: Any,
    path: tuple[str | int, ...] = (),
    now: float | None = None,
    confirmed_at: str | None = None,
    judged: bool = False,
) -> Exchange:
    """Validate and convert one exchange mapping; a field outside its domain (`exchange_fault`, judged
    against `now`, seconds since the epoch) is refused naming its path. `confirmed_at`: its cassette's.
    `judged`: this process's own writer judged the exchange by the same gate before writing it (the
    live checker's journal lines), so it is not judged again."""
    item = _mapping(document, path)
    _only_keys(item, keys.EXCHANGE_KEYS, path)
    recorded_at = item.get("recorded_at")
    if recorded_at is not None and not isinstance(recorded_at, str):
        found = _kind(recorded_at)
        raise _DocumentError((*path, "recorded_at"), f"expected a timestamp string, found {found}")
    duration = item.get("duration_ms")
    if duration is not None:  # judged before `float`, which an integer of 400 digits overflows
        _refuse((*path, "duration_ms"), duration_problem(duration))
    exchange = Exchange(
        request=_request_from(_required(item, "request", path), (*path, "request")),
        response=_response_from(_required(item, "response", path), (*path, "response")),
        recorded_at=recorded_at,
        duration_ms=float(duration) if duration is not None else None,
        confirmed_at=confirmed_at,
    )
    fault = None if judged else exchange_fault(exchange, now)
    if fault is not None:
        raise _DocumentError((*path, *fault.where), fault.problem)
    return exchange


def _request_from(document: Any, path: tuple[str | int, ...]) -> Request:
    item = _mapping(document, path)
    _only_keys(item, keys.REQUEST_KEYS, path)
    method = _string(item, "method", path)
    target = _string(item, "path", path)
    query = item.get("query", "")
    if not isinstance(query, str):
        raise _DocumentError((*path, "query"), f"expected a string, found {_kind(query)}")
    return Request(
        method=method.upper() if method.isascii() else method,  # any case is read; "ﬀ" is no "FF"
        path=target,
        query=query,
        headers=_headers_from(item.get("headers"), (*path, "headers")),
        body=_body_from(item, path),
    )


def _response_from(document: Any, path: tuple[str | int, ...]) -> Response:
    item = _mapping(document, path)
    _only_keys(item, keys.RESPONSE_KEYS, path)
    status = _required(item, "status", path)
    reason = item.get("reason")
    if reason is not None and not isinstance(reason, str):
        raise _DocumentError((*path, "reason"), f"expected a string, found {_kind(reason)}")
    return Response(
        status=status,
        headers=_headers_from(item.get("headers"), (*path, "headers")),
        body=_body_from(item, path),
        reason=reason,
    )


def _headers_from(document: Any, path: tuple[str | int, ...]) -> Headers:
    if document is None:
        return ()
    if not isinstance(document, dict):
        raise _DocumentError(path, f"expected a mapping of header names, found {_kind(document)}")
    headers: list[tuple[str, str]] = []
    for name, value in document.items():
        if not isinstance(name, str):
            raise _DocumentError(path, f"expected header names as strings, found {name!r}")
        values = value if isinstance(value, list) else [value]
        for one in values:
            if isinstance(one, bool) or one is None or isinstance(one, dict | list):
                raise _DocumentError((*path, name), f"expected a string, found {_kind(one)}")
            headers.append((name, str(one)))
    return tuple(headers)


def _body_from(item: Mapping[str, Any], path: tuple[str | int, ...]) -> Body:
    kinds = [kind for kind in BODY_KINDS if kind in item]
    if len(kinds) > 1:
        raise _DocumentError(path, f"expected at most one of json/text/base64, found {kinds}")
    decoded_from = item.get("decoded_from")
    if decoded_from is not None and not isinstance(decoded_from, str):
        raise _DocumentError((*path, "decoded_from"), f"expected a string, found {decoded_from!r}")
    if not kinds:
        return Body("empty", None, decoded_from) if decoded_from else EMPTY_BODY
    kind = kinds[0]
    value: JSONValue = item[kind]
    if kind in ("text", "base64") and not isinstance(value, str):
        raise _DocumentError((*path, kind), f"expected a string, found {_kind(value)}")
    return Body(kind, value, decoded_from)  # type: ignore[arg-type]


def _refuse(path: tuple[str | int, ...], problem: str | None) -> None:
    if problem is not None:
        raise _DocumentError(path, problem)


def _mapping(document: Any, path: tuple[str | int, ...]) -> dict[str, Any]:
    if not isinstance(document, dict):
        raise _DocumentError(path, f"expected a mapping, found {_kind(document)}")
    return document


def _required(item: Mapping[str, Any], key: str, path: tuple[str | int, ...]) -> Any:
    if key not in item:
        raise _DocumentError(path, f"missing '{key}'")
    return item[key]


def _string(item: Mapping[str, Any], key: str, path: tuple[str | int, ...]) -> str:
    value = _required(item, key, path)
    if not isinstance(value, str) or not value:
        raise _DocumentError((*path, key), f"expected a non-empty string, found {_kind(value)}")
    return value


def _kind(value: Any) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return f"a boolean ({value})"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return f"the string {value[:40]!r}"
    return f"{type(value).__name__} {value!r}"


def _path_text(path: tuple[str | int, ...]) -> str:
    text = ""
    for part in path:
        if isinstance(part, str) and not (part.isprintable() and part.isascii()):
            part = repr(part)  # a key holding a line break must not break the error's one line
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text or "document"
