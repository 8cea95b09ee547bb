"""Where a request holds the redaction placeholder, anywhere: a request rebuilt from a recording and
sent again (the UI's resend, `verify`) must not carry `<redacted>` to the live service in any place,
whichever policy redacted it there (a header, the path, a query parameter, a form field, a JSON field
at any depth, a text body)."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import unquote, unquote_plus

from proxy.core.model.bodies import is_form_type
from proxy.core.model.charsets import body_in_charset
from proxy.core.model.exchange import JSONValue, Request, header_value
from proxy.core.redaction.policy import PLACEHOLDER, body_text


def redacted_places(request: Request) -> list[str]:
    """Every place of `request` that holds the placeholder, each named as a refusal names it
    ("header Authorization", "path", "query parameter key", "form field key", "JSON body field
    a.b[0].c", "body"), in the order the request is read. Empty: nothing redacted in it."""
    places = [f"header {name}" for name, value in request.headers if PLACEHOLDER in value]
    if PLACEHOLDER in unquote(request.path):
        places.append("path")
    places.extend(f"query parameter {key}" for key in _pairs_holding(request.query))
    body = request.body
    if body.kind == "json":
        places.extend(
            f"JSON body field {where or '(the whole body)'}" for where in _json_places(body.value, "")
        )
    elif body.kind in ("text", "base64"):
        in_charset = body_in_charset(body, request.headers)  # a body in another charset: its text
        text = in_charset.text if in_charset is not None else body_text(body)
        if is_form_type(header_value(request.headers, "Content-Type")):
            places.extend(f"form field {key}" for key in _pairs_holding(text))
        elif PLACEHOLDER in text:
            places.append("body")
    return places


def _pairs_holding(encoded: str) -> Iterator[str]:
    """The keys of `a=1&b=2` pairs whose key or value holds the placeholder once decoded."""
    for part in encoded.split("&") if encoded else ():
        key, _, value = part.partition("=")
        if PLACEHOLDER in unquote_plus(key) or PLACEHOLDER in unquote_plus(value):
            yield unquote_plus(key)


def _json_places(value: JSONValue, where: str) -> Iterator[str]:
    if isinstance(value, dict):
        for key, child in value.items():
            if PLACEHOLDER in key:
                yield f"{where}.{key}".lstrip(".")
            yield from _json_places(child, f"{where}.{key}".lstrip("."))
    elif isinstance(value, list):
        for position, child in enumerate(value):
            yield from _json_places(child, f"{where}[{position}]")
    elif isinstance(value, str) and PLACEHOLDER in value:
        yield where
