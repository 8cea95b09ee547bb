"""A plain-text table for a terminal (`cassette list`, `cassette grep`): each column as wide as its
widest cell as a terminal shows it (an East Asian wide character takes two cells, a combining mark none),
two spaces between columns, numbers right-aligned, the last column unpadded. Cells are one line and
printable already (`escaping.visible`). Pure, no I/O.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Collection, Sequence

GAP = "  "


def display_width(text: str) -> int:
    """How many terminal cells `text` takes."""
    return sum(_cells(char) for char in text)


def _cells(char: str) -> int:
    if unicodedata.combining(char) or unicodedata.category(char) in ("Mn", "Me", "Cf"):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def table(header: Sequence[str], rows: Sequence[Sequence[str]], right: Collection[int] = ()) -> list[str]:
    """The header line and one line per row, columns aligned; the columns in `right` right-aligned."""
    lines = [header, *rows]
    widths = [max(display_width(line[column]) for line in lines) for column in range(len(header))]
    last = len(header) - 1

    def cell(text: str, column: int) -> str:
        if column == last and column not in right:
            return text
        pad = " " * (widths[column] - display_width(text))
        return pad + text if column in right else text + pad

    return [GAP.join(cell(text, column) for column, text in enumerate(line)).rstrip(" ") for line in lines]
