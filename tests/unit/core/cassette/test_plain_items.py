"""Cassette items read without the YAML parser: the same cassette and errors as the whole parse,
whatever the text, and the items the writer makes are read that way."""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

import orjson
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from proxy.core.cassette import plain_items
from proxy.core.cassette import safe_yaml as yaml_loading
from proxy.core.cassette.document import (
    Cassette,
    NotStreamed,
    dump_cassette,
    parse_cassette,
    streamed_exchange,
    streamed_upstream,
)
from proxy.core.cassette.safe_yaml import NotStreamable
from proxy.core.model.exchange import Body, Exchange, Request, Response
from tests.conftest import json_body, make_exchange, make_request

# Many drawn cases over the same code: run, asserted, not traced (scripts/test's coverage
# step); other tests measure these lines.
pytestmark = pytest.mark.no_cover

PARSED: list[str] = []


@pytest.fixture(autouse=True)
def counted(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep each text `plain_items` hands the parser (the keys before the list, items it left)."""
    original = plain_items.load_yaml

    def load_yaml(text: str) -> Any:
        PARSED.append(text)
        return original(text)

    PARSED.clear()
    monkeypatch.setattr(plain_items, "load_yaml", load_yaml)


def exchanges() -> tuple[Exchange, ...]:
    page = {"data": [{"id": "1", "attributes": {"name": "Gold", "n": [1, 2.5, None, True]}}], "é": "£"}
    return (
        Exchange(
            Request(
                "GET",
                "/v2/products",
                "page[limit]=10&page[offset]=0",
                (("Accept", "application/json"), ("Authorization", "Bearer <redacted>")),
            ),
            Response(200, (("Content-Type", "application/json"), ("ETag", 'W/"abc"')), json_body(page)),
            recorded_at="2026-11-22T00:19:20.723373Z",
            duration_ms=0.939,
        ),
        make_exchange(
            make_request("PUT", "/v2/subscriptions/features/1", body=json_body({"data": {"a": None}})),
            body=json_body({"data": {"id": "1", "tags": ["x", "y"], "note": "a: | b"}}),
        ),
        make_exchange(make_request("DELETE", "/v2/products/2"), status=204, headers=()),
        make_exchange(status=404, body=Body("text", "not found\nat all\n"), headers=(("X-No", "yes"),)),
    )


def written() -> str:
    return dump_cassette(Cassette(exchanges(), "http://127.0.0.1:9"))


def plain_read(text: str, chunk: int | None = None) -> Cassette:
    """The cassette in `text` read item by item the plain way, as the cassette reader reads it."""
    data = text.encode()
    stream = io.BytesIO(data)
    if chunk is not None:
        stream = _Trickle(data, chunk)  # type: ignore[assignment]
    items = plain_items.CassetteItems(stream, len(data), "exchanges")  # type: ignore[arg-type]
    read = tuple(streamed_exchange(top, item, index) for index, (top, item) in enumerate(items))
    return Cassette(read, streamed_upstream(items.top))


class _Trickle:
    """A stream that gives at most `most` bytes a read."""

    def __init__(self, data: bytes, most: int) -> None:
        self._stream = io.BytesIO(data)
        self._most = most

    def read(self, size: int = -1) -> bytes:
        return self._stream.read(self._most if size < 0 else min(size, self._most))


def whole(text: str) -> Cassette:
    return parse_cassette(text, "c.yaml")


def outcome(text: str, chunk: int | None = None) -> object:
    """What the cassette reader gives: the plain read, or where it gives up, the whole parse's cassette
    or the kind of its error."""
    try:
        return plain_read(text, chunk)
    except (NotStreamable, NotStreamed, yaml.YAMLError, ValueError):
        return whole_outcome(text)
    except Exception as error:  # any other error is an outcome to compare
        return type(error).__name__


def whole_outcome(text: str) -> object:
    try:
        return whole(text)
    except Exception as error:
        return type(error).__name__


def test_the_items_the_writer_makes_are_read_without_the_parser() -> None:
    text = written()
    assert plain_read(text) == whole(text) == Cassette(exchanges(), "http://127.0.0.1:9")
    assert len(PARSED) == 2  # the keys before the list, and the item with a text block


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda text: "---\n" + text, id="document-marker"),
        pytest.param(
            lambda text: text.replace("exchanges:\n", "exchanges:\n# recorded\n"), id="comment-first"
        ),
    ],
)
def test_a_cassette_not_plainly_the_writers_list_is_read_by_the_parser_item_by_item(change) -> None:  # type: ignore[no-untyped-def]
    """A document marker or a comment before the first item: `plain_items` steps aside, and the parser's
    events give the items one at a time, not the whole document."""
    text = change(written())
    assert plain_read(text) == whole(text) == Cassette(exchanges(), "http://127.0.0.1:9")
    assert PARSED == []


@pytest.mark.parametrize("chunk", [1, 7, 64, 1000])
def test_reads_cut_anywhere_give_the_same_cassette(chunk: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(plain_items, "CHUNK_BYTES", chunk)
    text = written()
    assert plain_read(text, chunk) == whole(text)


EDITS = [
    ("a comment after a value", "    method: GET\n", "    method: GET  # the read\n"),
    ("a comment line", "  response:\n", "  # answered\n  response:\n"),
    ("a comment at column 0", "  response:\n", "# answered\n  response:\n"),
    ("blank lines between items", "\n- recorded_at", "\n\n\n- recorded_at"),
    ("a quoted value", "    method: GET\n", "    method: 'GET'\n"),
    ("a double-quoted value", "    method: GET\n", '    method: "GET"\n'),
    ("an escape", "    method: GET\n", '    method: "G\\x45T"\n'),
    ("a tab", "    method: GET\n", "    method:\tGET\n"),
    ("a carriage return", "    method: GET\n", "    method: GET\r\n"),
    ("a line break in a value", "    method: GET\n", "    method: G\n      ET\n"),
    ("a number as a string", "    method: GET\n", "    method: 12\n"),
    ("a boolean key", "      Accept: application/json\n", "      yes: application/json\n"),
    ("a quoted boolean key", "      Accept: application/json\n", "      'yes': application/json\n"),
    ("a key written twice", "    method: GET\n", "    method: GET\n    method: PUT\n"),
    ("an anchor", "    method: GET\n", "    method: &m GET\n"),
    ("an alias", "    method: DELETE\n", "    method: *m\n"),
    ("a tag", "    status: 200\n", "    status: !!str 200\n"),
    ("a flow mapping", "    headers:\n      X-No: 'yes'\n", "    headers: {X-No: 'yes'}\n"),
    ("an empty value", "    method: GET\n", "    method:\n"),
    ("null", "  duration_ms: 0.939\n", "  duration_ms: ~\n"),
    ("a float", "  duration_ms: 0.939\n", "  duration_ms: .inf\n"),
    ("an integer", "    status: 200\n", "    status: 0x1F\n"),
    ("a merge key", "    status: 200\n", "    status: 200\n    <<: {a: 1}\n"),
    ("deeper indentation", "    method: GET\n", "     method: GET\n"),
    ("a key after the list", "", "extra: 1\n"),
    ("a document end", "", "...\n"),
    ("a second document", "", "---\nexchanges: []\n"),
    ("a document marker mid-list", "\n- request:", "\n---\n- request:"),
    ("a document end mid-list", "\n- request:", "\n...\n- request:"),
    ("a document marker before a dash alone", "\n- request:", "\n---\n-\n  request:"),
    ("a dash alone", "\n- request:", "\n-\n  request:"),
    ("an empty item", "\n- request:", "\n- # nothing\n- request:"),
    ("a list item with more spaces", "\n- request:", "\n-   request:"),
    ("a repeated header", "      X-No: 'yes'\n", "      X-No:\n      - 'yes'\n      - 'no'\n"),
    ("json under headers", '      ETag: W/"abc"\n', "      json: |\n        {\n        }\n"),
    ("a json line indented less", '          "id": "1",\n', '          "id": "1",\n    "b": 2,\n'),
    ("a json block going on", "      }\n  response:", "      }\n      , 1\n  response:"),
    ("a comment in a json block", "      }\n  response:", "      }\n      # more\n  response:"),
    ("a lone carriage return in json", '"tags": [\n', '"tags":\r[\n'),
    ("a blank line in a json block", '          "id": "1",\n', '          "id": "1",\n\n'),
    ("a keep indicator", "    json: |\n", "    json: |+\n"),
    ("an indentation indicator", "    json: |\n", "    json: |2\n"),
    ("a block starting deeper", "    json: |\n      {\n", "    json: |\n        {\n      "),
    ("two json values", "\n      }\n- request:", "\n      }\n      {\n      }\n- request:"),
    ("a one-line json block", "    json: |\n      {\n", "    json: |\n      {}\n      {\n"),
    ("a pipe in json", '"tags": [\n', '"tags|": [\n'),
    ("a non-ASCII value", "    method: GET\n", "    method: GÉT\n"),
    ("a control character", "    method: GET\n", "    method: G\x01T\n"),
    ("a control character in a comment", "  response:\n", "  # \x01\n  response:\n"),
    ("DEL in json", '"x",\n', '"x\x7f",\n'),
    ("a line separator in json", '"x",\n', '"x\u2028",\n'),
    ("a next-line in json", '"x",\n', '"x\x85",\n'),
    ("a byte order mark in json", '"x",\n', '"x\ufeff",\n'),
    ("a non-character in json", '"x",\n', '"x\uffff",\n'),
    ("a tab in json", '"x",\n', '"x\t",\n'),
    ("a colon in a value", "    method: GET\n", "    method: G: T\n"),
    ("a colon at the end", "    method: GET\n", "    method: GET:\n"),
    ("a hash in a value", "    method: GET\n", "    method: G#T\n"),
    ("a space before the colon", "    method: GET\n", "    method : GET\n"),
    ("a bracket first", "    method: GET\n", "    method: [GET]\n"),
    ("a dash first", "    method: GET\n", "    method: -GET\n"),
    ("trailing spaces", "    method: GET\n", "    method: GET  \n"),
    ("no final line break", "", None),
    ("windows line breaks", "", "\r\n"),
]


def ascii_written() -> str:
    """The cassette with ASCII text only (a chunk of it is checked otherwise than one with more)."""
    text = written().replace('"é": "£"', '"e": "L"')
    assert text.isascii()
    return text


@pytest.mark.parametrize("base", [written, ascii_written])
@pytest.mark.parametrize(("old", "new"), [(old, new) for _, old, new in EDITS], ids=[e[0] for e in EDITS])
def test_any_edit_reads_as_the_whole_parse_reads_it(
    base: Callable[[], str], old: str, new: str | None
) -> None:
    text = base()
    if new is None:
        text = text.rstrip("\n")
    elif new == "\r\n":
        text = text.replace("\n", "\r\n")
    elif old:
        assert old in text
        text = text.replace(old, new, 1)
    else:
        text += new
    assert outcome(text) == outcome(text, chunk=5) == whole_outcome(text)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_lines_moved_dropped_or_reindented_read_as_the_whole_parse_reads_them(data: st.DataObject) -> None:
    lines = data.draw(st.sampled_from([written, ascii_written]))().splitlines(keepends=True)
    for _ in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.integers(0, len(lines) - 1))
        change = data.draw(st.sampled_from(["drop", "copy", "indent", "dedent", "insert"]))
        if change == "drop":
            del lines[at]
        elif change == "copy":
            lines.insert(data.draw(st.integers(0, len(lines))), lines[at])
        elif change == "indent":
            lines[at] = " " + lines[at]
        elif change == "dedent":
            lines[at] = lines[at][1:] if lines[at].startswith(" ") else lines[at]
        else:
            lines.insert(at, data.draw(st.sampled_from(INSERTED)))
    text = "".join(lines)
    assert outcome(text) == whole_outcome(text)
    assert outcome(text, chunk=5) == whole_outcome(text)


INSERTED = [
    "\n",
    "  \n",
    "# note\n",
    "      # note\n",
    "- a: 1\n",
    "-\n",
    "  request:\n",
    "    json: |\n",
    "      {\n",
    "      }\n",
    "  x: |\n",
    "    query: a=1\n",
    "...\n",
    "---\n",
    "exchanges:\n",
]

scalars = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cs",)) | st.sampled_from(list(" #:'\"-[]{}|>&*!%@`")),
    max_size=12,
)


@settings(max_examples=200, deadline=None)
@given(method=scalars, path=scalars, query=scalars, header=scalars, value=scalars, reason=scalars)
def test_any_scalars_the_writer_writes_read_back(
    method: str, path: str, query: str, header: str, value: str, reason: str
) -> None:
    exchange = Exchange(
        Request(method, path, query, ((header or "X", value),)),
        Response(200, (("Content-Type", "application/json"),), json_body({"v": value}), reason or None),
    )
    text = dump_cassette(Cassette((exchange,), None))
    assert outcome(text) == whole_outcome(text)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=4), children, max_size=3)
    ),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.dictionaries(st.text(max_size=4), json_values, max_size=3) | st.lists(json_values), max_size=4
    )
)
def test_any_json_bodies_the_writer_writes_read_back(documents: list[object]) -> None:
    cassette = Cassette(tuple(make_exchange(body=json_body(document)) for document in documents), None)
    text = dump_cassette(cassette)
    assert outcome(text) == whole_outcome(text) == cassette


def item_outcome(text: str) -> object:
    """What `plain_item` reads of one item written alone, JSON texts parsed; None when it leaves it."""
    read = plain_items.plain_item(text, 0, plain_items.PlainLines(), True)
    if read is None:
        return None
    item, end = read  # type: ignore[misc]
    assert end == len(text)
    return with_json_parsed(item)


def parsed_item(text: str) -> object:
    """What the parser reads of the same text, JSON texts parsed."""
    try:
        items = yaml_loading.load_yaml(text)
    except yaml.YAMLError:
        return "not YAML"
    return with_json_parsed(items[0]) if isinstance(items, list) and len(items) == 1 else "not one item"


def with_json_parsed(item: object) -> object:
    if not isinstance(item, dict):
        return item
    item = dict(item)
    for side in ("request", "response"):
        message = item.get(side)
        if isinstance(message, dict) and isinstance(message.get("json"), str):
            try:
                item[side] = {**message, "json": orjson.loads(message["json"])}
            except orjson.JSONDecodeError:
                item[side] = {**message, "json": "not JSON"}
    return item


def written_items() -> list[str]:
    text = written()
    start = text.index("\n- ") + 1
    return ["- " + part + "\n" for part in text[start + 2 :].rstrip("\n").split("\n- ")]


@pytest.mark.parametrize(
    "text",
    [
        "- a: 1\n",
        "- a:\n  b: 1\n",  # a null, then a key of the same mapping
        "- # nothing\n",
        "- a: 1\n  # note\n\n  b: 'it''s'\n",
        "- a: yes\n  b: ~\n  c: 0x1F\n  d: .inf\n  e: 1_000\n  f: '1'\n  g: \"x\"\n",
        "- request:\n    json: |\n      {\n      }\n  response:\n    status: 200\n",
        "- request:\n    json: |-\n      [\n        1\n      ]\n\n\n",
        "- a: <<\n",
        "- a: =\n",
        "- <<: 1\n",
        "- a: b: c\n",
        "- request:\n    json: |\n    {\n    }\n",  # the block is empty: `{` is no deeper than its key
        "- request:\n    json: |\n      {\n    }\n",
        "- 'a': 1\n  a: 2\n",
    ],
)
def test_an_item_reads_as_the_parser_reads_it_or_is_left_to_it(text: str) -> None:
    read = item_outcome(text)
    assert read is None or read == parsed_item(text)


def test_the_items_the_writer_makes_read_plainly() -> None:
    for text in written_items():
        assert item_outcome(text) == parsed_item(text) or "text:" in text


@settings(max_examples=400, deadline=None)
@given(st.data())
def test_an_edited_item_reads_as_the_parser_reads_it_or_is_left_to_it(data: st.DataObject) -> None:
    lines = data.draw(st.sampled_from(written_items())).splitlines(keepends=True)
    for _ in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.integers(1, len(lines) - 1)) if len(lines) > 1 else 0
        change = data.draw(st.sampled_from(["drop", "copy", "indent", "dedent", "insert"]))
        if change == "drop" and len(lines) > 1:
            del lines[at]
        elif change == "copy":
            lines.insert(data.draw(st.integers(1, len(lines))), lines[at])
        elif change == "indent":
            lines[at] = " " + lines[at]
        elif change == "dedent" and lines[at].startswith("  "):
            lines[at] = lines[at][1:]
        elif change == "insert":
            lines.insert(max(at, 1), data.draw(st.sampled_from(ITEM_LINES)))
    text = "".join(lines)
    read = item_outcome(text) if "\n-" not in text and "\n." not in text else None
    assert read is None or read == parsed_item(text)


ITEM_LINES = [
    "\n",
    "  \n",
    "  # note\n",
    "      # note\n",
    "  x:\n",
    "    y: 1\n",
    "  x: |\n",
    "    json: |\n",
    "      {\n",
    "      }\n",
    "        1,\n",
    "    status: '200'\n",
    "    status: 200\n",
    "    reason: OK: fine\n",
    "  recorded_at: 2026-01-01\n",
]


def test_reading_many_different_numbers_keeps_no_state_per_value() -> None:
    """Durations differ in every exchange: the loader keeps no value per number, and the remembered
    lines and scalars stay bounded however long the cassette."""
    lines = plain_items.PlainLines()
    for number in range(20_000):
        assert lines.parsed(f"  duration_ms: {number}.5") == (2, "duration_ms", number + 0.5)
    assert not lines._loader.constructed_objects
    assert len(lines._scalars) <= plain_items._LINES_REMEMBERED
    assert len(lines._lines) <= plain_items._LINES_REMEMBERED
