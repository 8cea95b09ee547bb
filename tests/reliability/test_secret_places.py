"""Secrets in every place and encoding the recorder meets never reach what it writes (the journal line
and the cassette text), and scrubbing their echoes leaves unrelated data alone."""

from __future__ import annotations

import base64
import contextlib
import gzip
import json
import signal
import zlib
from pathlib import Path
from urllib.parse import quote, quote_plus

import aiohttp
import brotlicffi as brotli
import zstandard
from hypothesis import given, settings
from hypothesis import strategies as st

from proxy.core.cassette.document import Cassette, dump_cassette
from proxy.core.cassette.journal_line import journal_line
from proxy.core.model.bodies import body_from_bytes
from proxy.core.model.content_coding import decoded
from proxy.core.model.exchange import Exchange, Headers, Request, Response
from proxy.core.model.withheld import WITHHELD_HEADER
from proxy.core.redaction.redact import PLACEHOLDER, RedactionPolicy, redact_exchange
from proxy.store.cassette_reader.loading import read_cassette_file
from tests.conftest import Serve
from tests.integration.server.upstream import create_upstream_app
from tests.reliability.figures import write_figure
from tests.running import commerce_proxy, stop_with

SEPARATE = b"\n\0\n"
JSON = "application/json"
FORM = "application/x-www-form-urlencoded"


def exchange_of(
    request_body: bytes = b"",
    request_type: str | None = None,
    response_body: bytes = b"",
    response_type: str | None = None,
    request_headers: Headers = (),
    response_headers: Headers = (),
    path: str = "/oauth/access_token",
    query: str = "",
    reason: str | None = None,
) -> Exchange:
    typed_request = request_headers + ((("Content-Type", request_type),) if request_type else ())
    typed_response = response_headers + ((("Content-Type", response_type),) if response_type else ())
    return Exchange(
        Request("POST", path, query, typed_request, body_from_bytes(request_body, typed_request)),
        Response(200, typed_response, body_from_bytes(response_body, typed_response), reason),
    )


def written(exchange: Exchange) -> bytes:
    """Everything the recorder writes of a redacted exchange: its journal line and its cassette text,
    with the bytes of base64 bodies decoded (a secret there is still on disk)."""
    redacted = redact_exchange(exchange, RedactionPolicy())
    stored = journal_line(1, redacted) + dump_cassette(Cassette((redacted,))).encode()
    for message in (redacted.request, redacted.response):
        if message.body.kind == "base64":  # a secret in stored bytes, or in what they decompress to
            raw = base64.b64decode(str(message.body.value))
            # each apart from the rest (SEPARATE): the end of one and the start of the next are not one text
            forms = [raw, decoded(raw, "gzip", 1 << 24), decoded(raw, "br", 1 << 24)]
            forms += [decoded(raw, "zstd", 1 << 24), raw.swapcase()]
            with contextlib.suppress(zlib.error):  # what a truncated gzip gives up to where it stops
                forms.append(zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(raw))
            stored += b"".join(SEPARATE + form for form in forms if form)
    return stored


def encodings(secret: str) -> list[bytes]:
    return [
        form.encode()
        for form in {secret, quote(secret, safe=""), quote_plus(secret), json.dumps(secret)[1:-1]}
    ]


TOKEN = "tok-3f9A1b7C"
SECRET = "sec-77Zq9Lp"
PLACES = {
    "token answer with a BOM": exchange_of(
        response_body=b'\xef\xbb\xbf{"access_token": "tok-3f9A1b7C", "expires": 1}', response_type=JSON
    ),
    "token answer with NaN": exchange_of(
        response_body=b'{"access_token": "tok-3f9A1b7C", "expires_in": NaN}', response_type=JSON
    ),
    "JSON labelled text/plain": exchange_of(
        response_body=b'{"access_token": "tok-3f9A1b7C"}', response_type="text/plain"
    ),
    "JSON labelled text/json": exchange_of(
        response_body=b'{"access_token": "tok-3f9A1b7C"}', response_type="text/json"
    ),
    "JSON with no type": exchange_of(response_body=b'{"access_token":"tok-3f9A1b7C"}'),
    "request JSON with a trailing comma": exchange_of(
        request_body=b'{"client_secret": "sec-77Zq9Lp",}', request_type=JSON
    ),
    "multipart form": exchange_of(
        request_body=b'--xyz\r\nContent-Disposition: form-data; name="client_secret"\r\n\r\nsec-77Zq9Lp\r\n--xyz--\r\n',
        request_type="multipart/form-data; boundary=xyz",
    ),
    "form with no type": exchange_of(request_body=b"grant_type=password&client_secret=sec-77Zq9Lp"),
    "form with a Latin-1 byte": exchange_of(
        request_body=b"client_secret=sec-77Zq9Lp&name=Jos\xe9", request_type=FORM
    ),
    "form-encoded token answer": exchange_of(
        response_body=b"access_token=tok-3f9A1b7C&token_type=bearer", response_type=FORM
    ),
    "br-compressed token answer": exchange_of(
        response_body=brotli.compress(
            b'{"access_token": "tok-3f9A1b7C", "scope": "' + b"read " * 200 + b'"}'
        ),
        response_type=JSON,
        response_headers=(("Content-Encoding", "br"),),
    ),
    "gzip, identity token answer": exchange_of(
        response_body=gzip.compress(b'{"access_token": "tok-3f9A1b7C"}'),
        response_type=JSON,
        response_headers=(("Content-Encoding", "gzip, identity"),),
    ),
    "zstd-compressed form": exchange_of(
        request_body=zstandard.ZstdCompressor().compress(b"client_secret=sec-77Zq9Lp"),
        request_type=FORM,
        request_headers=(("Content-Encoding", "zstd"),),
    ),
    "echo glued to other letters": exchange_of(
        request_headers=(("Authorization", f"Bearer {TOKEN}"),),
        response_body=f"session{TOKEN}{TOKEN}end".encode(),
        response_type="text/plain",
    ),
    "Authorization with no scheme, echoed": exchange_of(
        request_headers=(("Authorization", TOKEN),), response_body=f"you sent {TOKEN}".encode()
    ),
    "echo in the request path": exchange_of(
        request_headers=(("Authorization", f"Bearer {TOKEN}"),), path=f"/v2/tokens/{TOKEN}"
    ),
    "echo in the reason phrase": exchange_of(
        request_headers=(("Authorization", f"Bearer {TOKEN}"),), reason=f"OK {TOKEN}"
    ),
    "percent-encoded echo in Location": exchange_of(
        request_headers=(("Authorization", "Bearer tok/3f9+A1b="),),
        response_headers=(("Location", f"/cb?t={quote('tok/3f9+A1b=', safe='')}"),),
    ),
    "truncated gzip token answer": exchange_of(
        response_body=gzip.compress(b'{"access_token": "tok-3f9A1b7C", "expires": 3600}')[:-12],
        response_type=JSON,
        response_headers=(("Content-Encoding", "gzip"),),
    ),
    "token answer in a coding not known here": exchange_of(
        response_body=zlib.compress(b"access_token=tok-3f9A1b7C", 0),  # stored blocks: plain inside
        response_type=FORM,
        response_headers=(("Content-Encoding", "x-private"),),
    ),
    "form in a coding not known here": exchange_of(
        request_body=b"client_secret=sec-77Zq9Lp".swapcase(),
        request_type=FORM,
        request_headers=(("Content-Encoding", "x-swapcase"),),
    ),
    "echo in a body that is not UTF-8": exchange_of(
        request_headers=(("X-API-Key", TOKEN),), response_body=f"key {TOKEN} \xff".encode("latin-1")
    ),
}


def test_no_secret_is_written_from_any_place() -> None:
    """In each place, the secret is in none of the written bytes, in any of its encodings."""
    for place, exchange in PLACES.items():
        stored = written(exchange)
        secrets = ["tok/3f9+A1b="] if "Location" in place else [TOKEN, SECRET]
        for secret in secrets:
            for form in encodings(secret):
                assert form not in stored, (place, form)
        unread = "truncated" in place or "not known here" in place  # such a body is not stored at all
        assert (WITHHELD_HEADER if unread else PLACEHOLDER).encode() in stored, place
    write_figure("secret_places", len(PLACES), "hand-made places and encodings of a secret, none written")


def test_scrubbing_leaves_ordinary_words_and_keys_alone() -> None:
    """A cookie `pref=default` and a scheme-only `Authorization: Bearer` change nothing elsewhere."""
    body = b'{"default_page_length": 25, "layout": "default english layout", "token_type": "Bearer"}'
    exchange = exchange_of(
        request_headers=(("Cookie", "pref=default; lang=english"), ("Authorization", "Bearer")),
        response_body=body,
        response_type=JSON,
    )
    redacted = redact_exchange(exchange, RedactionPolicy())
    assert redacted.response.body.value == json.loads(body)
    assert dict(redacted.request.headers) == {
        "Cookie": f"pref={PLACEHOLDER}; lang={PLACEHOLDER}",
        "Authorization": PLACEHOLDER,
    }


SECRETS = st.text(alphabet="abcdefghijkmnpqrstuvwxyzABCDEFGH23456789-_.~/+=", min_size=8, max_size=24).filter(
    lambda text: any(c.isalpha() for c in text) and any(c.isdigit() for c in text)
)


def planted(secret: str, place: int, echo: int) -> Exchange:
    """An exchange carrying `secret` in one named place and echoing it in one other place."""
    headers: Headers = ()
    query, request_body, request_type, response_body, response_type = "", b"", None, b"", None
    path, reason = "/oauth/access_token", None
    response_headers: Headers = ()
    encoded = quote_plus(secret)
    if place == 0:
        headers = (("Authorization", f"Bearer {secret}"),)
    elif place == 1:
        headers = (("X-API-Key", secret),)
    elif place == 2:
        query = f"access_token={encoded}&page=1"
    elif place == 3:
        request_body, request_type = f"client_secret={encoded}&grant_type=x".encode(), FORM
    elif place == 4:
        request_body = f"client_secret={encoded}&name=\xe9".encode("latin-1")
    elif place == 5:
        response_body, response_type = json.dumps({"access_token": secret}).encode(), JSON
    elif place == 6:
        response_body, response_type = b"\xef\xbb\xbf" + json.dumps({"access_token": secret}).encode(), JSON
    else:
        response_body, response_type = json.dumps({"refresh_token": secret}).encode(), "text/plain"
    echoed = json.dumps({"seen": secret}).encode()
    if echo == 0:
        response_headers = (("Location", f"/next?t={quote(secret, safe='')}"),)
    elif echo == 1:
        path = f"/v2/echo/{quote(secret, safe='')}"
    elif echo == 2:
        reason = f"Seen {secret}"
    elif echo == 3 and not response_body:
        response_body, response_type = echoed, JSON
    elif echo == 4 and not response_body:
        response_body, response_type = json.dumps({secret: 1}).encode(), JSON
    return exchange_of(
        request_body,
        request_type,
        response_body,
        response_type,
        headers,
        response_headers,
        path,
        query,
        reason,
    )


PLANTED_EXAMPLES = 400
planted_runs: list[int] = []


@settings(max_examples=PLANTED_EXAMPLES, deadline=None, database=None, derandomize=True)
@given(secret=SECRETS, place=st.integers(0, 7), echo=st.integers(0, 4))
def planted_secret_is_written_nowhere(secret: str, place: int, echo: int) -> None:
    stored = written(planted(secret, place, echo))
    for form in encodings(secret):
        assert form not in stored, (place, echo, form)
    planted_runs.append(1)


def test_a_planted_secret_is_written_nowhere() -> None:
    """Whatever the secret, its named place and its echo, no encoding of it is in the written bytes."""
    planted_runs.clear()
    planted_secret_is_written_nowhere()
    write_figure(
        "secret_planted_examples", len(planted_runs), "generated secrets planted and echoed, none written"
    )


async def test_credentials_in_the_upstream_url_are_sent_and_never_written(
    serve: Serve, tmp_path: Path
) -> None:
    """`--upstream http://user:pw@host`: the upstream gets Basic credentials, while the cassette's
    `upstream:`, the log and an answer echoing them hold neither the password nor its encoding."""
    base = await serve(create_upstream_app())
    with_credentials = base.replace("http://", "http://shop:pa55-w0rd@")
    cassette = tmp_path / "c.yaml"
    async with commerce_proxy("record", "--upstream", with_credentials, "--cassette", str(cassette)) as proxy:
        async with aiohttp.ClientSession() as session, session.get(f"{proxy.url}/echo") as answer:
            echoed = await answer.json()
        code, err = await stop_with(proxy, signal.SIGTERM)
    assert code == 0, err
    basic = base64.b64encode(b"shop:pa55-w0rd").decode()
    assert echoed["headers"]["Authorization"] == f"Basic {basic}"  # the credentials went on the wire
    written_text = cassette.read_text()
    assert read_cassette_file(cassette).upstream == base
    for secret in ("pa55-w0rd", basic):
        for form in encodings(secret):
            assert form.decode() not in written_text and form.decode() not in err, form


async def test_record_withholds_a_body_it_cannot_read_says_so_once_and_goes_on(
    serve: Serve, tmp_path: Path
) -> None:
    """Two answers in a coding not known here: the client gets them as sent, the cassette keeps their
    headers and the reason but neither body, the log says it once, and `record` exits 0."""
    from aiohttp import web

    secret_body = zlib.compress(b"access_token=tok-3f9A1b7C", 0)

    async def private(request: web.Request) -> web.Response:
        headers = {"Content-Encoding": "x-private", "Content-Type": FORM}
        return web.Response(body=secret_body, headers=headers)

    app = web.Application()
    app.router.add_get("/{tail:.*}", private)
    base = await serve(app)
    cassette = tmp_path / "c.yaml"
    async with commerce_proxy("record", "--upstream", base, "--cassette", str(cassette)) as proxy:
        async with aiohttp.ClientSession(auto_decompress=False) as session:
            for path in ("/v2/one", "/v2/two"):
                async with session.get(f"{proxy.url}{path}") as answer:
                    assert await answer.read() == secret_body  # relayed as sent
        code, err = await stop_with(proxy, signal.SIGTERM)
    assert code == 0, err
    assert err.count("body not stored") == 1, err
    stored = read_cassette_file(cassette)
    assert len(stored.exchanges) == 2
    for exchange in stored.exchanges:
        assert exchange.response.body.kind == "empty"
        assert "x-private" in dict(exchange.response.headers)[WITHHELD_HEADER]
        assert "Content-Encoding" not in dict(exchange.response.headers)
    assert TOKEN not in cassette.read_text()
