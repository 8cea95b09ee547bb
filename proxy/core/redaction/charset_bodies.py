"""Bodies in another charset (UTF-16 or UTF-32, Latin-1, Windows-1252, Shift_JIS...: what the message's
Content-Type declares or a byte order mark shows) are redacted as the text they hold, as UTF-8 bodies
are: each such body is read as that text (JSON, a form or text by its media type) before redaction, and
written back in its own charset after, so a secret is found by name in it, a known secret is scrubbed
from it, and the placeholder is written in that charset; a body redaction did not change keeps its
recorded bytes.

Reading in a charset only adds to what the bytes show: a body is also searched as its bytes after, as
any binary body is (a byte order mark may begin bytes that are no text, and a misread text hides a
secret its bytes still spell), so a charset never lets a secret through that the bytes would not. Pure.
"""

from __future__ import annotations

import base64
from collections.abc import Callable

from proxy.core.model.bodies import dump_json, is_json_type, parse_json
from proxy.core.model.charsets import InCharset, body_in_charset
from proxy.core.model.exchange import Body, Exchange, Headers, JSONFromText, Request, Response, header_value

Restore = Callable[[Exchange], Exchange]


def _unchanged(exchange: Exchange) -> Exchange:
    return exchange


def in_text(exchange: Exchange) -> tuple[Exchange, Restore]:
    """The exchange with each body in another charset read as its text, and the function that writes
    the (redacted) exchange's bodies back in their charsets."""
    request, response = exchange.request, exchange.response
    read_request = _read(request.body, request.headers)
    read_response = _read(response.body, response.headers)
    if read_request is None and read_response is None:
        return exchange, _unchanged
    if read_request is not None:
        request = Request(request.method, request.path, request.query, request.headers, read_request[0])
    if read_response is not None:
        response = Response(response.status, response.headers, read_response[0], response.reason)
    originals = (exchange.request.body, exchange.response.body)

    def restore(redacted: Exchange) -> Exchange:
        if redacted is lifted:
            return exchange
        new_request, new_response = redacted.request, redacted.response
        if read_request is not None:
            body = _written(originals[0], read_request, new_request.body)
            new_request = Request(
                new_request.method, new_request.path, new_request.query, new_request.headers, body
            )
        if read_response is not None:
            body = _written(originals[1], read_response, new_response.body)
            new_response = Response(new_response.status, new_response.headers, body, new_response.reason)
        return Exchange(
            new_request, new_response, redacted.recorded_at, redacted.duration_ms, redacted.confirmed_at
        )

    lifted = Exchange(request, response, exchange.recorded_at, exchange.duration_ms, exchange.confirmed_at)
    return lifted, restore


def _read(body: Body, headers: Headers) -> tuple[Body, InCharset] | None:
    """A body in another charset as a JSON or text body of its text (and how it was read), or None."""
    if body.kind not in ("base64", "text"):
        return None
    found = body_in_charset(body, headers)
    if found is None:
        return None
    if is_json_type(header_value(headers, "Content-Type")):
        try:
            document = parse_json(found.text)
        except ValueError:
            pass
        else:
            return JSONFromText(value=document, decoded_from=body.decoded_from, text=found.text), found
    return Body("text", found.text, body.decoded_from), found


def _written(original: Body, read: tuple[Body, InCharset], redacted: Body) -> Body:
    """The redacted body in the charset its original was in: the original itself when redaction left
    its text as it was."""
    lifted, found = read
    if redacted is lifted or (redacted.kind == lifted.kind == "json" and redacted.value is lifted.value):
        return original
    if redacted.kind == "json":
        text = dump_json(redacted.value).decode("utf-8")
    elif redacted.kind == "text":
        text = str(redacted.value)
    else:  # withheld: nothing is written
        return redacted
    if text == found.text:
        return original
    data = found.encode(text)
    if original.kind == "text":  # kept as the text its bytes are in UTF-8, as the recorder keeps them
        try:
            return Body("text", data.decode("utf-8"), original.decoded_from)
        except UnicodeDecodeError:
            pass
    return Body("base64", base64.b64encode(data).decode("ascii"), original.decoded_from)
