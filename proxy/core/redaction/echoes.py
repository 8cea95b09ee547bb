"""Echo scrubbing: the secret values redaction finds in an exchange's named places, replaced wherever
else they stand (an upstream that echoes a token in a body, a header or a path), so a secret never
reaches disk by a side door.

Pure, like `proxy.core.redaction.redact`, which calls it.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import replace
from urllib.parse import quote, quote_plus, unquote_plus

from proxy.core.model.bodies import is_form_type, map_strings
from proxy.core.model.exchange import Body, Exchange, Headers, JSONValue, Request, Response, header_value
from proxy.core.redaction.policy import (
    PLACEHOLDER,
    RedactionPolicy,
    body_text,
    json_text,
    may_name,
    named_parts,
    text_as_body_value,
    text_secret_spans,
)

JSON_ESCAPED = re.compile(r'["\\\x00-\x1f]')  # characters JSON text writes as an escape
# Shorter values are too likely to be ordinary text ("true", "1234") to be replaced everywhere.
MIN_SCRUBBED_LENGTH = 6
LONG_SECRET = 16  # this long, a value is scrubbed even when it is plain words or a plain number


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
                # A value with no scheme is the credential itself; a scheme alone ("Bearer") is plain
                # letters, which `credential_like` leaves out.
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
            found.update(_named_values(str(body.value), policy.form_fields | policy.json_keys))
        elif body.kind == "json" and (named[position] if named else may_name(body, policy)):
            _collect_json_secrets(body.value, (), policy, found)
        if body.kind in ("text", "base64"):
            text = body_text(body)
            for start, stop in text_secret_spans(text, policy):
                found.update({text[start:stop], unquote_plus(text[start:stop])})
    return frozenset(value for value in found if credential_like(value) and value != PLACEHOLDER)


def credential_like(value: str) -> bool:
    """Whether a value is scrubbed wherever it echoes: long enough, or not plain words or a plain
    number. An ordinary word (a cookie `pref=default`, a scheme `Bearer`) is redacted where it is named
    and nowhere else: replacing it everywhere would damage unrelated data (`default_page_length`)."""
    if len(value) < MIN_SCRUBBED_LENGTH:
        return False
    if len(value) >= LONG_SECRET:
        return True
    plain = value.replace(" ", "")
    return not (plain.isalpha() or plain.isdigit())


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
    """The exchange with each secret value replaced wherever it stands in text (and as it reads
    percent-encoded or JSON-escaped): query, path, headers, reason phrase, text, JSON strings and keys
    (a key that is a token would leak it; an ordinary word is never a value scrubbed here, see
    `credential_like`) and the bytes of base64 bodies."""
    forms = _echo_forms(values)
    pattern = _echo_pattern(forms)

    def text(value: str) -> str:
        return pattern.sub(PLACEHOLDER, value) if pattern.search(value) else value

    def headers(pairs: Headers) -> Headers:
        if not any(pattern.search(value) for _, value in pairs):
            return pairs
        return tuple((name, text(value)) for name, value in pairs)

    def body(stored: Body) -> Body:
        if stored.kind in ("text", "base64"):
            original = body_text(stored)
            scrubbed = text(original)
            if stored.kind == "base64":  # bytes read as Latin-1: a non-ASCII secret stands as its UTF-8
                scrubbed = _byte_pattern(values).sub(PLACEHOLDER, scrubbed)
            return (
                stored
                if scrubbed == original
                else replace(stored, value=text_as_body_value(stored, scrubbed))
            )
        if stored.kind == "json" and _may_contain(stored, sorted(forms)):
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


@functools.lru_cache(maxsize=64)  # a recording sees the same few tokens on every exchange
def _echo_forms(values: frozenset[str]) -> frozenset[str]:
    """Each secret as written, percent-encoded and JSON-escaped."""
    return frozenset(
        form
        for value in values
        for form in (value, quote(value, safe=""), quote_plus(value), json.dumps(value)[1:-1])
    )


@functools.lru_cache(maxsize=64)
def _echo_pattern(forms: frozenset[str]) -> re.Pattern[str]:
    """The forms, longest first, wherever they stand: a credential glued to other letters or digits is
    still the credential (ordinary words never get here: see `credential_like`)."""
    return re.compile("|".join(re.escape(form) for form in sorted(forms, key=len, reverse=True)))


@functools.lru_cache(maxsize=64)
def _byte_pattern(values: frozenset[str]) -> re.Pattern[str]:
    """The secrets' UTF-8 bytes read as Latin-1: how they stand in `body_text` of a base64 body."""
    forms = {value.encode("utf-8").decode("latin-1") for value in values} - set(values)
    if not forms:
        return re.compile(r"(?!)")
    return re.compile("|".join(re.escape(form) for form in sorted(forms, key=len, reverse=True)))


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
