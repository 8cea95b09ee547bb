"""HAR 1.2 (as browsers and many tools export it) to exchanges and back.

Export writes standard fields for other tools and, under `_commerce_proxy`, what HAR cannot say (no
recording time, a body kept as text despite a JSON type), so export then import gives the very same
exchanges. Import reads any HAR 1.2: errors name the entry and the field. Pure: documents in and out.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterator, Sequence
from http import HTTPStatus
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from proxy.core.cassette.document import Cassette
from proxy.core.interchange.imports import Imported
from proxy.core.model.bodies import body_from_bytes, body_to_bytes, parse_json
from proxy.core.model.content_coding import coding_header, codings_of
from proxy.core.model.exchange import Body, Exchange, Headers, Request, Response, header_value
from proxy.core.model.links import origin_of
from proxy.errors import CassetteFormatError

HAR_VERSION = "1.2"
EXTRA = "_commerce_proxy"  # HAR allows custom fields that start with an underscore
NO_TIME = "1970-01-01T00:00:00.000Z"


def cassette_to_har(
    cassette: Cassette, creator_version: str, origins: Sequence[str | None] = ()
) -> dict[str, Any]:
    """The cassette as a HAR 1.2 log; URLs are the upstream plus each request's path and query. An
    export of exchanges sent to several upstreams gives each one's own (`origins`, one an exchange;
    None: the cassette's upstream)."""
    default = cassette.upstream or "http://127.0.0.1"
    bases = [(origin or default).rstrip("/") for origin in origins] or [default.rstrip("/")]
    return {
        "log": {
            "version": HAR_VERSION,
            "creator": {"name": "commerce-proxy", "version": creator_version},
            "pages": [],
            "entries": [
                _entry(exchange, bases[position] if position < len(bases) else bases[0])
                for position, exchange in enumerate(cassette.exchanges)
            ],
            EXTRA: {"upstream": cassette.upstream},
        }
    }


def _entry(exchange: Exchange, base: str) -> dict[str, Any]:
    request, response = exchange.request, exchange.response
    duration = exchange.duration_ms if exchange.duration_ms is not None else 0
    return {
        "startedDateTime": exchange.recorded_at or NO_TIME,
        "time": duration,
        "request": {
            "method": request.method,
            "url": base + request.target,
            "httpVersion": "HTTP/1.1",
            "cookies": [],
            "headers": _headers(request.headers),
            "queryString": [{"name": name, "value": value} for name, value in _query_pairs(request.query)],
            **({"postData": _post_data(request)} if request.body.kind != "empty" else {}),
            "headersSize": -1,
            "bodySize": len(body_to_bytes(request.body)),
        },
        "response": {
            "status": response.status,
            "statusText": response.reason or _phrase(response.status),
            "httpVersion": "HTTP/1.1",
            "cookies": [],
            "headers": _headers(response.headers),
            "content": _content(response),
            "redirectURL": header_value(response.headers, "Location") or "",
            "headersSize": -1,
            "bodySize": len(body_to_bytes(response.body)),
        },
        "cache": {},
        "timings": {"send": 0, "wait": duration, "receive": 0},
        EXTRA: {
            "recorded_at": exchange.recorded_at,
            "duration_ms": exchange.duration_ms,
            "reason": response.reason,
            "request_body": _body_note(request.body),
            "response_body": _body_note(response.body),
        },
    }


def _headers(headers: Headers) -> list[dict[str, str]]:
    return [{"name": name, "value": value} for name, value in headers]


def _query_pairs(query: str) -> list[tuple[str, str]]:
    return parse_qsl(query, keep_blank_values=True) if query else []


def _text_and_encoding(body: Body) -> tuple[str, str | None]:
    if body.kind == "base64":
        return str(body.value), "base64"
    return body_to_bytes(body).decode("utf-8"), None


def _post_data(request: Request) -> dict[str, Any]:
    text, encoding = _text_and_encoding(request.body)
    data: dict[str, Any] = {"mimeType": header_value(request.headers, "Content-Type") or "", "text": text}
    if encoding:
        data["encoding"] = encoding
    return data


def _content(response: Response) -> dict[str, Any]:
    text, encoding = _text_and_encoding(response.body)
    content: dict[str, Any] = {
        "size": len(body_to_bytes(response.body)),
        "mimeType": header_value(response.headers, "Content-Type") or "",
        "text": text,
    }
    if encoding:
        content["encoding"] = encoding
    return content


def _body_note(body: Body) -> dict[str, Any]:
    return {"kind": body.kind, "decoded_from": body.decoded_from}


def _phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return ""


# ------------------------------------------------------------------------------------------- reading


class _Where:
    """Names the place in the HAR document an error is about: `entries[3].request.url`."""

    def __init__(self, source: str) -> None:
        self.source = source

    def error(self, place: str, problem: str) -> CassetteFormatError:
        return CassetteFormatError(f"{self.source}: {place}: {problem}")


def har_upstream(document: Any) -> str | None:
    """The upstream a commerce-proxy export recorded (None for other tools' HARs)."""
    log = document.get("log") if isinstance(document, dict) else None
    extra = log.get(EXTRA) if isinstance(log, dict) else None
    upstream = extra.get("upstream") if isinstance(extra, dict) else None
    return upstream if isinstance(upstream, str) else None


def exchanges_from_har(document: Any, source: str) -> Iterator[Imported]:
    """Each HAR entry with a response as an exchange and its origin; errors name the entry and field."""
    where = _Where(source)
    log = document.get("log") if isinstance(document, dict) else None
    if not isinstance(log, dict):
        raise where.error("document", 'expected {"log": {"entries": [...]}} (HAR 1.2)')
    entries = log.get("entries")
    if not isinstance(entries, list):
        raise where.error("log.entries", "expected a list of entries")
    for position, entry in enumerate(entries):
        place = f"log.entries[{position}]"
        if not isinstance(entry, dict):
            raise where.error(place, "expected an object")
        response = entry.get("response")
        if isinstance(response, dict) and response.get("status") in (0, None):
            continue  # a request the browser never got an answer to
        yield _exchange(entry, place, where)


def _exchange(entry: dict[str, Any], place: str, where: _Where) -> Imported:
    noted = entry.get(EXTRA)
    extra: dict[str, Any] = noted if isinstance(noted, dict) else {}
    request = _object(entry, "request", place, where)
    response = _object(entry, "response", place, where)
    method = _string(request, "method", f"{place}.request", where)
    url = _string(request, "url", f"{place}.request", where)
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise where.error(f"{place}.request.url", f"expected an absolute http(s) URL, found {url!r}")
    request_headers, request_body = _message(
        request, "postData", extra.get("request_body"), f"{place}.request", where
    )
    status = response.get("status")
    if not isinstance(status, int) or isinstance(status, bool) or not 100 <= status <= 599:
        raise where.error(f"{place}.response.status", f"expected an HTTP status 100-599, found {status!r}")
    response_headers, response_body = _message(
        response, "content", extra.get("response_body"), f"{place}.response", where
    )
    reason = extra.get("reason") if EXTRA in entry else _reason(response.get("statusText"), status)
    recorded_at = extra["recorded_at"] if "recorded_at" in extra else entry.get("startedDateTime")
    duration = extra["duration_ms"] if "duration_ms" in extra else entry.get("time")
    if not isinstance(duration, int | float) or isinstance(duration, bool) or duration < 0:
        duration = None
    exchange = Exchange(
        Request(
            method.upper(),
            parts.path or "/",
            url.split("?", 1)[1].split("#", 1)[0] if "?" in url else "",
            request_headers,
            request_body,
        ),
        Response(status, response_headers, response_body, reason if isinstance(reason, str) else None),
        recorded_at if isinstance(recorded_at, str) else None,
        float(duration) if duration is not None else None,
    )
    return Imported(origin_of(url), exchange)


def _message(
    message: dict[str, Any], body_key: str, note: Any, place: str, where: _Where
) -> tuple[Headers, Body]:
    headers = _headers_from(message, place, where)
    return headers, _body_from(message.get(body_key), headers, note, f"{place}.{body_key}", where)


def _object(parent: dict[str, Any], key: str, place: str, where: _Where) -> dict[str, Any]:
    value = parent.get(key)
    if not isinstance(value, dict):
        raise where.error(f"{place}.{key}", "expected an object")
    return value


def _string(parent: dict[str, Any], key: str, place: str, where: _Where) -> str:
    value = parent.get(key)
    if not isinstance(value, str) or not value:
        raise where.error(f"{place}.{key}", f"expected a non-empty string, found {value!r}")
    return value


def _headers_from(message: dict[str, Any], place: str, where: _Where) -> Headers:
    items = message.get("headers", [])
    if not isinstance(items, list):
        raise where.error(f"{place}.headers", "expected a list of {name, value}")
    headers = []
    for position, item in enumerate(items):
        if (
            not isinstance(item, dict)
            or not isinstance(item.get("name"), str)
            or not isinstance(item.get("value"), str)
        ):
            raise where.error(f"{place}.headers[{position}]", "expected {name: string, value: string}")
        if item["name"].startswith(":"):
            continue  # HTTP/2 pseudo-headers (:authority...) are not headers of the request
        headers.append((item["name"], item["value"]))
    return tuple(headers)


def _body_from(holder: Any, headers: Headers, note: Any, place: str, where: _Where) -> Body:
    """HAR bodies are already decoded; a gzip/deflate Content-Encoding header is noted, not undone."""
    if holder is None:
        return Body()
    if not isinstance(holder, dict):
        raise where.error(place, "expected an object")
    text = holder.get("text", "")
    if not isinstance(text, str):
        raise where.error(f"{place}.text", f"expected a string, found {type(text).__name__}")
    if holder.get("encoding") == "base64":
        try:
            raw = base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError):
            raise where.error(f"{place}.text", "encoding is base64 but the text is not base64") from None
    else:
        raw = text.encode("utf-8")
    encoding = (coding_header(headers) or "").strip().lower()
    plain = tuple((name, value) for name, value in headers if name.lower() != "content-encoding")
    body = body_from_bytes(raw, plain)
    # HAR text is the decoded body whatever the coding, known here or not: only identity is none.
    decoded_from = encoding if encoding and codings_of(encoding) != [] and raw else None
    if isinstance(note, dict):
        body = _as_noted(body, raw, note.get("kind"))
        decoded_from = note.get("decoded_from") if isinstance(note.get("decoded_from"), str) else None
    if decoded_from and body.kind != "empty":
        return Body(body.kind, body.value, decoded_from)
    return Body("empty", None, decoded_from) if decoded_from else body


def _as_noted(body: Body, raw: bytes, kind: Any) -> Body:
    """The body in the kind the exporting cassette had, when that differs from what the type implies."""
    if kind == body.kind or kind not in ("json", "text", "base64", "empty"):
        return body
    if kind == "text":
        return Body("text", raw.decode("utf-8"))
    if kind == "base64":
        return Body("base64", base64.b64encode(raw).decode("ascii"))
    if kind == "json":
        try:
            return Body("json", parse_json(raw.decode("utf-8")))
        except ValueError:
            return body
    return Body()


def _reason(status_text: Any, status: int) -> str | None:
    if not isinstance(status_text, str) or not status_text or status_text == _phrase(status):
        return None
    return status_text
