"""Bodies in the charset their Content-Type declares (or a byte order mark shows) are redacted as their
text: for every charset x media type x place of the secret x side of the exchange, no encoding of the
secret stays, the body still decodes in its charset, and a body with no secret keeps its bytes."""

from __future__ import annotations

import base64
import codecs
import itertools

import pytest

from proxy.core.model.bodies import body_from_bytes, body_to_bytes
from proxy.core.model.charsets import declared_codec, text_in_charset
from proxy.core.model.exchange import Exchange, Headers, Request, Response
from proxy.core.redaction.echoes import scrub_exchange
from proxy.core.redaction.encodings import contains_secret
from proxy.core.redaction.placeholders import redacted_places
from proxy.core.redaction.redact import PLACEHOLDER, RedactionPolicy, redact_exchange, redact_request
from tests.charsets import CHARSETS, Charset

NAMED = "zz9"  # short: found by its name, never by its value
TOKEN = "tok_Q7wX9rLm2Vb4"  # known from the request's Authorization header, echoed in a body


JSON_MEDIA, FORM_MEDIA, TEXT_MEDIA = "application/json", "application/x-www-form-urlencoded", "text/plain"


def body_text(media: str, word: str, secret: str | None, where: str) -> str:
    """A body of the media type holding `word`, and the secret by name or as an echoed value."""
    if media == JSON_MEDIA:
        member = (
            ""
            if secret is None
            else f', "client_secret": "{secret}"'
            if where == "named"
            else f', "echo": "{secret}"'
        )
        return f'{{"note": "{word}", "count": 1.50{member}}}'
    if media == FORM_MEDIA:
        pair = "" if secret is None else f"&client_secret={secret}" if where == "named" else f"&echo={secret}"
        return f"note={word}{pair}"
    line = (
        "" if secret is None else f"\nclient_secret={secret}" if where == "named" else f"\nyou sent {secret}"
    )
    return f"note: {word}{line}\n"


def exchange_with(side: str, headers: Headers, raw: bytes) -> Exchange:
    body = body_from_bytes(raw, headers)
    sent = (("Authorization", f"Bearer {TOKEN}"),)
    if side == "request":
        return Exchange(Request("POST", "/v2/notes", "", (*sent, *headers), body), Response(204))
    return Exchange(Request("GET", "/v2/notes", "", sent), Response(200, headers, body))


def body_of(exchange: Exchange, side: str) -> tuple[bytes, str]:
    """The body's bytes as replay sends them, and its stored value as the cassette holds it."""
    body = exchange.request.body if side == "request" else exchange.response.body
    return body_to_bytes(body), str(body.value)


ASCII = "plain words"  # UTF-16 or UTF-32 of ASCII without a mark is also UTF-8: kept as text
CASES = list(
    itertools.product(
        CHARSETS, (JSON_MEDIA, FORM_MEDIA, TEXT_MEDIA), ("named", "known"), ("request", "response"), (0, 1)
    )
)


@pytest.mark.parametrize(
    ("charset", "media", "where", "side", "ascii"),
    CASES,
    ids=[f"{c.declared}-{c.codec}-{len(c.bom)}-{m}-{w}-{s}-{a}" for c, m, w, s, a in CASES],
)
def test_a_secret_in_a_body_in_another_charset_is_redacted_in_that_charset(
    charset: Charset, media: str, where: str, side: str, ascii: int
) -> None:
    content_type = media if charset.declared is None else f"{media}; charset={charset.declared}"
    headers = (("Content-Type", content_type),)
    secret = NAMED if where == "named" else TOKEN
    word = ASCII if ascii else charset.word
    raw = charset.encode(body_text(media, word, secret, where))
    redacted = redact_exchange(exchange_with(side, headers, raw), RedactionPolicy())
    data, stored = body_of(redacted, side)
    text = charset.decode(data)  # still a body in its charset
    assert PLACEHOLDER in text and word in text and secret not in text
    for form in (secret.encode(charset.codec), secret.encode("utf-8")):
        assert form not in data and base64.b64encode(form) not in stored.encode()
    assert not contains_secret(stored, frozenset({secret})), "an encoding of the secret is still stored"
    assert not contains_secret(data.decode("latin-1"), frozenset({secret}))


@pytest.mark.parametrize(
    ("charset", "media"),
    list(itertools.product(CHARSETS, (JSON_MEDIA, FORM_MEDIA, TEXT_MEDIA))),
    ids=lambda value: value if isinstance(value, str) else f"{value.declared}-{value.codec}-{len(value.bom)}",
)
def test_a_body_in_another_charset_with_no_secret_keeps_its_bytes(charset: Charset, media: str) -> None:
    content_type = media if charset.declared is None else f"{media}; charset={charset.declared}"
    headers = (("Content-Type", content_type),)
    for word, side in itertools.product((charset.word, ASCII), ("request", "response")):
        raw = charset.encode(body_text(media, word, None, "named"))
        exchange = exchange_with(side, headers, raw)
        recorded = body_of(exchange, side)  # the raw bytes; JSON of ASCII (UTF-8 too) as JSON is sent
        assert recorded[0] == raw or (media == JSON_MEDIA and word == ASCII and not charset.bom)
        assert body_of(redact_exchange(exchange, RedactionPolicy()), side) == recorded
        assert body_of(redact_exchange(exchange, RedactionPolicy(), frozenset({TOKEN})), side) == recorded
        assert body_of(scrub_exchange(exchange, frozenset({TOKEN})), side) == recorded


@pytest.mark.parametrize("charset", CHARSETS, ids=lambda c: f"{c.declared}-{c.codec}-{len(c.bom)}")
def test_replay_redacts_an_arriving_request_in_its_charset_as_it_was_recorded(charset: Charset) -> None:
    """A form in UTF-16 sent at replay is redacted to the very bytes its recording holds, so it matches;
    and the placeholder in it is seen by the check that refuses to resend a redacted request."""
    content_type = FORM_MEDIA if charset.declared is None else f"{FORM_MEDIA}; charset={charset.declared}"
    headers = (("Content-Type", content_type),)
    raw = charset.encode(body_text(FORM_MEDIA, charset.word, NAMED, "named"))
    recorded = redact_exchange(exchange_with("request", headers, raw), RedactionPolicy()).request
    arriving = redact_request(exchange_with("request", headers, raw).request, RedactionPolicy())
    assert arriving.body == recorded.body and PLACEHOLDER in charset.decode(body_to_bytes(arriving.body))
    assert "form field client_secret" in redacted_places(recorded)


@pytest.mark.parametrize(
    "name",
    [
        "rot13",
        "rot_13",
        "zlib",
        "base64",
        "hex",
        "bz2",
        "quopri",
        "uu",
        "idna",
        "punycode",
        "unicode_escape",
        "raw_unicode_escape",
        "utf-7",
        "utf-8-sig",
        "no-such-charset",
        "",
        "../../etc",
    ],
)
def test_a_charset_that_is_not_an_allowed_text_encoding_is_never_used(name: str) -> None:
    content_type = f"text/plain; charset={name}"
    assert declared_codec(content_type) is None
    raw = b"x\x9c\xcbH\xcd\xc9\xc9\x07\x00\x06,\x02\x15"  # zlib("hello"), not UTF-8
    assert text_in_charset(raw, content_type) is None
    redacted = redact_exchange(
        exchange_with("response", (("Content-Type", content_type),), raw), RedactionPolicy()
    )
    assert body_of(redacted, "response")[0] == raw


UNREAD = [
    ("iso-2022-jp", b"\x1b(B" + "日本".encode("iso2022_jp")),  # a needless escape first: not written back so
    ("utf-16le", "日本 café".encode("utf-16-le")[:-1]),  # cut inside a code unit
    ("utf-32", codecs.BOM_UTF32_LE + "日本".encode("utf-32-le") + b"\0\0\x11\0"),  # past U+10FFFF
    ("shift_jis", "日本".encode("shift_jis") + b"\xff"),  # a byte Shift_JIS has not
    ("us-ascii", "café".encode("latin-1")),
    ("cp1252", "café".encode("latin-1") + b"\x81"),  # a byte Windows-1252 leaves undefined
]


@pytest.mark.parametrize(("declared", "raw"), UNREAD, ids=[name for name, _ in UNREAD])
def test_bytes_that_do_not_decode_to_the_same_bytes_are_not_read(declared: str, raw: bytes) -> None:
    assert text_in_charset(raw, f"text/plain; charset={declared}") is None


MARKS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE, codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)
SPURIOUS = list(
    itertools.product(MARKS, range(4), (None, "utf-16", "utf-32", "iso-8859-1"), ("known", "named"))
)


@pytest.mark.parametrize(
    ("mark", "shift", "declared", "where"),
    SPURIOUS,
    ids=[f"{m.hex()}-{s}-{d}-{w}" for m, s, d, w in SPURIOUS],
)
def test_a_mark_before_bytes_that_are_no_such_text_hides_no_secret_they_spell(
    mark: bytes, shift: int, declared: str | None, where: str
) -> None:
    """Bytes that begin with a byte order mark and then spell a secret in ASCII, at any alignment, read
    in the mark's charset as other characters: the secret their bytes spell is still found (found by
    fuzzing: a UTF-16 mark before an echoed token left the token in the cassette)."""
    secret = TOKEN if where == "known" else "zz9-s3cr3t-v4lue"
    spelled = f"you sent {secret}" if where == "known" else f"client_secret={secret}"
    raw = mark + b"\xfb" * shift + b"\n" + spelled.encode() + b"\xbb"[: len(spelled) % 2]
    for media in (TEXT_MEDIA, FORM_MEDIA, None):
        content_type = (
            None if media is None else media if declared is None else f"{media}; charset={declared}"
        )
        headers = () if content_type is None else (("Content-Type", content_type),)
        for side in ("request", "response"):
            data, _ = body_of(redact_exchange(exchange_with(side, headers, raw), RedactionPolicy()), side)
            assert secret.encode() not in data, (media, side)
            assert not contains_secret(data.decode("latin-1"), frozenset({secret})), (media, side)
