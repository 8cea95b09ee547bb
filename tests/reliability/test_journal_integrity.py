"""One exchange never spoils a journal: what `record` cannot store readably is refused before it is
written (a clear 4xx/5xx, nothing recorded), and whatever the journal writer accepts its reader reads
back as it was (a property test over generated exchanges)."""

from __future__ import annotations

import json
import signal
from http import HTTPStatus
from pathlib import Path

import aiohttp
from hypothesis import example, given, settings
from hypothesis import strategies as st

from proxy.core.model.bodies import body_from_bytes
from proxy.core.model.exchange import Exchange, Headers, Request, Response
from proxy.errors import NotRecordable
from proxy.store.cassette_reader.loading import read_cassette_file
from proxy.store.journal import JournalWriter, journal_path, read_journal
from tests.reliability.faulty_upstream import EXACT_NUMBERS, LONE_SURROGATE, faulty_upstream
from tests.reliability.figures import write_figure
from tests.reliability.test_hostile_requests import answer_to
from tests.running import commerce_proxy, free_port, stop_with

HOST = b"Host: 127.0.0.1\r\n"
# Request heads that are not origin-form: each once made `record` journal a line its reader refused.
NOT_ORIGIN_FORM: dict[bytes, tuple[int, str]] = {
    b"GET http://127.0.0.1/ok/absolute HTTP/1.1\r\n": (400, "not a path"),
    b"OPTIONS * HTTP/1.1\r\n": (501, "server-wide OPTIONS"),
    b"CONNECT 127.0.0.1:443 HTTP/1.1\r\n": (501, "CONNECT"),
}
# Upstream answers no cassette can hold (and no client could read): the client gets a 502 saying why.
UNRELAYABLE: dict[str, str] = {
    "/status-600": "status 600, outside 100-599",
    "/status-099": "status 99, outside 100-599",
    "/endless-head": "status line and headers are over 65536 bytes",
}


async def test_what_a_journal_cannot_hold_is_refused_and_the_rest_is_recorded(tmp_path: Path) -> None:
    """Targets that are not paths get 400/501, unusable upstream answers 502; record exits 0 and writes
    the good exchanges, whose cassette every command can read."""
    port = free_port()
    cassette = tmp_path / "spoilers.yaml"
    arguments = ["record", "--upstream", f"http://127.0.0.1:{port}", "--cassette", str(cassette)]
    async with faulty_upstream(port), commerce_proxy(*arguments) as proxy:
        for head, (status, words) in NOT_ORIGIN_FORM.items():
            got, body = await answer_to(proxy.url, head + HOST + b"Connection: close\r\n\r\n")
            assert (got, words in body.decode()) == (status, True), head
        async with aiohttp.ClientSession() as session:
            for path, words in UNRELAYABLE.items():
                async with session.get(f"{proxy.url}{path}") as answer:
                    assert answer.status == 502, path
                    assert words in (await answer.json())["errors"][0]["detail"], path
            async with session.get(f"{proxy.url}/ok/good") as answer:
                assert answer.status == 200
        journaled = read_journal(journal_path(cassette)).exchanges
        assert [exchange.request.path for exchange in journaled] == ["/ok/good"]
        code, err = await stop_with(proxy, signal.SIGTERM)
    assert code == 0, err
    assert "Traceback" not in err
    assert [exchange.request.path for exchange in read_cassette_file(cassette).exchanges] == ["/ok/good"]
    assert not journal_path(cassette).exists()
    write_figure(
        "journal_spoilers",
        len(NOT_ORIGIN_FORM) + len(UNRELAYABLE),
        "requests and upstream answers a journal cannot hold, refused with nothing written",
    )


async def test_numbers_and_lone_surrogates_replay_as_the_upstream_sent_them(tmp_path: Path) -> None:
    """Integers past 64 bits, floats past a double's range and a lone surrogate escape are recorded and
    replayed byte for byte (once: a float, null and 0.0, and a 500 for the surrogate)."""
    port = free_port()
    cassette = tmp_path / "exact.yaml"
    arguments = ["record", "--upstream", f"http://127.0.0.1:{port}", "--cassette", str(cassette)]
    sent = {"/exact-numbers": EXACT_NUMBERS, "/lone-surrogate": LONE_SURROGATE}
    async with faulty_upstream(port):
        await answers_are(sent, *arguments)
    await answers_are(sent, "replay", "--cassette", str(cassette))


async def answers_are(expected: dict[str, bytes], *command: str) -> None:
    """Start `command`, GET each path, compare the 200 answer's bytes, stop it: it must exit 0."""
    async with commerce_proxy(*command) as running:
        async with aiohttp.ClientSession() as session:
            for path, body in expected.items():
                async with session.get(f"{running.url}{path}") as answer:
                    assert (answer.status, await answer.read()) == (200, body), (command[0], path)
        code, err = await stop_with(running, signal.SIGTERM)
    assert code == 0, err


# Bodies come through the recorder's own path from bytes: JSON texts that parsers are known to change
# (big integers, out-of-range floats, lone surrogates, NaN), any text, any bytes, maybe compressed.
JSON_TEXTS = st.sampled_from(
    [
        EXACT_NUMBERS,
        LONE_SURROGATE,
        b"[NaN]",
        b'{"a": -0.0, "b": 1E-0400, "c": 18446744073709551616}',
        b'{"data": {"id": "\\u00e9\\ud83d\\ude00", "n": 12.5}}',
        b'{"a": 1, "a": 2}',
        b'{"n": 123456789012345678901234567890, "m": [-98765432109876543210]}',
    ]
)
JSON_DOCUMENTS = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=5), children, max_size=3)
    ),
    max_leaves=8,
).map(lambda document: json.dumps(document).encode())  # infinities come out as `Infinity`: not JSON
BODY_BYTES = st.one_of(
    JSON_DOCUMENTS, JSON_TEXTS, st.binary(max_size=40), st.text(max_size=40).map(str.encode)
)
CONTENT_TYPES = st.sampled_from([None, "application/json", "text/plain", "application/vnd.api+json"])
TOKENS = st.sampled_from(["GET", "PUT", "get", "G@T", "", "M E", "X-Token", "Set-Cookie", "a b", "é"])
TEXTS = st.one_of(
    st.text(max_size=12),
    st.sampled_from(["/v2/products", "*", "http://h/x", "h:443", "/a b", "/a\r\nb", "a=1&b=2", "x\x00y"]),
)
# Each head part is as often one the reader takes as one it may refuse, so that both are well tried.
METHODS = st.one_of(st.sampled_from(["GET", "PUT", "POST", "DELETE"]), TOKENS)
PATHS = st.one_of(st.sampled_from(["/v2/products", "/v2/extensions/w/1", "/"]), TEXTS)
QUERIES = st.one_of(st.sampled_from(["", "page[limit]=2", "filter=eq(name,a b)"]), TEXTS)
HEADERS = st.lists(
    st.one_of(
        st.tuples(
            st.sampled_from(["Accept", "X-Request-Id", "Content-Language"]), st.sampled_from(["a", "é ü"])
        ),
        st.tuples(TOKENS, TEXTS),
    ),
    max_size=3,
)
STATUSES = st.one_of(st.sampled_from([200, 201, 404, 503]), st.integers(min_value=-5, max_value=1000))


@st.composite
def exchanges(draw: st.DrawFn) -> Exchange:
    headers: Headers = tuple(draw(HEADERS))
    content_type = draw(CONTENT_TYPES)
    typed: Headers = headers + ((("Content-Type", content_type),) if content_type else ())
    request = Request(
        draw(METHODS), draw(PATHS), draw(QUERIES), headers, body_from_bytes(draw(BODY_BYTES), typed)
    )
    reason = draw(st.one_of(st.none(), TEXTS))
    response = Response(draw(STATUSES), typed, body_from_bytes(draw(BODY_BYTES), typed), reason)
    return Exchange(request, response, draw(st.one_of(st.none(), st.just("2026-11-24T01:00:00Z"))), 1.5)


def grouped(headers: Headers) -> Headers:
    """Headers with each name's values together: how a stored head keeps them (one key a name)."""
    first = {name: position for position, (name, _) in reversed(list(enumerate(headers)))}
    return tuple(sorted(headers, key=lambda pair: first[pair[0]]))


def as_stored(exchange: Exchange) -> Exchange:
    """The exchange as the format keeps it: headers grouped by name, and a reason phrase only when it
    is not empty and not the status's standard one (replay sends that one)."""
    request, response = exchange.request, exchange.response
    standard = (
        HTTPStatus(response.status).phrase if response.status in HTTPStatus._value2member_map_ else None
    )
    reason = response.reason if response.reason and response.reason != standard else None
    return Exchange(
        Request(request.method, request.path, request.query, grouped(request.headers), request.body),
        Response(response.status, grouped(response.headers), response.body, reason),
        exchange.recorded_at,
        exchange.duration_ms,
    )


accepted_kinds: list[str] = []


JSON_TYPED: Headers = (("Content-Type", "application/json"),)
BIG_NUMBERS = Exchange(
    Request(
        "PUT",
        "/v2/products",
        "",
        JSON_TYPED,
        body_from_bytes(b'{"n": 123456789012345678901234567890}', JSON_TYPED),
    ),
    Response(200, JSON_TYPED, body_from_bytes(b'{"m": [-98765432109876543210, 1.5]}', JSON_TYPED)),
)


@settings(max_examples=300, deadline=None, database=None, derandomize=True)
@given(batch=st.lists(exchanges(), min_size=1, max_size=6))
@example(batch=[BIG_NUMBERS])  # integers past 64 bits: a journal read with orjson alone made floats of them
def journal_reads_back_what_its_writer_accepts(folder: Path, batch: list[Exchange]) -> None:
    path = folder / "property.yaml.journal"
    writer = JournalWriter(path, "replace", "http://127.0.0.1:9")
    accepted = []
    try:
        for sequence, exchange in enumerate(batch):
            size = path.stat().st_size
            try:
                writer.append(sequence, exchange)
            except NotRecordable:
                assert path.stat().st_size == size  # nothing of it was written
            else:
                accepted.append(as_stored(exchange))
                accepted_kinds.append(exchange.response.body.kind)
    finally:
        writer.close(remove=False)
    assert list(read_journal(path).exchanges) == accepted
    path.unlink()


def test_the_journal_reads_back_whatever_its_writer_accepts(tmp_path: Path) -> None:
    """Each generated exchange is refused (NotRecordable, nothing written) or read back as written; both
    happen often, JSON bodies among those accepted."""
    accepted_kinds.clear()
    journal_reads_back_what_its_writer_accepts(tmp_path)
    print(f"journal property test: {len(accepted_kinds)} exchanges read back")
    assert len(accepted_kinds) >= 20 and "json" in accepted_kinds, len(accepted_kinds)


def test_a_recorded_body_keeps_its_numbers_and_surrogates_as_text() -> None:
    """Bodies a JSON parser would change are stored as their text; faithful ones stay parsed JSON."""
    typed: Headers = (("Content-Type", "application/json"),)
    for raw in (EXACT_NUMBERS, LONE_SURROGATE, b"[1E-0400]"):
        body = body_from_bytes(raw, typed)
        assert (body.kind, body.value) == ("text", raw.decode()), raw
    exact = body_from_bytes(b'{"n": 123456789012345678901234567890, "m": 1e-99}', typed)
    assert exact.kind == "json"
    assert exact.value == {"n": 123456789012345678901234567890, "m": 1e-99}
