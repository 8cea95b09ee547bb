"""`cassette list` and `cassette grep` as a table: every column lines up over generated cassettes whose
names are short, long, wide (CJK, emoji), combining, spaced, and whose indexes, statuses and counts
have different widths; the counts are spelled out by severity and agree with `--format json`."""

from __future__ import annotations

import itertools
import json
from dataclasses import replace
from pathlib import Path

import pytest

from proxy.cli.main import main
from proxy.core.cassette.document import Cassette
from proxy.core.reports.columns import display_width, table
from proxy.store.cassette_reader.loading import read_cassette_file
from proxy.store.saving import save_cassette
from proxy.store.shipped import shipped_dir

OLD = "2020-01-01T00:00:00.000000Z"
# (file name, its width in terminal cells)
NAMES = [
    ("a.yaml", 6),
    ("商品カタログ.yaml", 17),
    ("cafe\u0301 orders.yaml", 16),
    ("🛒 cart.yaml", 12),
    ("a-rather-long-cassette-name-for-the-nightly-staging-run.yaml", 60),
    ("\uff46\uff55\uff4c\uff4c.yaml", 13),  # fullwidth "full",
]
HEADER = [
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
]
RIGHT = {"INDEX", "STATUS", "ERRORS", "WARNINGS", "INFO"}
WIDE = set("商品カタログ🛒\uff46\uff55\uff4c")  # two terminal cells each; U+0301 (combining) takes none


def cells(text: str) -> int:
    """Terminal cells of text made of ASCII and the characters above, known apart from the code."""
    return sum(2 if char in WIDE else 0 if char == "\u0301" else 1 for char in text)


@pytest.mark.parametrize(("name", "width"), NAMES)
def test_display_width_counts_terminal_cells(name: str, width: int) -> None:
    assert display_width(name) == cells(name) == width


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Cassettes of the demo's exchanges, 1 to 18 of them, some recorded long ago; stale ones are errors."""
    demo = read_cassette_file(shipped_dir("cassettes") / "demo-session.yaml").exchanges
    shelf = tmp_path / "shelf"
    shelf.mkdir()
    for number, (name, _) in enumerate(NAMES):
        picked = demo[: 1 + (number * 7) % len(demo)] if number else demo
        aged = tuple(
            replace(item, recorded_at=OLD) if index % (number + 2) == 0 else item
            for index, item in enumerate(picked)
        )
        if number == 3:
            aged += (replace(aged[-1], request=replace(aged[-1].request, path="/v2/商品")),)
        save_cassette(shelf / name, Cassette(aged))
    (tmp_path / "commerce-proxy.yaml").write_text("max_age: 90d\nseverity:\n  cassette.max-age: error\n")
    monkeypatch.chdir(tmp_path)
    return shelf


def run(
    capsys: pytest.CaptureFixture[str], arguments: list[str]
) -> tuple[list[str], list[dict[str, object]]]:
    """The table's lines and, for the same arguments, the JSON rows."""
    assert main(["cassette", *arguments]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert main(["cassette", *arguments, "--format", "json"]) == 0
    return lines, json.loads(capsys.readouterr().out)["exchanges"]


def spans(line: str, texts: list[str]) -> list[tuple[int, int]]:
    """Where each of `texts` (in order, separated by spaces) starts and ends on `line`, in terminal cells."""
    found, at = [], 0
    for cell in texts:
        start = line.index(cell, at)
        assert line[at:start].strip(" ") == "", (line, cell)
        found.append((cells(line[:start]), cells(line[: start + len(cell)])))
        at = start + len(cell)
    assert line[at:] == ""
    return found


COMMANDS = [
    ["list", "shelf"],
    ["list", "shelf", "--stale"],
    ["list", "shelf/a-rather-long-cassette-name-for-the-nightly-staging-run.yaml", "--stale"],
    ["grep", "shelf", "status>=400 or method=POST"],
    ["grep", "shelf", "findings>1"],
    ["list", "shelf/🛒 cart.yaml"],
]


@pytest.mark.parametrize("arguments", COMMANDS, ids=lambda arguments: " ".join(arguments))
def test_every_column_lines_up_and_the_counts_are_spelled_out(
    folder: Path, capsys: pytest.CaptureFixture[str], arguments: list[str]
) -> None:
    lines, rows = run(capsys, arguments)
    several = arguments[1] == "shelf"
    header = [
        name
        for name in HEADER
        if (several or name != "CASSETTE")
        and ("--stale" in arguments or name not in ("RECORDED", "CONFIRMED"))
    ]
    assert lines[0].split() == header and len(lines) == len(rows) + 1 and rows
    heads = spans(lines[0], header)
    for gap_before, gap_after in itertools.pairwise(heads):
        assert gap_after[0] - gap_before[1] >= 2
    for line, row in zip(lines[1:], rows, strict=True):
        assert row["findings"] == row["errors"] + row["warnings"] + row["info"]  # type: ignore[operator]
        values = {
            "CASSETTE": row["cassette"],
            "INDEX": row["index"],
            "METHOD": row["method"],
            "STATUS": row["status"],
            "ERRORS": row["errors"],
            "WARNINGS": row["warnings"],
            "INFO": row["info"],
            "RECORDED": row["recorded_at"] or "-",
            "CONFIRMED": row["confirmed_at"] or "-",
            "PATH": f"{row['path']}?{row['query']}" if row["query"] else row["path"],
        }
        placed = spans(line, [str(values[name]) for name in header])
        for name, (start, end), (head_start, head_end) in zip(header, placed, heads, strict=True):
            if name in RIGHT:
                assert end == head_end, (name, line)
            else:
                assert start == head_start, (name, line)
    assert any(row["errors"] for row in rows) or "grep" in arguments


def test_the_table_pads_by_terminal_cells_and_leaves_no_trailing_space() -> None:
    lines = table(
        ["NAME", "N", "LAST"], [["商品", "7", "x"], ["ab", "12", "商品"], ["e\u0301", "3", ""]], right={1}
    )
    assert lines == ["NAME   N  LAST", "商品   7  x", "ab    12  商品", "e\u0301      3"]
