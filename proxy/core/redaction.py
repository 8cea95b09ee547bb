"""Redaction: secrets and personal data replaced by a stable placeholder before anything is written.

The same policy is applied to requests arriving at replay, so a client that sends real secrets still
matches a recording whose secrets were redacted.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import parse_qsl, unquote_plus

from proxy.core.bodies import dump_json, is_form_type, map_strings
from proxy.core.exchange import (
    Body,
    Exchange,
    Headers,
    JSONValue,
    Request,
    Response,
    header_value,
    source_text,
)
from proxy.errors import RuleFileError

PLACEHOLDER = "<redacted>"

DEFAULT_HEADERS = frozenset(
    {
        "authorization",
        "proxy-authorization",
        "cookie",
        "set-cookie",
        "x-api-key",
        "api-key",
        "apikey",
        "x-auth-token",
        "x-moltin-secret-key",
    }
)
# Form fields of POST /oauth/access_token (and any other form) that carry credentials.
DEFAULT_FORM_FIELDS = frozenset({"client_secret", "password", "refresh_token"})
# Token fields of the /oauth/access_token answer, wherever they appear in a JSON body.
DEFAULT_JSON_KEYS = frozenset({"access_token", "refresh_token", "client_secret", "password"})
DEFAULT_QUERY = frozenset({"access_token", "api_key", "apikey", "client_secret"})


@dataclass(frozen=True, slots=True)
class RedactionPolicy:
    """What to redact. Names are matched without regard to case; JSON paths are dotted key paths."""

    headers: frozenset[str] = DEFAULT_HEADERS
    query: frozenset[str] = DEFAULT_QUERY
    form_fields: frozenset[str] = DEFAULT_FORM_FIELDS
    json_keys: frozenset[str] = DEFAULT_JSON_KEYS
    json_paths: frozenset[tuple[str, ...]] = field(default_factory=frozenset)

    def extended(
        self,
        headers: Iterable[str] = (),
        query: Iterable[str] = (),
        form_fields: Iterable[str] = (),
        json_paths: Iterable[str] = (),
    ) -> RedactionPolicy:
        """This policy plus more names (JSON paths given dotted: `data.attributes.email`)."""
        return replace(
            self,
            headers=self.headers | {name.lower() for name in headers},
            query=self.query | {name.lower() for name in query},
            form_fields=self.form_fields | {name.lower() for name in form_fields},
            json_paths=self.json_paths | {tuple(path.split(".")) for path in json_paths},
        )


REDACT_SETTINGS = {"headers": "headers", "query": "query", "form": "form_fields", "json_paths": "json_paths"}


def configured_policy(document: Any, source: str) -> RedactionPolicy:
    """The default policy plus the `redact` table of the project config (lists of names/paths)."""
    if document is None:
        return RedactionPolicy()
    if not isinstance(document, Mapping):
        raise RuleFileError(f"{source}: redact: expected a table with {', '.join(REDACT_SETTINGS)}")
    unknown = set(document) - set(REDACT_SETTINGS)
    if unknown:
        raise RuleFileError(
            f"{source}: redact: unknown setting(s) {', '.join(sorted(map(str, unknown)))}; "
            f"known: {', '.join(REDACT_SETTINGS)}"
        )
    lists: dict[str, list[str]] = {}
    for key, argument in REDACT_SETTINGS.items():
        value = document.get(key, [])
        if not isinstance(value, list) or not all(isinstance(item, str) and item for item in value):
            raise RuleFileError(f"{source}: redact.{key}: expected a list of names, found {value!r}")
        lists[argument] = value
    return RedactionPolicy().extended(**lists)


def redact_exchange(exchange: Exchange, policy: RedactionPolicy) -> Exchange:
    """The exchange with every secret the policy names replaced by the placeholder.

    Secret values are then also scrubbed wherever else they appear (an upstream that echoes the
    request, a token repeated in a body), so a secret never reaches disk by a side door.
    """
    request, response = exchange.request, exchange.response
    named = (_may_name(request.body, policy), _may_name(response.body, policy))  # looked at once
    values = secret_values(request, response, policy, named)
    redacted = _with_messages(
        exchange, redact_request(request, policy, named[0]), redact_response(response, policy, named[1])
    )
    return scrub_exchange(redacted, values) if values else redacted


# `dataclasses.replace` costs microseconds a call, on every recorded exchange: the messages are built
# directly, and only when something in them changed.


def _with_messages(exchange: Exchange, request: Request, response: Response) -> Exchange:
    if request is exchange.request and response is exchange.response:
        return exchange
    return Exchange(request, response, exchange.recorded_at, exchange.duration_ms)


def _request_with(request: Request, query: str, headers: Headers, body: Body) -> Request:
    if query is request.query and headers is request.headers and body is request.body:
        return request
    return Request(request.method, request.path, query, headers, body)


def _response_with(response: Response, headers: Headers, body: Body) -> Response:
    if headers is response.headers and body is response.body:
        return response
    return Response(response.status, headers, body, response.reason)


JSON_ESCAPED = re.compile(r'["\\\x00-\x1f]')  # characters JSON text writes as an escape
# Shorter values are too likely to be ordinary text ("true", "1234") to be replaced everywhere.
MIN_SCRUBBED_LENGTH = 6


def secret_values(
    request: Request,
    response: Response,
    policy: RedactionPolicy,
    named: tuple[bool, bool] | None = None,
) -> frozenset[str]:
    """The literal secret values the policy finds in an exchange's named places (`named`: whether each
    body may hold a redacted key, when already known)."""
    found: set[str] = set()
    for headers in (request.headers, response.headers):
        for name, value in headers:
            lowered = name.lower()
            if lowered not in policy.headers:
                continue
            if lowered in {"authorization", "proxy-authorization"}:
                scheme, _, credentials = value.partition(" ")
                found.add(credentials.strip() or scheme)
            elif lowered in {"cookie", "set-cookie"}:
                pairs = value.split(";") if lowered == "cookie" else value.split(";")[:1]
                found.update(pair.partition("=")[2].strip() for pair in pairs)
            else:
                found.add(value)
    found.update(_named_values(request.query, policy.query))
    messages: tuple[Request | Response, ...] = (request, response)
    for position, message in enumerate(messages):
        body = message.body
        if body.kind == "text" and is_form_type(header_value(message.headers, "Content-Type")):
            found.update(_named_values(str(body.value), policy.form_fields))
        elif body.kind == "json" and (named[position] if named else _may_name(body, policy)):
            _collect_json_secrets(body.value, (), policy, found)
    return frozenset(value for value in found if len(value) >= MIN_SCRUBBED_LENGTH and value != PLACEHOLDER)


# Walking a JSON document in Python costs about 40 times encoding it in C, so a body is first looked at as
# text: a key the policy names must appear in it quoted, a secret value as it is. Either test may say
# "maybe" (then the document is walked); neither says "no" when the walk would find something.


def _json_text(body: Body) -> str:
    """The body as JSON text with no escapes but those a quote, a backslash and a control character
    need: the text it came in when that has no backslash at all (so no `\\u0061`), else encoded anew."""
    text = source_text(body)
    if text is not None and "\\" not in text:
        return text
    return dump_json(body.value).decode("utf-8")


@functools.lru_cache(maxsize=16)
def _quoted_names(policy: RedactionPolicy) -> tuple[str, ...]:
    """Each key the policy redacts (a key or the last part of a path), lower case, quoted as in JSON."""
    names = policy.json_keys | {path[-1].lower() for path in policy.json_paths if path}
    return tuple(f'"{json.dumps(name, ensure_ascii=False)[1:-1]}"' for name in sorted(names))


def _may_name(body: Body, policy: RedactionPolicy) -> bool:
    """Whether a JSON body may hold a key the policy redacts."""
    names = _quoted_names(policy)
    if body.kind != "json" or not names or not isinstance(body.value, dict | list):
        return False
    text = _json_text(body).lower()
    return any(name in text for name in names)


def _may_contain(body: Body, secrets: list[str]) -> bool:
    """Whether a JSON body's strings (or keys) may contain one of the secret values."""
    if any(_escaped_in_json(secret) for secret in secrets):
        return True  # written differently in JSON text: walk to be sure
    text = _json_text(body)
    return any(secret in text for secret in secrets)


def _escaped_in_json(text: str) -> bool:
    return JSON_ESCAPED.search(text) is not None


def _named_values(query: str, names: frozenset[str]) -> set[str]:
    found = set()
    for _, _, raw in _named_parts(query.split("&") if query else [], names):
        found.update({raw, unquote_plus(raw)})
    return found


def _collect_json_secrets(
    value: JSONValue, path: tuple[str, ...], policy: RedactionPolicy, found: set[str]
) -> None:
    if isinstance(value, dict):
        for key, child in value.items():
            child_path = (*path, key)
            if isinstance(child, str) and (
                key.lower() in policy.json_keys or child_path in policy.json_paths
            ):
                found.add(child)
            else:
                _collect_json_secrets(child, child_path, policy, found)
    elif isinstance(value, list):
        for item in value:
            _collect_json_secrets(item, path, policy, found)


def scrub_exchange(exchange: Exchange, values: frozenset[str]) -> Exchange:
    """The exchange with each secret value replaced wherever it appears in text."""
    ordered = sorted(values, key=len, reverse=True)  # a longer secret may contain a shorter one

    def text(value: str) -> str:
        for secret in ordered:
            if secret in value:
                value = value.replace(secret, PLACEHOLDER)
        return value

    def headers(pairs: Headers) -> Headers:
        if not any(secret in value for _, value in pairs for secret in ordered):
            return pairs
        return tuple((name, text(value)) for name, value in pairs)

    def body(stored: Body) -> Body:
        if stored.kind == "text":
            scrubbed = text(str(stored.value))
            return stored if scrubbed == stored.value else replace(stored, value=scrubbed)
        if stored.kind == "json" and _may_contain(stored, ordered):
            return replace(stored, value=map_strings(stored.value, text, keys=True))
        return stored

    request, response = exchange.request, exchange.response
    return _with_messages(
        exchange,
        _request_with(request, text(request.query), headers(request.headers), body(request.body)),
        _response_with(response, headers(response.headers), body(response.body)),
    )


def redact_request(request: Request, policy: RedactionPolicy, named: bool | None = None) -> Request:
    """The request with its secrets replaced (headers, query parameters, form fields, JSON)."""
    return _request_with(
        request,
        redact_query(request.query, policy.query),
        redact_headers(request.headers, policy.headers),
        redact_body(request.body, request.headers, policy, named),
    )


def redact_response(response: Response, policy: RedactionPolicy, named: bool | None = None) -> Response:
    """The response with its secrets replaced (Set-Cookie and friends, token fields in JSON)."""
    return _response_with(
        response,
        redact_headers(response.headers, policy.headers),
        redact_body(response.body, response.headers, policy, named),
    )


def redact_headers(headers: Headers, names: frozenset[str]) -> Headers:
    """Headers with the named values replaced; `Authorization` keeps its scheme, cookies their names."""
    if not any(name.lower() in names for name, _ in headers):
        return headers
    return tuple(
        (name, _redact_header_value(name.lower(), value) if name.lower() in names else value)
        for name, value in headers
    )


def _redact_header_value(name: str, value: str) -> str:
    if name in {"authorization", "proxy-authorization"}:
        scheme, _, credentials = value.partition(" ")
        return f"{scheme} {PLACEHOLDER}" if credentials else PLACEHOLDER
    if name == "cookie":
        return "; ".join(_redact_pair(part.strip()) for part in value.split(";") if part.strip())
    if name == "set-cookie":
        first, sep, attributes = value.partition(";")
        return _redact_pair(first.strip()) + sep + attributes
    return PLACEHOLDER


def _redact_pair(pair: str) -> str:
    key, sep, _ = pair.partition("=")
    return f"{key}={PLACEHOLDER}" if sep else PLACEHOLDER


def _named_parts(parts: list[str], names: frozenset[str]) -> Iterator[tuple[int, str, str]]:
    """(position, raw key, raw value) of each `key=value` part whose decoded key is named."""
    for position, part in enumerate(parts if names else ()):
        key, sep, raw = part.partition("=")
        if not sep:
            continue
        decoded = unquote_plus(key) if "%" in key or "+" in key else key
        if decoded.lower() in names:
            yield position, key, raw


TOKEN_PATH = "/oauth/access_token"


def is_token_request(request: Request) -> bool:
    """A request for an access token: its recorded answer holds `<redacted>`, so a recorder asks the
    live service every time instead of replaying it."""
    return request.method == "POST" and request.path.rstrip("/") == TOKEN_PATH


def placeholder_credential(request: Request, policy: RedactionPolicy) -> str | None:
    """Where a request carries the redaction placeholder as a credential (a header, query parameter or
    form field the policy redacts), or None. Such a request was built from a replayed answer (a token
    of `<redacted>`): forwarded, it would only record the service's refusal."""
    for name, value in request.headers:
        if name.lower() in policy.headers and PLACEHOLDER in value:
            return f"header {name}"
    parts = request.query.split("&") if request.query else []
    for _, key, raw in _named_parts(parts, policy.query):
        if PLACEHOLDER in unquote_plus(raw):
            return f"query parameter {unquote_plus(key)}"
    content_type = header_value(request.headers, "Content-Type")
    if request.body.kind == "text" and is_form_type(content_type):
        fields = str(request.body.value).split("&")
        for _, key, raw in _named_parts(fields, policy.form_fields):
            if PLACEHOLDER in unquote_plus(raw):
                return f"form field {unquote_plus(key)}"
    return None


def redact_query(query: str, names: frozenset[str]) -> str:
    """A raw query string with the named parameters' values replaced; the rest kept byte for byte."""
    parts = query.split("&") if query else []
    named = list(_named_parts(parts, names))
    for position, key, _ in named:
        parts[position] = f"{key}={PLACEHOLDER}"
    return "&".join(parts) if named else query


def redact_body(body: Body, headers: Headers, policy: RedactionPolicy, named: bool | None = None) -> Body:
    """A body with its secrets replaced: form fields in form bodies, keys and paths in JSON (`named`:
    whether the JSON may hold a redacted key, when already known)."""
    if body.kind == "json" and (_may_name(body, policy) if named is None else named):
        redacted = _redact_json(body.value, (), policy)
        return body if redacted is body.value else replace(body, value=redacted)
    if body.kind == "text" and is_form_type(header_value(headers, "Content-Type")):
        text = redact_query(str(body.value), policy.form_fields)
        return body if text == body.value else replace(body, value=text)
    return body


def _redact_json(value: JSONValue, path: tuple[str, ...], policy: RedactionPolicy) -> JSONValue:
    """A redacted copy, or the very same object when nothing in it needed redacting."""
    if isinstance(value, dict):
        result: dict[str, JSONValue] = {}
        changed = False
        for key, child in value.items():
            child_path = (*path, key)
            if child is not None and (key.lower() in policy.json_keys or child_path in policy.json_paths):
                new_child: JSONValue = PLACEHOLDER
            else:
                new_child = _redact_json(child, child_path, policy)
            changed = changed or new_child is not child
            result[key] = new_child
        return result if changed else value
    if isinstance(value, list):
        items = [_redact_json(item, path, policy) for item in value]
        return items if any(new is not old for new, old in zip(items, value, strict=True)) else value
    return value


def placeholders_in(requests: Iterable[Request]) -> RedactionPolicy:
    """A policy naming every query parameter, form field and JSON path that holds the placeholder.

    Replay adds it to its own policy, so fields redacted by settings it does not know are still
    ignored when matching.
    """
    query: set[str] = set()
    form: set[str] = set()
    paths: set[tuple[str, ...]] = set()
    for request in requests:
        pairs = parse_qsl(request.query, keep_blank_values=True)
        query.update(key.lower() for key, value in pairs if value == PLACEHOLDER)
        body = request.body
        if body.kind == "text" and is_form_type(header_value(request.headers, "Content-Type")):
            pairs = parse_qsl(str(body.value), keep_blank_values=True)
            form.update(key.lower() for key, value in pairs if value == PLACEHOLDER)
        elif body.kind == "json":
            _collect_placeholder_paths(body.value, (), paths)
    return RedactionPolicy(
        headers=frozenset(),
        query=frozenset(query),
        form_fields=frozenset(form),
        json_keys=frozenset(),
        json_paths=frozenset(paths),
    )


def _collect_placeholder_paths(value: JSONValue, path: tuple[str, ...], found: set[tuple[str, ...]]) -> None:
    if isinstance(value, dict):
        for key, child in value.items():
            if child == PLACEHOLDER:
                found.add((*path, key))
            else:
                _collect_placeholder_paths(child, (*path, key), found)
    elif isinstance(value, list):
        for item in value:
            _collect_placeholder_paths(item, path, found)


def merged(first: RedactionPolicy, second: RedactionPolicy) -> RedactionPolicy:
    """A policy redacting everything either one does."""
    return RedactionPolicy(
        headers=first.headers | second.headers,
        query=first.query | second.query,
        form_fields=first.form_fields | second.form_fields,
        json_keys=first.json_keys | second.json_keys,
        json_paths=first.json_paths | second.json_paths,
    )
