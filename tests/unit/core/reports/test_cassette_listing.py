"""`cassette list`, `grep` and `show` documents, rendered by core/reports alone: JSON through the one
JSON escaping (`json_text`), the table through `visible`, whatever the traffic held."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from proxy.core.cassette.document import Cassette
from proxy.core.reports.cassette_listing import exchange_json, exchange_text, listing_document
from proxy.core.reports.escaping import json_text
from proxy.core.rules.findings import Finding
from tests.conftest import make_exchange, make_request

HOSTILE_PATH = "/v2/<script>é\u2028\x1b[31m\x00日"
HOSTILE_QUERY = "q=</x>&n=\u202e\u0085ü"


@dataclass(frozen=True)
class Listed:
    path: Path
    cassette: Cassette
    found: dict[int, list[Finding]] = field(default_factory=dict)
    picked: tuple[int, ...] = (0,)


def _listed() -> Listed:
    request = make_request(method="GET", path=HOSTILE_PATH, query=HOSTILE_QUERY)
    return Listed(Path("tapes/one\u2028.yaml"), Cassette((make_exchange(request),)))


def test_list_json_is_json_text_and_reads_back_as_the_traffic() -> None:
    text = listing_document([_listed()], "json", dated=False)
    [row] = json.loads(text)["exchanges"]
    assert (row["path"], row["query"], row["cassette"]) == (
        HOSTILE_PATH,
        HOSTILE_QUERY,
        "tapes/one\u2028.yaml",
    )
    assert text == json_text({"exchanges": [row]}, indent=2) + "\n"
    # printable non-ASCII as itself; `<` as itself (no HTML here); controls, U+2028, bidi as escapes
    assert "é" in text and "日" in text and "ü" in text and "<script>" in text
    for raw in ("\u2028", "\x1b", "\x00", "\u202e", "\u0085"):
        assert raw not in text
    assert "\\u2028" in text and "\\u001b" in text and "\\u0000" in text and "\\u202e" in text


def test_the_table_shows_every_value_on_its_own_line() -> None:
    listed = _listed()
    text = listing_document([listed, listed], "text", dated=True)
    lines = text.splitlines()
    assert len(lines) == 3 and text.endswith("\n")
    assert lines[0].split() == [
        *(
            "CASSETTE",
            "INDEX",
            "METHOD",
            "STATUS",
            "ERRORS",
            "WARNINGS",
            "INFO",
            "RECORDED",
            "CONFIRMED",
            "PATH",
        )
    ]
    assert not text.isascii() and all(line.isprintable() for line in lines)
    assert "\\u2028" in lines[1] and "\\x1b[31m" in lines[1] and "<script>é" in lines[1]


def test_show_json_and_text_keep_one_exchange_escaped() -> None:
    exchange = make_exchange(make_request(path=HOSTILE_PATH))
    document = json.loads(exchange_json(3, exchange, []))
    assert document["index"] == 3 and document["request"]["path"] == HOSTILE_PATH
    assert document["findings"] == []
    stored = "- request:\n    path: '/a\x1b'\n"
    assert (
        exchange_text(3, exchange, [], stored)
        == "index: 3\n- request:\n    path: '/a\\x1b'\n# 0 finding(s)\n"
    )
    unsaved = exchange_text(3, exchange, [], None)
    assert unsaved.startswith("# not yet in the file") and unsaved.endswith("# 0 finding(s)\n")
    assert all(line.isprintable() for line in unsaved.splitlines())
