"""One escaping function per report format: every value that came from traffic or a file name goes
through the one of its format, so no request, response or cassette name can add a line, a table row,
a link, an HTML comment or a terminal escape to a report.

- text: `visible`: every character that is not printable (controls, NUL, line and paragraph
  separators, bidi overrides, lone surrogates) shown as its Python escape (`\\n`, `\\x1b`, `\\u202e`);
- Markdown: `markdown_code`: a code span (nothing renders inside one: no link, emphasis or HTML)
  of the visible text, its fence longer than any run of backticks inside, pipes escaped for tables;
  `markdown_cell` for a rule's own prose in a table cell (its links and emphasis kept, as the docs
  page shows them), never for a value from traffic;
- HTML, and raw HTML inside Markdown: `html_text`; XML: `xml_text` and `xml_attribute`: the
  visible text, markup characters as entities (so nothing XML 1.0 cannot hold is left);
- JSON: `json_text`: printable values kept as they are; every other character (a lone surrogate, which
  UTF-8 cannot hold, a bidi override, a C1 control) as its `\\uXXXX` escape, which reads back the same;
  `script_json`: the same JSON inside an HTML `<script>` element, every `<` as `\\u003c`;
- YAML: `proxy.core.reports.yaml_text.yaml_text`.

Pure, no I/O.
"""

from __future__ import annotations

import json
import re
from typing import Any

_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_BACKTICKS = re.compile("`+")
_PIPE = re.compile(r"(\\*)\|")  # a pipe and the backslashes right before it


def visible(text: str) -> str:
    """`text` with every character `str.isprintable` refuses written as its escape: one line, no
    control or format character, whatever the text held."""
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else _escaped(char) for char in text)


def _escaped(char: str) -> str:
    if char in _SHORT:
        return _SHORT[char]
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def markdown_code(text: str) -> str:
    """`text` as an inline code span, safe in a paragraph, a list item and a GFM table cell.

    A pipe becomes `\\|` (a table's cell would end at it; GitHub shows `|`), with the backslashes
    before it doubled so neither GitHub's nor markdown-it's reading of `\\|` ends the cell."""
    shown = _PIPE.sub(lambda match: match.group(1) * 2 + "\\|", visible(text))
    if not shown:
        return "` `"
    fence = "`" * (max((len(run) for run in _BACKTICKS.findall(shown)), default=0) + 1)
    # a span drops one space each side, unless it holds nothing but spaces (then it keeps them all)
    pad = " " if shown.strip(" ") and (shown[0] in "` " or shown[-1] in "` ") else ""
    return f"{fence}{pad}{shown}{pad}{fence}"


def markdown_cell(text: str) -> str:
    """A rule's own words in a Markdown table cell: no pipe ends the cell, no newline ends the row."""
    return text.replace("|", "\\|").replace("\n", " ")


def html_text(text: str) -> str:
    """`text` as HTML character data or a quoted attribute's value: one line, no markup."""
    return xml_text(text).replace('"', "&quot;").replace("'", "&#x27;")


def xml_text(text: str) -> str:
    """`text` as XML 1.0 character data: one line, no markup, no character XML cannot hold."""
    return visible(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def xml_attribute(text: str) -> str:
    """`text` as a quoted XML attribute value."""
    return '"' + xml_text(text).replace('"', "&quot;") + '"'


def json_text(value: Any, indent: int | None = None, separators: tuple[str, str] | None = None) -> str:
    """`value` as JSON, printable text as itself, every other character as its `\\uXXXX` escape (a
    raw one only occurs inside strings, as `json.dumps` escapes line ends there; the escape reads back
    as the same value; a lone surrogate has no UTF-8 form)."""
    text = json.dumps(value, ensure_ascii=False, indent=indent, separators=separators)
    if text.replace("\n", "").isprintable():
        return text
    return "".join(char if char.isprintable() or char == "\n" else _json_escape(char) for char in text)


def script_json(value: Any, separators: tuple[str, str] | None = None) -> str:
    """`value` as `json_text` inside an HTML `<script>` element: only `</` could end the element early,
    and `\\u003c` for every `<` keeps the JSON the same JSON."""
    return json_text(value, separators=separators).replace("<", "\\u003c")


def _json_escape(char: str) -> str:
    code = ord(char)
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000  # as a surrogate pair, the only escape JSON has for it
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
