"""The ten ways an outside attacker got a secret past the scrub (issue 34), each run through the real
redaction path and a few end to end through a `record` process with a hostile upstream on 127.0.0.1:
the cassette is searched with the family test's own decoding oracle."""

from __future__ import annotations

import base64
import gzip
import json
import signal
from pathlib import Path

import aiohttp
import pytest

from proxy.core.cassette.document import Cassette, dump_cassette
from proxy.core.cassette.journal_line import journal_line
from proxy.core.model.bodies import body_from_bytes
from proxy.core.model.exchange import Exchange, Headers, Request, Response
from proxy.core.redaction.book import KNOWN
from proxy.core.redaction.redact import RedactionPolicy, redact_exchange
from tests.reliability.faulty_upstream import ADDED_ANSWERS, faulty_upstream
from tests.reliability.test_secret_family import leaked
from tests.running import commerce_proxy, stop_with

BT = "Tk4eC39+HqLy/jWDa7rjtT1zdp7dc"  # the bearer token the client sends
BEARER = (("Authorization", f"Bearer {BT}"),)


def _mime(data: bytes, newline: str) -> str:
    encoded = base64.b64encode(data).decode()
    return newline.join(encoded[i : i + 76] for i in range(0, len(encoded), 76))


def _answer(body: bytes | str, content_type: str = "application/json", extra: Headers = ()) -> bytes:
    raw = body.encode("latin-1") if isinstance(body, str) else body
    head = [f"HTTP/1.1 200 OK\r\nContent-Type: {content_type}", *(f"{k}: {v}" for k, v in extra)]
    return ("\r\n".join(head) + f"\r\nContent-Length: {len(raw)}\r\n\r\n").encode("latin-1") + raw


def _chunked_gzip(document: dict[str, str]) -> bytes:
    packed = gzip.compress(json.dumps(document).encode())
    head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"
    return head + b"%x\r\n" % len(packed) + packed + b"\r\n0\r\n\r\n"


MULTIPART = (
    "--XyZ\r\nContent-Disposition: form-data; name*=UTF-8''client_secret\r\n\r\nMpSecret_star_12345\r\n"
    '--XyZ\r\nContent-Disposition: form-data; name="client\\_secret"\r\n\r\nMpSecret_qp_67890\r\n'
    '--XyZ\r\nContent-Disposition: form-data; name = "client_secret"\r\n\r\nMpSecret_sp_13579\r\n--XyZ--\r\n'
)
JSON5 = "{client_secret: 'Json5CS_5566778899', 'password': 'Json5PW_1122334455'}"

# (name, secrets, request headers, request body, raw answer): the secrets are learned from the request
# or the answer's named places and echoed by the answer in the way the name says.
CASES: list[tuple[str, tuple[str, ...], Headers, str, bytes]] = [
    (
        "1 percent mixed case",
        (BT,),
        BEARER,
        "",
        _answer(
            "".join(("%%%02X" if i % 2 else "%%%02x") % c for i, c in enumerate(BT.encode())), "text/plain"
        ),
    ),
    ("1 percent partly", (BT,), BEARER, "", _answer("q=%54" + BT[1:], "text/plain")),
    (
        "2 entities partly",
        (BT,),
        BEARER,
        "",
        _answer("<p>&#84;" + BT[1:].replace("+", "&#43;").replace("/", "&#x2F;") + "</p>", "text/html"),
    ),
    ("2 entities padded", (BT,), BEARER, "", _answer("".join(f"&#{ord(c):05d};" for c in BT), "text/html")),
    (
        "2 entities named",
        (BT,),
        BEARER,
        "",
        _answer(BT.replace("+", "&plus;").replace("/", "&sol;"), "text/html"),
    ),
    ("3 \\u partly, NaN", (BT,), BEARER, "", _answer('{"n": NaN, "echo": "\\u0054' + BT[1:] + '"}')),
    ("3 \\u partly, text", (BT,), BEARER, "", _answer('{"echo": "\\u0054' + BT[1:] + '"}', "text/plain")),
    (
        "4 base64 MIME lines",
        (BT,),
        BEARER,
        "",
        _answer(_mime(("A" * 50 + BT).encode(), "\r\n"), "text/plain"),
    ),
    (
        "4 base64 \\n in JSON",
        (BT,),
        BEARER,
        "",
        _answer(json.dumps({"blob": _mime(("B" * 51 + BT).encode(), "\n")})),
    ),
    (
        "5 quoted Set-Cookie",
        ("QtdCookie9f8e7d6c5b4a",),
        (),
        "",
        _answer(
            json.dumps({"echo": "QtdCookie9f8e7d6c5b4a"}),
            extra=(("Set-Cookie", 'sid="QtdCookie9f8e7d6c5b4a"'),),
        ),
    ),
    (
        "6 list, object, number",
        ("ListTok_abc123def456", "ObjRef_zz11yy22xx33", "98765432109876543210"),
        (),
        "",
        _answer(
            '{"access_token": ["ListTok_abc123def456"], "echo": "ListTok_abc123def456", '
            '"refresh_token": {"v": "ObjRef_zz11yy22xx33"}, "e2": "ObjRef_zz11yy22xx33", '
            '"password": 98765432109876543210, "e3": "98765432109876543210"}'
        ),
    ),
    (
        "7 percent-encoded names in URLs",
        ("LocTok_9z8y7x6w5v4u", "LocKey_1q2w3e4r5t6y"),
        (),
        "",
        _answer(
            json.dumps({"next": "http://127.0.0.1/x?access%5Ftoken=LocTok_9z8y7x6w5v4u"}),
            extra=(("Location", "/v2/x?api%5Fkey=LocKey_1q2w3e4r5t6y"),),
        ),
    ),
    (
        "8 multipart names",
        ("MpSecret_star_12345", "MpSecret_qp_67890", "MpSecret_sp_13579"),
        (("Content-Type", "multipart/form-data; boundary=XyZ"),),
        MULTIPART,
        _answer(json.dumps({"echo": MULTIPART})),
    ),
    (
        "9 JSON5 as application/json",
        ("Json5CS_5566778899", "Json5PW_1122334455"),
        (("Content-Type", "application/json"),),
        JSON5,
        _answer(json.dumps({"echo": JSON5})),
    ),
    (
        "untyped form, %5F",
        ("Untyped_pct_cs_4455",),
        (),
        "grant_type=client_credentials&client%5Fsecret=Untyped_pct_cs_4455",
        _answer(json.dumps({"echo": "Untyped_pct_cs_4455"})),
    ),
    ("10 Transfer-Encoding: gzip, chunked", (BT,), BEARER, "", _chunked_gzip({"echo": BT})),
    ("hex", (BT,), BEARER, "", _answer(json.dumps({"hex": BT.encode().hex()}))),
    (
        "a gzip file as content",
        (BT,),
        BEARER,
        "",
        _answer(gzip.compress(json.dumps({"echo": BT}).encode()), "application/gzip"),
    ),
    (
        "three deep",
        (BT,),
        BEARER,
        "",
        _answer(base64.b64encode(base64.b64encode(base64.b64encode(BT.encode()))).decode(), "text/plain"),
    ),
]


def _parsed(raw: bytes) -> tuple[int, Headers, bytes]:
    """A raw answer as the HTTP parser hands it on: status, headers, the body with chunks undone."""
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = tuple((name, value.strip()) for name, _, value in (line.partition(":") for line in lines[1:]))
    if any(name.lower() == "transfer-encoding" for name, _ in headers):
        size, _, rest = body.partition(b"\r\n")
        body = rest[: int(size, 16)]
    return int(lines[0].split()[1]), headers, body


def written(exchange: Exchange) -> str:
    """What a recording writes of the exchange: cassette and journal, base64 bodies decoded (and
    inflated, when they are gzip)."""
    redacted = redact_exchange(exchange, RedactionPolicy())
    text = dump_cassette(Cassette((redacted,))) + journal_line(1, redacted).decode("utf-8")
    for message in (redacted.request, redacted.response):
        if message.body.kind == "base64":
            raw = base64.b64decode(str(message.body.value))
            text += "\n" + raw.decode("latin-1")
            if raw.startswith(b"\x1f\x8b"):
                text += "\n" + gzip.decompress(raw).decode("latin-1")
    return text


@pytest.mark.parametrize(
    ("name", "secrets", "headers", "body", "answer"), CASES, ids=[case[0] for case in CASES]
)
def test_each_way_past_the_old_scrub_is_closed(
    name: str, secrets: tuple[str, ...], headers: Headers, body: str, answer: bytes
) -> None:
    KNOWN.forget()
    status, response_headers, response_body = _parsed(answer)
    request = Request("POST", "/v2/echo", "", headers, body_from_bytes(body.encode(), headers))
    response = Response(status, response_headers, body_from_bytes(response_body, response_headers))
    text = written(Exchange(request, response))
    assert not [secret for secret in secrets if leaked(secret, text)], (name, text[:2000])


END_TO_END = [
    "1 percent mixed case",
    "2 entities named",
    "4 base64 MIME lines",
    "10 Transfer-Encoding: gzip, chunked",
]


async def test_a_record_process_writes_none_of_them(tmp_path: Path) -> None:
    """The same answers from a hostile upstream on 127.0.0.1, recorded by a `record` process: the
    cassette holds no secret in any form the oracle can undo, and the gzip body is stored decoded."""
    chosen = {name: answer for name, _, _, _, answer in CASES if name in END_TO_END}
    for position, answer in enumerate(chosen.values()):
        ADDED_ANSWERS[f"/hostile/{position}"] = answer
    cassette = tmp_path / "c.yaml"
    try:
        async with (
            faulty_upstream() as base,
            commerce_proxy("record", "--upstream", base, "--cassette", str(cassette)) as proxy,
        ):
            async with aiohttp.ClientSession(auto_decompress=False) as session:
                for position in range(len(chosen)):
                    url = f"{proxy.url}/hostile/{position}"
                    async with session.get(url, headers=dict(BEARER)) as got:
                        await got.read()
            code, err = await stop_with(proxy, signal.SIGTERM)
    finally:
        for position in range(len(chosen)):
            ADDED_ANSWERS.pop(f"/hostile/{position}", None)
    assert code == 0, err
    text = cassette.read_text()
    assert text.count("/hostile/") == len(chosen), text
    assert not leaked(BT, text + err), text
    assert "H4sI" not in text  # no gzip stored (its base64 starts so)
