"""`cassette show` prints an exchange's lines as the cassette file holds them: a body edited by hand
keeps its own spelling (compact or spread JSON, escapes, number spellings, comments, flow style), read
back it is the stored mapping, and only the exchange asked for is printed."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
import yaml

from proxy.cli.main import main

BODIES = [
    '{"data":{"id":"1","name":"a"}}',
    '{ "data" : [ 1.0, 1e5, -0, 10000000000000000000001 ] }',
    '{"name":"caf\\u00e9 \\"quoted\\"","empty":{},"list":[]}',
    '{\n  "data":   {"nested": {"deep": [true, false, null]}}\n}',
]
HEADERS = [
    "      Content-Type: application/json\n",
    "      {Content-Type: application/json}\n",  # flow style, edited by hand
    "      Content-Type: application/json  # edited by hand\n",
]


def exchange_text(body: str, headers: str, number: int) -> str:
    """One exchange as a person might leave it, the list item at column 0 as the tool writes it."""
    block = "".join(f"      {line}\n" for line in body.splitlines())
    heads = headers if not headers.lstrip().startswith("{") else headers.replace("      {", "    headers: {")
    heads = heads if "headers:" in heads else "    headers:\n" + heads
    return (
        f"- recorded_at: '2026-11-2{number}T10:00:00Z'\n"
        "  request:\n"
        "    method: GET\n"
        f"    path: /v2/brands/{number}\n"
        "  response:\n"
        "    status: 200\n"
        f"{heads}"
        "    json: |\n"
        f"{block}"
    )


CASES = list(itertools.product(BODIES, HEADERS))


@pytest.mark.parametrize(("body", "headers"), CASES)
@pytest.mark.parametrize("position", [0, 1, 2])
def test_show_prints_the_lines_the_file_holds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], body: str, headers: str, position: int
) -> None:
    others = [exchange_text('{"data": []}', HEADERS[0], number) for number in (1, 2)]
    mine = exchange_text(body, headers, 3)
    items = [*others[:position], mine, *others[position:]]
    cassette = tmp_path / "edited.yaml"
    cassette.write_text(
        "# a cassette edited by hand\ncassette_format: 2\nupstream: http://127.0.0.1:9\nexchanges:\n"
        + "\n".join(items),
        encoding="utf-8",
    )
    stored = yaml.safe_load(cassette.read_text(encoding="utf-8"))["exchanges"][position]
    assert main(["cassette", "show", str(cassette), str(position)]) == 0
    out = capsys.readouterr().out
    printed = out.split("index: ", 1)[1].split("\n", 1)[1].split("\n# ", 1)[0] + "\n"
    expected = "".join(line[2:] + "\n" for line in mine.splitlines())  # the list's indentation off
    assert printed == expected
    assert yaml.safe_load(out) == {"index": position, **stored}
