"""Redaction: secrets and personal data replaced by a stable placeholder before anything is written.

The same policy is applied to requests arriving at replay, so a client that sends real secrets still
matches a recording whose secrets were redacted.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace
from urllib.parse import parse_qsl, unquote_plus

from proxy.core.model.bodies import is_form_type
from proxy.core.model.exchange import Body, Exchange, Headers, JSONValue, Request, Response, header_value
from proxy.core.model.withheld import withheld
from proxy.core.redaction.book import KNOWN, credential_like
from proxy.core.redaction.charset_bodies import in_text
from proxy.core.redaction.echoes import (
    request_with,
    response_with,
    scrub_text_of,
    secret_values,
    values_found,
    with_messages,
)
from proxy.core.redaction.policy import PLACEHOLDER as PLACEHOLDER
from proxy.core.redaction.policy import RedactionPolicy as RedactionPolicy
from proxy.core.redaction.policy import (
    body_text,
    credential_header,
    is_secret_name,
    may_be_secret,
    may_name,
    named_parts,
    replace_spans,
    text_as_body_value,
    text_secret_spans,
)
from proxy.core.redaction.policy import configured_policy as configured_policy
from proxy.core.rules.endpoints import routed_path


def redact_exchange(
    exchange: Exchange, policy: RedactionPolicy, known: frozenset[str] = frozenset()
) -> Exchange:
    """The exchange with every secret the policy names replaced by the placeholder.

    Secret values are then also scrubbed wherever else they appear (an upstream that echoes the
    request, a token repeated in a body), so a secret never reaches disk by a side door; `known` adds
    secrets the exchange does not show (credentials the proxy itself sent upstream).
    """
    read, restore = in_text(exchange)
    if read is not exchange:  # a body in another charset: redacted as its text, then as its bytes
        exchange = restore(_redacted(read, policy, known))
    return _redacted(exchange, policy, known)


def _redacted(exchange: Exchange, policy: RedactionPolicy, known: frozenset[str]) -> Exchange:
    request, response = exchange.request, exchange.response
    named = (may_name(request.body, policy), may_name(response.body, policy))  # looked at once
    # A credential the proxy sent is scrubbed wherever it echoes only when it can be told apart from
    # ordinary text, as every value the book learns (a one-letter token would rewrite every "t").
    values = values_found(request, response, policy, named) | {
        value for value in known if credential_like(value)
    }
    KNOWN.add(values)  # from now on scrubbed from every output of this process, in every encoding
    values |= KNOWN.values
    redacted = with_messages(
        exchange, _redact_named(request, policy, named[0]), redact_response(response, policy, named[1])
    )
    return scrub_text_of(redacted, values) if values else redacted


def learn_secrets(exchanges: Iterable[Exchange], policy: RedactionPolicy) -> Iterator[Exchange]:
    """The exchanges as they are, each one's secrets added to the `KNOWN` book as it passes: a command
    that reads cassettes (`check`) keeps a credential written in one out of everything it writes."""
    for exchange in exchanges:
        KNOWN.add(secret_values(exchange.request, exchange.response, policy))
        yield exchange


def redact_request(request: Request, policy: RedactionPolicy, named: bool | None = None) -> Request:
    """The request with its secrets replaced (headers, query parameters, form fields, JSON) and every
    known secret scrubbed (a token echoed in its path); a body it cannot read is withheld. What it
    finds joins the `KNOWN` book: a request replay does not match is logged and reported."""
    read, restore = in_text(Exchange(request, NO_RESPONSE))
    if read.request is not request:  # a body in another charset: redacted as its text, then its bytes
        request = restore(Exchange(_request_redacted(read.request, policy, None), NO_RESPONSE)).request
    return _request_redacted(request, policy, named)


def _request_redacted(request: Request, policy: RedactionPolicy, named: bool | None) -> Request:
    KNOWN.add(values_found(request, NO_RESPONSE, policy))
    redacted = _redact_named(request, policy, named)
    known = KNOWN.values
    return scrub_text_of(Exchange(redacted, NO_RESPONSE), known).request if known else redacted


NO_RESPONSE = Response(0)


def _redact_named(request: Request, policy: RedactionPolicy, named: bool | None = None) -> Request:
    headers, body = withheld(request.body, request.headers) or (request.headers, request.body)
    return request_with(
        request,
        redact_query(request.query, policy.query),
        redact_headers(headers, policy.headers),
        redact_body(body, headers, policy, named),
    )


def redact_response(response: Response, policy: RedactionPolicy, named: bool | None = None) -> Response:
    """The response with its secrets replaced (Set-Cookie and friends, token fields in JSON); a body
    it cannot read is withheld."""
    headers, body = withheld(response.body, response.headers) or (response.headers, response.body)
    return response_with(
        response,
        redact_headers(headers, policy.headers),
        redact_body(body, headers, policy, named),
    )


def redact_headers(headers: Headers, names: frozenset[str]) -> Headers:
    """Headers with the named values replaced; `Authorization` keeps its scheme, cookies their names.
    The same tuple when no value changes (a cassette's credentials redacted already), so a message
    with nothing to redact is not rebuilt."""
    redacted: list[tuple[str, str]] | None = None
    for position, (name, value) in enumerate(headers):
        lowered = name.lower()
        if credential_header(lowered, names):
            replaced = _redact_header_value(lowered, value)
            if replaced != value:
                if redacted is None:
                    redacted = list(headers)
                redacted[position] = (name, replaced)
    return headers if redacted is None else tuple(redacted)


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


TOKEN_PATH = "/oauth/access_token"


def is_token_request(request: Request) -> bool:
    """A request for an access token: its recorded answer holds `<redacted>`, so a recorder asks the
    live service every time instead of replaying it."""
    return request.method == "POST" and routed_path(request.path) == TOKEN_PATH


def placeholder_credential(request: Request, policy: RedactionPolicy) -> str | None:
    """Where a request carries the redaction placeholder as a credential (a header, query parameter or
    form field the policy redacts), or None. Such a request was built from a replayed answer (a token
    of `<redacted>`): forwarded, it would only record the service's refusal."""
    for name, value in request.headers:
        if name.lower() in policy.headers and PLACEHOLDER in value:
            return f"header {name}"
    parts = request.query.split("&") if request.query else []
    for _, key, raw in named_parts(parts, policy.query):
        if PLACEHOLDER in unquote_plus(raw):
            return f"query parameter {unquote_plus(key)}"
    content_type = header_value(request.headers, "Content-Type")
    if request.body.kind == "text" and is_form_type(content_type):
        fields = str(request.body.value).split("&")
        for _, key, raw in named_parts(fields, policy.form_fields):
            if PLACEHOLDER in unquote_plus(raw):
                return f"form field {unquote_plus(key)}"
    return None


def placeholder_refusal(where: str) -> str:
    """Why a request carrying the placeholder as its credential is answered 401 by the proxy."""
    return (
        f"this request's {where} is the redaction placeholder {PLACEHOLDER} (a credential replayed from "
        "a cassette), so it was not forwarded or recorded: send a real credential (ask the token "
        "endpoint, which is always answered live)"
    )


def redact_query(query: str, names: frozenset[str]) -> str:
    """A raw query string with the named parameters' values replaced; the rest kept byte for byte."""
    parts = query.split("&") if query else []
    named = list(named_parts(parts, names))
    for position, key, _ in named:
        parts[position] = f"{key}={PLACEHOLDER}"
    return "&".join(parts) if named else query


def redact_body(body: Body, headers: Headers, policy: RedactionPolicy, named: bool | None = None) -> Body:
    """A body with its secrets replaced: form fields in form bodies, keys and paths in JSON (`named`:
    whether the JSON may hold a redacted key, when already known)."""
    if body.kind == "json" and (may_name(body, policy) if named is None else named):
        redacted = _redact_json(body.value, (), policy)
        return body if redacted is body.value else replace(body, value=redacted)
    if body.kind == "text" and is_form_type(header_value(headers, "Content-Type")):
        # a token answer may come form-encoded too: `access_token=...&token_type=bearer`
        text = redact_query(str(body.value), policy.form_fields | policy.json_keys)
        return body if text == body.value else replace(body, value=text)
    if body.kind in ("text", "base64"):  # JSON or a form the parsers did not take: searched as text
        text = body_text(body)
        spans = text_secret_spans(text, policy)
        return replace(body, value=text_as_body_value(body, replace_spans(text, spans))) if spans else body
    return body


def _redact_json(value: JSONValue, path: tuple[str, ...], policy: RedactionPolicy) -> JSONValue:
    """A redacted copy, or the very same object when nothing in it needed redacting."""
    if isinstance(value, dict):
        result: dict[str, JSONValue] = {}
        changed = False
        for key, child in value.items():
            child_path = (*path, key)
            if may_be_secret(child) and (
                is_secret_name(key.lower(), policy.json_keys) or child_path in policy.json_paths
            ):
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
