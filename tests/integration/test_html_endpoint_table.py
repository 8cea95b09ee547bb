"""The HTML report's endpoint table says what each column counts: every column has a header with a
tooltip (a `title`), a legend explains them, and there is one header per cell a row gets."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

from proxy.cli.main import main


class EndpointHeaders(HTMLParser):
    """The header rows of table#by-endpoint: each cell's text, title (its own or its abbr's) and span."""

    def __init__(self) -> None:
        super().__init__()
        self.inside = False
        self.rows: list[list[dict[str, str]]] = []
        self.legend = ""
        self.in_legend = False
        self.cell: dict[str, str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {name: value or "" for name, value in attrs}
        if tag == "table" and found.get("id") == "by-endpoint":
            self.inside = True
        if tag == "p" and found.get("id") == "endpoint-legend":
            self.in_legend = True
        if not self.inside:
            return
        if tag == "tr":
            self.rows.append([])
        elif tag == "th":
            self.cell = {"text": "", "title": found.get("title", ""), "colspan": found.get("colspan", "1")}
            self.rows[-1].append(self.cell)
        elif tag == "abbr" and self.cell is not None:
            self.cell["title"] = found.get("title", "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "thead":
            self.inside = False
        if tag == "th":
            self.cell = None
        if tag == "p":
            self.in_legend = False

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell["text"] += data
        if self.in_legend:
            self.legend += data


def test_every_endpoint_column_says_what_it_counts(tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    main(["check", "--examples", "--format", "html", "-o", str(page)])
    text = page.read_text(encoding="utf-8")
    headers = EndpointHeaders()
    headers.feed(text)
    leaves = [cell for row in headers.rows for cell in row if cell["colspan"] == "1"]
    assert leaves and all(cell["title"].strip() and cell["text"].strip() for cell in leaves), leaves
    groups = [cell["text"] for row in headers.rows for cell in row if cell["colspan"] != "1"]
    assert groups == ["exchanges", "findings"]
    # one header per cell the page's script puts in a row: the endpoint, then one per count
    [keys] = re.findall(r'\.\.\.\[("exchanges", [^\]]*)\]\.map', text)
    assert len(leaves) == 1 + len(keys.split(","))
    assert all(word in headers.legend for word in ("exchanges", "failed", "warned", "findings")), (
        headers.legend
    )
