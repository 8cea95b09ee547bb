"""The UI shows a body in the charset its message declares (or its byte order mark shows) as that text,
the charset named, for every charset x media type x side: found by the text filter, and kept so that an
action rebuilds the very bytes recorded."""

from __future__ import annotations

import codecs
import itertools
import json

import pytest

from proxy.app.traffic_rows import detail_document, entry_of
from proxy.app.ui_action_cases import exchange_of
from proxy.core.model.bodies import body_from_bytes, body_to_bytes
from proxy.core.model.exchange import Exchange, Request, Response
from proxy.core.ui.query import Query
from proxy.store.traffic_index import temporary_index
from tests.charsets import CHARSETS, WIDE_WORD, Charset

MEDIA = ("application/json", "application/x-www-form-urlencoded", "text/plain")
ASCII = "plain words"  # UTF-16 or UTF-32 of ASCII without a mark is also UTF-8: kept as text
CASES = [
    (charset, media, word)
    for charset, media in itertools.product(CHARSETS, MEDIA)
    for word in (charset.word, ASCII)
    if charset.codec.startswith("utf-") or word != ASCII  # ASCII in a one-byte charset is UTF-8 itself
]


def text_of(media: str, word: str) -> str:
    if media == "application/json":
        return f'{{"note": "{word}", "count": 1.50}}'
    return f"note={word}&count=1" if "form" in media else f"note: {word}\n"


@pytest.mark.parametrize(
    ("charset", "media", "word"),
    CASES,
    ids=[f"{c.declared}-{c.codec}-{len(c.bom)}-{m}-{w == ASCII}" for c, m, w in CASES],
)
def test_a_body_in_another_charset_is_shown_as_its_text_with_its_charset(
    charset: Charset, media: str, word: str
) -> None:
    content_type = media if charset.declared is None else f"{media}; charset={charset.declared}"
    headers = (("Content-Type", content_type),)
    raw = charset.encode(text_of(media, word))
    body = body_from_bytes(raw, headers)
    exchange = Exchange(
        Request("POST", "/v2/notes", "", headers, body), Response(200, headers, body), "2026-11-22T03:11:09Z"
    )
    index = temporary_index()
    try:
        index.add([entry_of(exchange, [], cassette=None, index=None, endpoint=None)])
        found = index.exchange(1)
        assert found is not None
        detail = detail_document(*found)
        for side in ("request", "response"):
            shown = detail[side]["body"]
            assert codecs.lookup(shown["charset"]) == codecs.lookup(charset.codec), side
            assert shown["size"] == len(raw)
            assert shown["hex"] is None and shown["truncated"] is False
            if media == "application/json":
                assert shown["kind"] == "json" and shown["text"] == (
                    f'{{\n  "note": "{word}",\n  "count": 1.50\n}}'
                )  # pretty-printed from the text: 1.50 stays 1.50
            else:
                assert shown["kind"] == "text" and shown["text"] == text_of(media, word)
        assert index.window(Query(text=word), 0, 10)[0] == 1  # the text filter reads it too
        back = exchange_of(*found)  # what an action (curl, export, resend) rebuilds
        assert body_to_bytes(back.request.body) == body_to_bytes(back.response.body) == raw
    finally:
        index.close()


def test_a_binary_body_that_no_charset_reads_is_still_shown_as_binary() -> None:
    for content_type in ("image/png", "text/plain; charset=zlib", "text/plain; charset=utf-16le"):
        raw = b"\x89PNG\r\n\x1a\n\x00\xff\x00"  # odd length: not UTF-16 either
        headers = (("Content-Type", content_type),)
        exchange = Exchange(
            Request("GET", "/v2/files/1"), Response(200, headers, body_from_bytes(raw, headers))
        )
        index = temporary_index()
        try:
            index.add([entry_of(exchange, [], cassette=None, index=None, endpoint=None)])
            found = index.exchange(1)
            assert found is not None
            shown = detail_document(*found)["response"]["body"]
            assert shown["kind"] == "binary" and shown["hex"] == raw.hex() and "charset" not in shown
        finally:
            index.close()


UTF8 = Charset("utf-8", "utf-8", b"", WIDE_WORD)


def _note(charset: Charset) -> dict[str, str]:
    return {"note": charset.word, "emoji": "smile 😀 ok", "quote": 'say "hi" \\ there'}


def _writes(charset: Charset, escaped: bool) -> bool:
    """Whether the charset can write the document (a one-byte charset writes it only escaped)."""
    try:
        charset.encode(json.dumps(_note(charset), ensure_ascii=escaped))
    except UnicodeEncodeError:
        return False
    return True


WRITTEN = [(c, e) for c in (UTF8, *CHARSETS) for e in (True, False) if _writes(c, e)]


@pytest.mark.parametrize(
    ("charset", "escaped"),
    WRITTEN,
    ids=[f"{c.declared}-{c.codec}-{len(c.bom)}-{'escaped' if e else 'raw'}" for c, e in WRITTEN],
)
def test_the_text_filter_finds_in_json_what_the_page_shows(charset: Charset, escaped: bool) -> None:
    """JSON written with `\\u` escapes (or not), in every charset: the page shows the characters, and
    the text filter finds each word of them as shown (a searched text is the shown one, unescaped)."""
    document = _note(charset)
    raw = charset.encode(json.dumps(document, ensure_ascii=escaped))
    content_type = "application/json" + (f"; charset={charset.declared}" if charset.declared else "")
    headers = (("Content-Type", content_type),)
    exchange = Exchange(
        Request("GET", "/v2/notes"),
        Response(200, headers, body_from_bytes(raw, headers)),
        "2026-11-22T03:11:09Z",
    )
    index = temporary_index()
    try:
        index.add([entry_of(exchange, [], cassette=None, index=None, endpoint=None)])
        found = index.exchange(1)
        assert found is not None
        shown = detail_document(*found)["response"]["body"]["text"]
        for value in document.values():
            written = json.dumps(value, ensure_ascii=False)[1:-1]  # as the page shows it: `\"` stays
            assert written in shown
            for word in written.split():
                if len(word) >= 3:
                    assert index.window(Query(text=word), 0, 10)[0] == 1, (word, shown)
    finally:
        index.close()
