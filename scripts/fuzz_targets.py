"""What `scripts/fuzz --target heads|redaction` feeds atheris's inputs to, beside the cassette loader.

heads: the bytes arrive on a connection of the servers' HTTP parser (`proxy.server.wire`). Nothing may
escape the parser; whatever it answers is one HTTP answer; every request it hands on has a path for a
target, and the exchange made of it is refused by the journal writer (NotRecordable) or read back
from the journal as written.

redaction: the bytes become a request's body and a response's body (each as JSON, a form, text or
none of those, by their first byte), with a generated token in the Authorization header echoed into
the answer. Redacted, the exchange's journal line and cassette text hold the token in no encoding.
"""

from __future__ import annotations

import asyncio
import base64
import json
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus

from proxy.core.cassette.document import Cassette, dump_cassette
from proxy.core.cassette.journal_line import journal_line
from proxy.core.model.bodies import body_from_bytes
from proxy.core.model.exchange import Exchange, Headers, Request, Response
from proxy.core.redaction.redact import RedactionPolicy, redact_exchange
from proxy.errors import NotRecordable
from proxy.server.wire import Incoming, Outgoing, WireServer, _Connection
from proxy.store.journal import JournalWriter, read_journal

HEAD_SEEDS = [
    b"GET /v2/products?page[limit]=2 HTTP/1.1\r\nHost: a\r\n\r\n",
    b"POST /oauth/access_token HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\na=b&c",
    b"PUT /v2/x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
    b"GET http://h/x HTTP/1.1\r\n\r\nOPTIONS * HTTP/1.1\r\n\r\nCONNECT h:443 HTTP/1.1\r\n\r\n",
]
HEAD_TOKENS = [
    "GET ",
    "POST ",
    " HTTP/1.1\r\n",
    "\r\n\r\n",
    "Content-Length: ",
    "Transfer-Encoding: chunked",
    "Expect: 100-continue",
    "Host: ",
    "\r\n",
    ":",
    "%00",
    "?",
    "#",
    "\x00",
    "\n",
]
REDACTION_SEEDS = [
    b'{"access_token": "x", "data": [1, 2]}',
    b"client_secret=x&grant_type=password",
    b'\xef\xbb\xbf{"refresh_token": "x", "n": NaN}',
    b'--b\r\nContent-Disposition: form-data; name="password"\r\n\r\nx\r\n--b--',
]
REDACTION_TOKENS = ['"access_token"', '"password"', "client_secret=", "&", ":", '"', "\\u00", "%2F", "\xe9"]


class _Transport(asyncio.Transport):
    """Collects what the server writes."""

    def __init__(self) -> None:
        super().__init__()
        self.written = bytearray()
        self.closed = False

    def write(self, data: Any) -> None:
        self.written += data

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed

    def abort(self) -> None:
        self.closed = True

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return default


_loop = asyncio.new_event_loop()


def heads_input(data: bytes) -> None:
    handed: list[Incoming] = []

    def handler(incoming: Incoming) -> Outgoing:
        handed.append(incoming)
        return Outgoing(200, (("Content-Type", "text/plain"),), b"ok")

    async def feed() -> bytes:
        connection = _Connection(WireServer(handler, max_body=1 << 16))
        transport = _Transport()
        connection.connection_made(transport)
        for start in range(0, len(data), 7):  # in pieces, as a network delivers them
            connection.data_received(data[start : start + 7])
        connection.connection_lost(None)
        return bytes(transport.written)

    written = _loop.run_until_complete(feed())
    if written and not written.startswith(b"HTTP/1.1 "):
        raise AssertionError(f"not an HTTP answer: {written[:80]!r}")
    for incoming in handed:
        if not incoming.target.startswith("/"):
            raise AssertionError(f"a target that is not a path was handed on: {incoming.target!r}")
        _journal_round_trip(incoming)


def _journal_round_trip(incoming: Incoming) -> None:
    path, _, query = incoming.target.partition("?")
    request = Request(
        incoming.method, path, query, incoming.headers, body_from_bytes(incoming.body, incoming.headers)
    )
    exchange = Exchange(request, Response(200, (), body_from_bytes(b"", ())))
    # A folder per input, gone with it: atheris ends the process without Python's exit handlers, and a
    # module imported by the tests makes nothing at import.
    with tempfile.TemporaryDirectory(prefix="commerce-proxy-fuzz-") as folder:
        journal = Path(folder) / "fuzz.yaml.journal"
        writer = JournalWriter(journal, "replace", None)
        try:
            writer.append(1, exchange)
        except NotRecordable:
            return
        finally:
            writer.close(remove=False)
        if len(read_journal(journal).exchanges) != 1:
            raise AssertionError("the journal did not read back the exchange its writer accepted")


TOKEN = "tok-Fz9q2X7w"
KINDS: dict[int, str | None] = {
    0: "application/json",
    1: "application/x-www-form-urlencoded",
    2: "text/plain",
}


def redaction_input(data: bytes) -> None:
    middle = len(data) // 2
    request_body, response_body = data[:middle], data[middle:]

    def typed(body: bytes) -> Headers:
        kind = KINDS.get(body[0] % 4) if body else None
        return (("Content-Type", kind),) if kind else ()

    echo = response_body + TOKEN.encode() + quote(TOKEN, safe="").encode()
    exchange = Exchange(
        Request(
            "POST",
            "/oauth/access_token",
            "",
            (("Authorization", f"Bearer {TOKEN}"), *typed(request_body)),
            body_from_bytes(request_body, typed(request_body)),
        ),
        Response(
            200,
            (("Location", f"/x?t={quote_plus(TOKEN)}"), *typed(response_body)),
            body_from_bytes(echo, typed(response_body)),
        ),
    )
    redacted = redact_exchange(exchange, RedactionPolicy())
    try:
        stored = journal_line(1, redacted) + dump_cassette(Cassette((redacted,))).encode()
    except NotRecordable:
        return
    for message in (redacted.request, redacted.response):
        if message.body.kind == "base64":
            # Apart from the rest: the end of one body and the start of the next are not one text.
            stored += b"\n\0\n" + base64.b64decode(str(message.body.value))
    for form in {TOKEN, quote(TOKEN, safe=""), quote_plus(TOKEN), json.dumps(TOKEN)[1:-1]}:
        if form.encode() in stored:
            raise AssertionError(f"the token was written as {form!r}")
