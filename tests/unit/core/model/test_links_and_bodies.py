"""Origin rewriting of links, hop-by-hop headers, and body storage."""

from __future__ import annotations

import gzip
import json
import zlib
from dataclasses import replace

import pytest

from proxy.core.model.bodies import JSON_MAX_DEPTH, body_from_bytes, body_to_bytes, parse_json
from proxy.core.model.exchange import Body, JSONFromText, fresh_value, source_text
from proxy.core.model.hop_by_hop import end_to_end
from proxy.core.model.links import OriginRewriter, origin_of

JSON = (("Content-Type", "application/vnd.api+json; charset=utf-8"),)


def test_only_urls_at_the_old_origin_move() -> None:
    """Absolute URLs at the upstream move to the proxy; other hosts and mere mentions stay."""
    rewriter = OriginRewriter("http://127.0.0.1:9000", "http://127.0.0.1:8080")
    document = {
        "links": {
            "next": "http://127.0.0.1:9000/v2/products?page[offset]=5",
            "prev": None,
            "self": "/extensions/wishlists/1",
            "other": "http://127.0.0.1:90001/x",
            "host": "https://127.0.0.1:9000/x",
        },
        "text": "see http://127.0.0.1:9000/v2",
    }
    moved = rewriter.json(document)
    assert moved["links"]["next"] == "http://127.0.0.1:8080/v2/products?page[offset]=5"
    assert moved["links"]["other"] == "http://127.0.0.1:90001/x"
    assert moved["links"]["host"] == "https://127.0.0.1:9000/x"
    assert moved["text"] == document["text"]
    assert list(moved["links"]) == list(document["links"])


def test_default_port_spellings_are_the_same_origin() -> None:
    """http://h and http://h:80 are one origin."""
    assert origin_of("HTTP://Example.COM:80/x") == "http://example.com"
    rewriter = OriginRewriter("http://example.com", "http://127.0.0.1:1")
    assert rewriter.url("http://example.com:80/v2") == "http://127.0.0.1:1/v2"
    assert rewriter.headers((("Location", "http://example.com/v2/x"), ("Link", "http://example.com/"))) == (
        ("Location", "http://127.0.0.1:1/v2/x"),
        ("Link", "http://example.com/"),
    )


def test_a_base_path_of_the_upstream_is_removed_with_its_origin() -> None:
    """Links under https://gateway/commerce become links at the proxy's root; others stay."""
    rewriter = OriginRewriter("https://gateway.example.com/commerce", "http://127.0.0.1:8080")
    assert rewriter.url("https://gateway.example.com/commerce/v2/products?page[offset]=5") == (
        "http://127.0.0.1:8080/v2/products?page[offset]=5"
    )
    assert rewriter.url("https://gateway.example.com:443/commerce/v2") == "http://127.0.0.1:8080/v2"
    assert rewriter.url("https://gateway.example.com/other/v2") == "https://gateway.example.com/other/v2"
    assert (
        rewriter.url("https://gateway.example.com/commerce-old/v2")
        == "https://gateway.example.com/commerce-old/v2"
    )


def test_hop_by_hop_headers_and_those_connection_names_are_dropped() -> None:
    """Connection, Keep-Alive, Transfer-Encoding and anything Connection lists never pass a proxy."""
    headers = (
        ("Connection", "keep-alive, X-Private"),
        ("Keep-Alive", "timeout=5"),
        ("Transfer-Encoding", "chunked"),
        ("X-Private", "1"),
        ("Content-Type", "application/json"),
    )
    assert end_to_end(headers) == (("Content-Type", "application/json"),)


def test_json_text_and_binary_bodies_are_stored_readably_and_faithfully() -> None:
    """JSON becomes a document (key order kept), text stays text, binary becomes base64."""
    json_body = body_from_bytes(b'{"b":1,"a":[true,null]}', JSON)
    assert json_body.kind == "json" and list(json_body.value) == ["b", "a"]  # type: ignore[arg-type]
    text = body_from_bytes(b"plain\r\ntext ", (("Content-Type", "text/plain"),))
    assert (text.kind, body_to_bytes(text)) == ("text", b"plain\r\ntext ")
    binary = body_from_bytes(b"\xff\x00\x01", (("Content-Type", "image/png"),))
    assert (binary.kind, body_to_bytes(binary)) == ("base64", b"\xff\x00\x01")
    broken = body_from_bytes(b'{"a":', JSON)
    assert broken.kind == "text"


def test_a_json_body_read_from_bytes_keeps_its_text_until_it_changes() -> None:
    """Redaction searches the text a body came in; a changed body must not offer the old text."""
    raw = '{"b": 1, "token": "abc"}'
    body = body_from_bytes(raw.encode(), JSON)
    assert (source_text(body), body) == (raw, Body("json", {"b": 1, "token": "abc"}))
    changed = replace(body, value={"b": 2})
    assert source_text(changed) is None and changed == Body("json", {"b": 2})


def test_fresh_value_parses_for_one_use_and_keeps_nothing() -> None:
    """A check reads a lazily parsed body without making it hold its parsed document."""
    lazy = JSONFromText(text='{"a": [1, 2]}')
    first = fresh_value(lazy)
    assert first == {"a": [1, 2]} and fresh_value(lazy) is not first
    kept = lazy.value
    assert fresh_value(lazy) is kept  # once parsed for good, that document is the one given


def test_a_lazily_parsed_body_hashes_as_the_body_it_equals() -> None:
    """A body read from its text is a value like any other: equal bodies hash alike, so a set or a dict
    key holds one of them, and one is exactly as hashable as the other (an object is not)."""
    for text, value in (("1", 1), ('"a"', "a"), ("null", None), ("true", True)):
        lazy, built = JSONFromText(text=text), Body("json", value)
        assert lazy == built and built == lazy and hash(lazy) == hash(built)
        assert len({lazy, built}) == 1 and {built: "kept"}[lazy] == "kept"
    for body in (JSONFromText(text='{"a": 1}'), Body("json", {"a": 1})):
        with pytest.raises(TypeError):
            hash(body)


def test_gzip_and_deflate_are_decoded_and_noted() -> None:
    """Compressed bodies are stored decoded, with the encoding they had."""
    for encoding, data in (("gzip", gzip.compress(b'{"a":1}')), ("deflate", zlib.compress(b'{"a":1}'))):
        body = body_from_bytes(data, (*JSON, ("Content-Encoding", encoding)))
        assert (body.kind, body.value, body.decoded_from) == ("json", {"a": 1}, encoding)


def test_map_strings_changes_values_and_asked_for_keys_and_keeps_untouched_documents() -> None:
    """Every string is mapped (keys only when asked); a document needing no change is returned as is."""
    from proxy.core.model.bodies import map_strings

    document = {"a": ["x", {"x": "yx"}], "n": 1, "none": None}
    assert map_strings(document, lambda text: text.replace("x", "Z")) == {
        "a": ["Z", {"x": "yZ"}],
        "n": 1,
        "none": None,
    }
    assert map_strings(document, lambda text: text.replace("x", "Z"), keys=True) == {
        "a": ["Z", {"Z": "yZ"}],
        "n": 1,
        "none": None,
    }
    assert map_strings(document, lambda text: text.replace("q", "Z")) is document
    assert document == {"a": ["x", {"x": "yx"}], "n": 1, "none": None}


@pytest.mark.parametrize(
    "document",
    [
        {"links": {"self": "http://127.0.0.1:9000/v2/x?page[offset]=10", "first": "http://127.0.0.1:9000"}},
        {"http://127.0.0.1:9000/key": "http://127.0.0.1:9000#frag", "a": ["HTTP://127.0.0.1:9000/Up"]},
        {"text": "see http://127.0.0.1:9000/x here", "other": "http://127.0.0.1:90001/no"},
        {"quoted": 'say \\"http://127.0.0.1:9000/x\\"', "n": [1, None, True, 2.5], "ü": "ÄÖÜ"},
        {"escaped": "http://127.0.0.1:9000\\/x", "deep": [[{"u": "http://127.0.0.1:9000?q=1"}]]},
        {"default": "http://shop.example:80/v2/a", "base": "http://shop.example/v2/b"},
        {"kelvin": "http://127.0.0.1:9000/\u212a", "none": "nothing to move"},
    ],
)
@pytest.mark.parametrize("old", ["http://127.0.0.1:9000", "http://shop.example"])
def test_moving_links_in_json_text_gives_what_walking_the_document_gives(document: object, old: str) -> None:
    """The bytes path either agrees with the walk, value for value, or declines (None)."""
    rewriter = OriginRewriter(old, "http://127.0.0.1:7777")
    for raw in (json.dumps(document).encode(), json.dumps(document, ensure_ascii=False, indent=1).encode()):
        moved = rewriter.json_bytes(raw)
        if moved is not None:
            assert json.loads(moved) == rewriter.json(json.loads(raw))


def test_a_list_page_moves_its_links_in_the_bytes() -> None:
    """The common case takes the bytes path: links at the start of values, none escaped."""
    page = {"data": [], "links": {"self": "http://127.0.0.1:9000/v2/x?page[offset]=0"}, "meta": {}}
    moved = OriginRewriter("http://127.0.0.1:9000", "http://127.0.0.1:7777").json_bytes(
        json.dumps(page).encode()
    )
    assert moved is not None
    assert json.loads(moved)["links"]["self"] == "http://127.0.0.1:7777/v2/x?page[offset]=0"


def test_json_nested_past_the_limit_is_kept_as_text() -> None:
    """A body nested deeper than the recursive walks over bodies can go is recorded as text, not parsed."""
    headers = (("Content-Type", "application/json"),)
    for depth, kind in ((JSON_MAX_DEPTH, "json"), (JSON_MAX_DEPTH + 1, "text"), (100_000, "text")):
        raw = ("[" * depth + "]" * depth).encode()
        assert body_from_bytes(raw, headers).kind == kind, depth
    with pytest.raises(ValueError, match=f"nested more than {JSON_MAX_DEPTH} levels deep"):
        parse_json('{"a": ' + "[" * 2000 + "]" * 2000 + "}")
    assert parse_json("[" + "[]," * 2000 + "1]")[-1] == 1  # many brackets, shallow: parsed
    padded = " " * 2000 + "[" * 300 + "]" * 300  # deeper than orjson writes, shallower than the limit
    assert body_from_bytes(padded.encode(), headers).kind == "json"
    assert (
        body_from_bytes(('["' + "x" * 2000 + '", ' + "[" * 501 + "]" * 501 + "]").encode(), headers).kind
        == "text"
    )
