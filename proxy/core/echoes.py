"""Echo scrubbing: the secret values redaction finds in an exchange's named places, replaced wherever
else they stand (an upstream that echoes a token in a body, a header or a path), so a secret never
reaches disk by a side door.

Pure, like `proxy.core.redaction`, which calls it.
"""

from __future__ import annotations

import re
from dataclasses import replace
from urllib.parse import unquote_plus

from proxy.core.bodies import is_form_type, map_strings
from proxy.core.exchange import Body, Exchange, Headers, JSONValue, Request, Response, header_value
from proxy.core.redaction_policy import PLACEHOLDER, RedactionPolicy, json_text, may_name, named_parts

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
        elif body.kind == "json" and (named[position] if named else may_name(body, policy)):
            _collect_json_secrets(body.value, (), policy, found)
    return frozenset(value for value in found if len(value) >= MIN_SCRUBBED_LENGTH and value != PLACEHOLDER)


def _may_contain(body: Body, secrets: list[str]) -> bool:
    """Whether a JSON body's strings (or keys) may contain one of the secret values."""
    if any(_escaped_in_json(secret) for secret in secrets):
        return True  # written differently in JSON text: walk to be sure
    text = json_text(body)
    return any(secret in text for secret in secrets)


def _escaped_in_json(text: str) -> bool:
    return JSON_ESCAPED.search(text) is not None


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
    return with_messages(
        exchange,
        request_with(request, text(request.query), headers(request.headers), body(request.body)),
        response_with(response, headers(response.headers), body(response.body)),
    )


# `dataclasses.replace` costs microseconds a call, on every recorded exchange: the messages are built
# directly, and only when something in them changed.


def with_messages(exchange: Exchange, request: Request, response: Response) -> Exchange:
    if request is exchange.request and response is exchange.response:
        return exchange
    return Exchange(request, response, exchange.recorded_at, exchange.duration_ms)


def request_with(request: Request, query: str, headers: Headers, body: Body) -> Request:
    if query is request.query and headers is request.headers and body is request.body:
        return request
    return Request(request.method, request.path, query, headers, body)


def response_with(response: Response, headers: Headers, body: Body) -> Response:
    if headers is response.headers and body is response.body:
        return response
    return Response(response.status, headers, body, response.reason)
