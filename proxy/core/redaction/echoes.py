"""Echo scrubbing: the secret values redaction finds in an exchange's named places, replaced wherever
else they stand (an upstream that echoes a token in a body, a header or a path), so a secret never
reaches disk by a side door.

Pure, like `proxy.core.redaction.redact`, which calls it.
"""

from __future__ import annotations

import base64
import contextlib
import json
from dataclasses import replace
from typing import NamedTuple
from urllib.parse import unquote, unquote_plus

from proxy.core.model.bodies import is_form_type, map_strings
from proxy.core.model.exchange import (
    Body,
    Exchange,
    Headers,
    JSONValue,
    Request,
    Response,
    header_value,
)
from proxy.core.model.json_text import dump_json
from proxy.core.redaction.book import credential_like, scrub_text
from proxy.core.redaction.charset_bodies import in_text
from proxy.core.redaction.encodings import GZIP_MAGIC, contains_secret
from proxy.core.redaction.policy import (
    PLACEHOLDER,
    RedactionPolicy,
    ascii_names,
    body_text,
    credential_header,
    is_secret_name,
    json_text,
    may_be_secret,
    may_name,
    named_parts,
    names_in_json_text,
    secret_names,
    text_as_body_value,
    text_secret_spans,
)


def secret_values(
    request: Request,
    response: Response,
    policy: RedactionPolicy,
    named: tuple[bool, bool] | None = None,
) -> frozenset[str]:
    """The literal secret values the policy finds in an exchange's named places (`named`: whether each
    body may hold a redacted key, when already known); a body in another charset is read as its text
    too."""
    found = values_found(request, response, policy, named)
    read, _ = in_text(Exchange(request, response))
    if read.request is not request or read.response is not response:
        found |= values_found(read.request, read.response, policy)
    return found


def values_found(
    request: Request,
    response: Response,
    policy: RedactionPolicy,
    named: tuple[bool, bool] | None = None,
) -> frozenset[str]:
    """`secret_values` of messages whose bodies in another charset are already read as text."""
    found: set[str] = set()
    for headers in (request.headers, response.headers):
        for name, value in headers:
            lowered = name.lower()
            if not credential_header(lowered, policy.headers):
                continue
            if lowered in {"authorization", "proxy-authorization"}:
                scheme, _, credentials = value.partition(" ")
                # A value with no scheme is the credential itself; a scheme alone ("Bearer") is plain
                # letters, which `credential_like` leaves out.
                found.add(credentials.strip() or scheme)
                if scheme.lower() == "basic":  # the user and password inside are secrets of their own
                    found.update(basic_parts(credentials.strip()))
            elif lowered in {"cookie", "set-cookie"}:
                pairs = value.split(";") if lowered == "cookie" else value.split(";")[:1]
                found.update(_unquoted(pair.partition("=")[2]) for pair in pairs)
            else:
                found.add(value)
    found.update(_named_values(request.query, policy.query))
    messages: tuple[Request | Response, ...] = (request, response)
    for position, message in enumerate(messages):
        body = message.body
        if body.kind == "text" and is_form_type(header_value(message.headers, "Content-Type")):
            found.update(_named_values(str(body.value), policy.form_fields | policy.json_keys))
        elif body.kind == "json":
            search = json_search(body, policy, named[position] if named else None)
            if search.may_name:
                _collect_json_secrets(body.value, (), policy, found)
            # a URL in a string: `https://shop/cb?access_token=...`
            found.update(value for text in search.strings for value in _spanned(text, policy))
        if body.kind in ("text", "base64"):
            for text in (body_text(body), *wide_texts(body)):
                found.update(_spanned(text, policy))
    # Wherever a URL may stand: the path, the query (whose values may be URLs themselves:
    # `redirect_uri=https%3A...%3Faccess_token%3D...`), each header (Location, Link, Refresh...).
    urls = [request.path, request.query, *(value for _, value in (*request.headers, *response.headers))]
    found.update(value for text in urls for value in _spanned(text, policy))
    return frozenset(value for value in found if credential_like(value) and value != PLACEHOLDER)


def _spanned(text: str, policy: RedactionPolicy) -> set[str]:
    """The values `text_secret_spans` finds, as written and decoded (percent, JSON escapes); in the text
    percent-decoded too (twice at most), where a URL inside a value stands encoded."""
    found = _spanned_once(text, policy)
    for _ in range(2):
        decoded = unquote(text) if "%" in text else text
        if decoded == text:
            break
        found |= _spanned_once(decoded, policy)
        text = decoded
    return found


def _spanned_once(text: str, policy: RedactionPolicy) -> set[str]:
    found: set[str] = set()
    for start, stop in text_secret_spans(text, policy):
        raw = text[start:stop]
        found.update({raw, unquote_plus(raw), unquote_plus(unquote_plus(raw))})
        with contextlib.suppress(ValueError):
            found.add(str(json.loads(f'"{raw}"')))
    return found


# The strings that may name a secret are cut from a JSON body's text in C, not walked in Python: every
# string of every exchange `check` reads went through `text_secret_spans` (about 0.4 ms an exchange of
# the bench's 5 KB pages, most of a warm check), though few strings but a URL's ever hold a name.
ESCAPE_MARKS = "%&+"


class JSONSearch(NamedTuple):
    """What of a JSON body is searched for named secrets."""

    may_name: bool  # the body may hold a key the policy redacts: `policy.may_name`
    strings: list[str]  # its strings and keys `text_secret_spans` may find a span in


def json_search(body: Body, policy: RedactionPolicy, named: bool | None = None) -> JSONSearch:
    """`may_name` of a JSON body, and the strings and keys of it that `text_secret_spans` may find a span
    in: all of them when the body's text holds a backslash (its strings are not pieces of it) or a name
    the policy redacts (or a name is not ASCII); else only those holding `%`, `&` or `+` that
    `policy.may_hold_name` lets through. A text without a backslash has its strings as they stand between
    its quotes (strict JSON: every quote begins or ends one, no key twice), and a key the policy redacts
    as the name between quotes (ASCII, or holding a backslash): when no name is in the text lowered,
    `may_name` is False without a search of its own (its lowering and searches were a third of the
    learning's cost on the bench's pages). `named`: `may_name`, when the caller knows it already."""

    def named_key() -> bool:
        return may_name(body, policy) if named is None else named

    names = secret_names(policy)
    if not names:
        return JSONSearch(named_key(), [])
    text = json_text(body)
    if "\\" in text:
        return JSONSearch(named_key(), _strings(body.value))
    if not ascii_names(names) or names_in_json_text(body, policy)[1]:
        return JSONSearch(named_key(), text.split('"')[1::2])
    found: dict[int, str] = {}  # by where each string starts: one holding two marks is searched once
    for mark in ESCAPE_MARKS:
        at = text.find(mark)
        counted, inside = 0, False  # whether text[counted] is inside a string
        while at >= 0:
            inside ^= text.count('"', counted, at) % 2 == 1
            if not inside:
                counted, at = at, text.find(mark, at + 1)
                continue
            start = text.rfind('"', 0, at) + 1
            stop = text.find('"', at)
            if stop < 0:  # not JSON after all: its parse says so
                return JSONSearch(named_key(), _strings(body.value))
            found[start] = text[start:stop]
            counted, inside, at = stop + 1, False, text.find(mark, stop + 1)
    # `policy.may_hold_name` of each, knowing the text: no backslash, no quote inside a string and no
    # name anywhere (so a link's `&` alone names nothing: `text_secret_spans` would find no span in it).
    known = named if named is not None else False  # the caller's `may_name` is False here too
    return JSONSearch(known, [string for string in found.values() if _may_hold_name_here(string)])


def _may_hold_name_here(string: str) -> bool:
    return "%" in string or "+" in string or "'" in string or "name" in string.lower()


def _unquoted(value: str) -> str:
    """A cookie value without the double quotes RFC 6265 allows around it."""
    value = value.strip()
    return value[1:-1] if len(value) >= 2 and value[0] == value[-1] == '"' else value


def basic_parts(credentials: str) -> set[str]:
    """The user, the password and `user:password` of a Basic credential (nothing if it is not one)."""
    try:
        decoded = base64.b64decode(credentials + "=" * (-len(credentials) % 4), validate=True).decode()
    except ValueError:
        return set()
    user, _, password = decoded.partition(":")
    return {user, password, decoded}


def wide_texts(body: Body) -> list[str]:
    """A body's text in UTF-16 or UTF-32 when it looks like one (a BOM, or a zero byte every other or
    every fourth byte): JSON the parsers did not take is still searched for named secrets."""
    if body.kind != "base64":
        return []
    raw = base64.b64decode(str(body.value))
    if b"\0" not in raw[:64] and not raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        return []
    texts = []
    for codec in ("utf-32", "utf-32-le", "utf-32-be", "utf-16", "utf-16-le", "utf-16-be"):
        with contextlib.suppress(UnicodeDecodeError):
            texts.append(raw.decode(codec))
    return texts


def _named_values(query: str, names: frozenset[str]) -> set[str]:
    found = set()
    for _, _, raw in named_parts(query.split("&") if query else [], names):
        found.update({raw, unquote_plus(raw)})
    return found


def _collect_json_secrets(
    value: JSONValue, path: tuple[str, ...], policy: RedactionPolicy, found: set[str]
) -> None:
    if isinstance(value, dict):
        for key, child in value.items():
            child_path = (*path, key)
            if may_be_secret(child) and (
                is_secret_name(key.lower(), policy.json_keys) or child_path in policy.json_paths
            ):
                found.update(_leaves(child))  # redacted whole, whatever it is: each part is a secret
            else:
                _collect_json_secrets(child, child_path, policy, found)
    elif isinstance(value, list):
        for item in value:
            _collect_json_secrets(item, path, policy, found)


def _leaves(value: JSONValue) -> set[str]:
    """A named value's secrets: a string itself; a number, list or object as its JSON text and each
    string and number inside."""
    if isinstance(value, str):
        return {value}
    found = {json.dumps(value, ensure_ascii=False)} if isinstance(value, dict | list) else set()
    stack: list[JSONValue] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found.add(item)
        elif isinstance(item, bool) or item is None:
            continue
        elif isinstance(item, int | float):
            found.add(repr(item))  # as spelled in the body (`SpelledInt`, `SpelledFloat`)
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def scrub_exchange(exchange: Exchange, values: frozenset[str]) -> Exchange:
    """The exchange with each secret value replaced wherever it stands, in any encoding of the family
    (`proxy.core.redaction.encodings.secret_spans`): query, path, headers, reason phrase, text, JSON
    strings and keys (a key that is a token would leak it; an ordinary word is never a value
    scrubbed here, see `credential_like`), the text of bodies in another charset (the placeholder
    written in that charset) and the bytes of other base64 bodies."""
    read, restore = in_text(exchange)  # a body in another charset: scrubbed as its text, then its bytes
    return scrub_text_of(restore(scrub_text_of(read, values)) if read is not exchange else exchange, values)


def scrub_text_of(exchange: Exchange, values: frozenset[str]) -> Exchange:
    """`scrub_exchange` of an exchange whose bodies in another charset are already read as text."""
    if not contains_secret(_haystack(exchange), values) and not any(
        contains_secret(payload, values) for payload in _gzip_payloads(exchange)
    ):
        return exchange

    def text(value: str) -> str:
        return scrub_text(value, values)

    def headers(pairs: Headers) -> Headers:
        scrubbed = tuple((name, text(value)) for name, value in pairs)
        return (
            pairs if all(new is old for (_, new), (_, old) in zip(scrubbed, pairs, strict=True)) else scrubbed
        )

    def body(stored: Body) -> Body:
        if stored.kind in ("text", "base64"):
            original = body_text(stored)
            scrubbed = text(original)
            return (
                stored
                if scrubbed == original
                else replace(stored, value=text_as_body_value(stored, scrubbed))
            )
        if stored.kind == "json":
            return replace(stored, value=map_strings(stored.value, text, keys=True))
        return stored

    request, response = exchange.request, exchange.response
    scrubbed_request = request_with(
        request, text(request.query), headers(request.headers), body(request.body)
    )
    path = text(request.path)
    if path != request.path:
        scrubbed_request = replace(scrubbed_request, path=path)
    scrubbed_response = response_with(response, headers(response.headers), body(response.body))
    reason = text(response.reason) if response.reason else response.reason
    if reason != response.reason:
        scrubbed_response = replace(scrubbed_response, reason=reason)
    return with_messages(exchange, scrubbed_request, scrubbed_response)


def _haystack(exchange: Exchange) -> str:
    """Every text of an exchange in one string (JSON as its text, and its keys and strings unescaped
    when the text escapes any), so whether any secret is in it is one search."""
    pieces = [exchange.request.path, exchange.request.query, exchange.response.reason or ""]
    for message in (exchange.request, exchange.response):
        pieces.extend(value for _, value in message.headers)
        stored = message.body
        if stored.kind in ("text", "base64"):
            pieces.append(body_text(stored))
        elif stored.kind == "json":
            written = _json_text(stored.value)
            pieces.append(written)
            if "\\" in written:  # some string is escaped in the text: each is searched as it reads
                pieces.extend(_strings(stored.value))
            # else every key and string stands in the text as it reads, between quotes (no character
            # around them joins a base64 run or an escape): searching them again found nothing more
    return "\n\x01\n".join(pieces)


def _json_text(value: JSONValue) -> str:
    """A JSON value's text, by orjson (a tenth of json's time); json's for what orjson cannot write
    as UTF-8 (a lone surrogate)."""
    try:
        return dump_json(value).decode("utf-8")
    except UnicodeError:
        return json.dumps(value, ensure_ascii=False)


def _gzip_payloads(exchange: Exchange) -> list[str]:
    """Bodies that are a gzip file (searched inflated, which only works from their first byte)."""
    bodies = (exchange.request.body, exchange.response.body)
    texts = [body_text(body) for body in bodies if body.kind == "base64"]
    return [text for text in texts if text.startswith(GZIP_MAGIC)]


def _strings(value: JSONValue) -> list[str]:
    """Every string and key of a JSON value, unescaped."""
    found: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found.append(item)
        elif isinstance(item, dict):
            found.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


# `dataclasses.replace` costs microseconds a call, on every recorded exchange: the messages are built
# directly, and only when something in them changed.


def with_messages(exchange: Exchange, request: Request, response: Response) -> Exchange:
    if request is exchange.request and response is exchange.response:
        return exchange
    return Exchange(request, response, exchange.recorded_at, exchange.duration_ms, exchange.confirmed_at)


def request_with(request: Request, query: str, headers: Headers, body: Body) -> Request:
    if query is request.query and headers is request.headers and body is request.body:
        return request
    return Request(request.method, request.path, query, headers, body)


def response_with(response: Response, headers: Headers, body: Body) -> Response:
    if headers is response.headers and body is response.body:
        return response
    return Response(response.status, headers, body, response.reason)
