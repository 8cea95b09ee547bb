"""JSON bodies lifted out of the YAML before it is parsed: the same exchanges and errors as the whole
parse, whatever the text around them, and the blocks the writer makes are lifted."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from proxy.core.cassette import json_blocks
from proxy.core.cassette import safe_yaml as yaml_loading
from proxy.core.cassette.document import (
    Cassette,
    NotStreamed,
    dump_cassette,
    parse_cassette,
    streamed_exchange,
)
from proxy.core.cassette.safe_yaml import NotStreamable, stream_yaml
from proxy.core.model.exchange import Exchange
from tests.conftest import json_body, make_exchange, make_request

LIFTS: list[json_blocks.JSONBlocks] = []


@pytest.fixture(autouse=True)
def counted(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep each `JSONBlocks` made, to count what it lifted."""

    class Counted(json_blocks.JSONBlocks):
        def __init__(self, stream: json_blocks.Readable) -> None:
            super().__init__(stream)
            LIFTS.append(self)

    LIFTS.clear()
    monkeypatch.setattr(yaml_loading, "JSONBlocks", Counted)


def exchanges() -> tuple[Exchange, ...]:
    return (
        make_exchange(body=json_body({"data": [{"id": "1", "n": [1, 2.5, None, True]}], "é": "£"})),
        make_exchange(
            make_request("POST", body=json_body([{"nested": {"deeper": [[]]}}, "x"])),
            body=json_body({}),  # written on one line: left to the parser
        ),
        make_exchange(body=json_body({"last": "at the end of the file"})),
    )


def written() -> str:
    return dump_cassette(Cassette(exchanges(), "http://127.0.0.1:9"))


def lifted_read(text: str) -> tuple[Exchange, ...]:
    """The exchanges of `text` read item by item with lifting, as the cassette reader reads them."""
    data = text.encode()
    items = stream_yaml(io.BytesIO(data), len(data), "exchanges", lift_json=True)
    return tuple(streamed_exchange(top, item, index) for index, (top, item) in enumerate(items))


def whole(text: str) -> tuple[Exchange, ...]:
    return parse_cassette(text, "c.yaml").exchanges


def outcome(read: Callable[[str], tuple[Exchange, ...]], text: str) -> object:
    """What a read gives, the exchanges or the kind of error; where the lifted read gives up, the cassette
    reader reads the file whole, and so does this."""
    try:
        return read(text)
    except (NotStreamable, NotStreamed, yaml.YAMLError, ValueError):
        return outcome(whole, text)  # what the reader does then
    except Exception as error:  # any error at all is an outcome to compare
        return type(error).__name__


def test_the_pretty_json_blocks_a_cassette_is_written_with_are_lifted() -> None:
    text = written()
    assert lifted_read(text) == whole(text) == exchanges()
    assert [(lift.lifted, lift.restored) for lift in LIFTS] == [(3, 3)]  # not the one-line {}


@pytest.mark.parametrize("chunk", [1, 7, 64])
def test_blocks_cut_across_reads_of_any_size_are_lifted_the_same(
    monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    monkeypatch.setattr(json_blocks, "CHUNK_BYTES", chunk)
    text = written().replace("json: |", "json: |-", 1)
    assert lifted_read(text) == whole(text) == exchanges()
    assert LIFTS[0].lifted == 3


TEXT_WITH_A_HEADER = """    text: |
      json: |
        {
        }
      not a body
"""


def test_a_placeholder_read_inside_another_value_reads_the_file_whole() -> None:
    """A text body holding a `json: |` line and a block the lifter takes: its placeholder is then read
    inside the text, and the file is read the ordinary way, with the same result."""
    text = written().replace(
        '    json: |\n      {\n        "last"', TEXT_WITH_A_HEADER + '    x: |\n      {\n        "last"'
    )
    with pytest.raises(NotStreamable):
        lifted_read(text)
    assert LIFTS[0].lifted >= 2
    assert outcome(lifted_read, text) == outcome(whole, text)
    assert whole(text)[2].response.body.value == "json: |\n  {\n  }\nnot a body\n"


FIRST = '"id": "1"'


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda t: t.replace(FIRST, '"id": "1\x7f"'), id="delete-character"),
        pytest.param(lambda t: t.replace(FIRST, '"id": "1\x85"'), id="next-line"),
        pytest.param(lambda t: t.replace(FIRST, '"id": "1\u2028"'), id="line-separator"),
        pytest.param(lambda t: t.replace(FIRST, '"id": "1\ufeff"'), id="byte-order-mark"),
        pytest.param(lambda t: t.replace(FIRST, '"id": "1\x01"'), id="control-character"),
        pytest.param(lambda t: t.replace(FIRST, '"id": "1\t"'), id="tab-in-a-string"),
        pytest.param(lambda t: t.replace(FIRST, '"id":\t"1"'), id="tab-between"),
        pytest.param(lambda t: t.replace(FIRST, '"id": "| json: | x |"'), id="key-inside-a-string"),
        pytest.param(lambda t: t.replace("\n", "\r\n"), id="crlf"),
        pytest.param(
            lambda t: t.replace('      {\n        "data"', '      {\n\n        "data"'), id="blank-line"
        ),
        pytest.param(
            lambda t: t.replace('      {\n        "data"', '      {\n   \n        "data"'), id="space-line"
        ),
        pytest.param(lambda t: t.replace('            "id"', '     "id"'), id="less-indented"),
        pytest.param(lambda t: t.replace('            "id"', '\t"id"'), id="tab-indented"),
        pytest.param(lambda t: t.replace("      }\n- request", "      }\n\n- request", 1), id="blank-after"),
        pytest.param(
            lambda t: t.replace("      }\n- request", "      }\n  \n- request", 1), id="spaces-after"
        ),
        pytest.param(
            lambda t: t.replace("      }\n- request", "      }\n      x\n- request", 1), id="more-after"
        ),
        pytest.param(
            lambda t: t.replace("      }\n- request", "      }\n        x\n- request", 1), id="deeper-after"
        ),
        pytest.param(lambda t: t.rstrip("\n"), id="no-final-newline"),
        pytest.param(lambda t: t + "\n\n", id="blank-lines-at-end"),
        pytest.param(lambda t: t + "  ", id="spaces-at-end"),
        pytest.param(lambda t: t.replace("json: |", "json: |2", 1), id="indentation-indicator"),
        pytest.param(lambda t: t.replace("json: |", "json: |+", 1), id="keep"),
        pytest.param(lambda t: t.replace("json: |", "json: | # a comment", 1), id="comment-after"),
        pytest.param(lambda t: t.replace("json: |", "json: &body |", 1), id="anchor"),
        pytest.param(lambda t: t.replace("json: |", "json: !!str |", 1), id="tag"),
        pytest.param(lambda t: t.replace("    json: |", "    - json: |", 1), id="in-a-list"),
        pytest.param(lambda t: t.replace("    json: |", "    jsonx: |", 1), id="other-key"),
        pytest.param(
            lambda t: t.replace("    json: |", "    json: |\n    # a comment", 1), id="comment-first"
        ),
        pytest.param(
            lambda t: t.replace('      {\n        "data"', '      {\n      }\n      {\n        "data"', 1),
            id="closer-early",
        ),
        pytest.param(
            lambda t: t.replace(
                "    path: /v2/products\n",
                '    path: "/v2/products\n    json: |\n      {\n      }\n    x"\n',
                1,
            ),
            id="header-inside-quotes",
        ),
        pytest.param(
            lambda t: t.replace(
                "  response:\n", "  old: {\n    json: |\n      {\n      }\n    }\n  response:\n", 1
            ),
            id="header-inside-flow",
        ),
        pytest.param(
            lambda t: t.replace(
                "  response:\n", "  old:\n    # json: |\n    #   {\n    #   }\n  response:\n", 1
            ),
            id="header-in-comments",
        ),
        pytest.param(
            lambda t: t.replace("    json: |\n      {", "    json: |\n     {", 1), id="opener-at-key-depth"
        ),
        pytest.param(lambda t: t.replace("json: |\n      [", "json: |\n      [ ", 1), id="opener-with-space"),
    ],
)
def test_text_the_lift_must_not_read_otherwise_gives_what_the_whole_parse_gives(change) -> None:  # type: ignore[no-untyped-def]
    text = change(written())
    assert text != written()
    assert outcome(lifted_read, text) == outcome(whole, text)


def test_a_block_longer_than_is_held_is_left_to_the_parser(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(json_blocks, "CHUNK_BYTES", 16)
    monkeypatch.setattr(json_blocks, "MOST_HELD", 32)
    text = written()
    assert lifted_read(text) == whole(text)
    assert LIFTS[0].lifted == 0


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
def test_any_json_bodies_read_the_same_lifted(documents: list[object]) -> None:
    cassette = Cassette(tuple(make_exchange(body=json_body(document)) for document in documents), None)
    text = dump_cassette(cassette)
    assert outcome(lifted_read, text) == outcome(whole, text) == cassette.exchanges


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda text: "---\n" + text, id="document-marker"),
        pytest.param(
            lambda text: text.replace("exchanges:\n", "exchanges:\n# recorded\n"), id="comment-first"
        ),
    ],
)
def test_the_cassette_reader_lifts_where_it_does_not_read_items_plainly(tmp_path: Path, change) -> None:  # type: ignore[no-untyped-def]
    """A cassette that is no plain list to `plain_items` (a document marker, a comment before the first
    item) is read by the parser item by item, with its blocks lifted, not whole."""
    from proxy.store.cassette_reader.loading import read_cassette_file

    path = tmp_path / "c.yaml"
    path.write_text(change(written()))
    assert read_cassette_file(path).exchanges == exchanges()
    assert [lift.lifted for lift in LIFTS] == [3]


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda t: t.replace("    json: |", "    - json: |", 1), id="in-a-list"),
        pytest.param(lambda t: t.replace("    json: |", "    xjson: |", 1), id="other-key"),
        pytest.param(
            lambda t: t.replace("    json: |", '    "json": "json: |"\n    text: |', 1), id="in-quotes"
        ),
        pytest.param(lambda t: t.replace("    json: |", "    ? json: |", 1), id="complex-key"),
    ],
)
def test_a_placeholder_is_taken_only_as_the_block_value_of_a_json_key(
    monkeypatch: pytest.MonkeyPatch,
    change,  # type: ignore[no-untyped-def]
) -> None:
    """Were a block lifted wherever the key's text is, the parser's reading of its placeholder still
    gives what the whole parse gives."""
    monkeypatch.setattr(json_blocks.JSONBlocks, "_starts_header", lambda self, line, found: True)
    text = change(written())
    assert text != written()
    assert outcome(lifted_read, text) == outcome(whole, text)
    assert LIFTS[0].lifted >= 1  # the changed block, the first
