"""YAML for a terminal (`cassette show`): the cassette file's layout, with every character
`str.isprintable` refuses (controls, bidi overrides and other format characters, line and paragraph
separators, unassigned code points; a line end in a literal block stays one) written as its escape in a
double-quoted scalar. It stays YAML that loads back to the same value, and no value can reorder a line,
add one or send a terminal escape. PyYAML alone escapes controls and U+0085/U+2028/U+2029, but leaves
format characters such as U+202E as they are.

Pure, no I/O. The pure-Python emitter, as the C one cannot be told which characters to escape.
"""

from __future__ import annotations

from typing import Any, ClassVar

import yaml
from yaml.emitter import ScalarAnalysis

from proxy.core.cassette.document import CassetteDumper


def yaml_text(document: Any) -> str:
    """`document` as block YAML in the cassette layout, every value printable as written."""
    return str(yaml.dump(document, Dumper=VisibleDumper, sort_keys=False, allow_unicode=True, width=100))


def _hidden(text: str) -> bool:
    """Whether `text` holds a character that is not printable other than a line end."""
    return not text.replace("\n", "").isprintable()


class VisibleDumper(yaml.SafeDumper):
    """The cassette dumper's representers; a scalar holding a hidden character double-quoted, all its
    non-ASCII characters escaped."""

    yaml_representers: ClassVar[dict[Any, Any]] = dict(CassetteDumper.yaml_representers)

    def ignore_aliases(self, data: Any) -> bool:
        return True

    def analyze_scalar(self, scalar: str) -> ScalarAnalysis:
        analysis = super().analyze_scalar(scalar)
        if _hidden(scalar):  # only the double-quoted style can escape
            analysis.allow_flow_plain = analysis.allow_block_plain = False
            analysis.allow_single_quoted = analysis.allow_block = False
        return analysis

    def write_double_quoted(self, text: str, split: bool = True) -> None:
        if not _hidden(text):
            super().write_double_quoted(text, split)
            return
        self.allow_unicode = False  # for this scalar only: every non-ASCII character as its escape
        try:
            super().write_double_quoted(text, split)
        finally:
            self.allow_unicode = True
