"""The placeholder a scrubbed report shows is the placeholder through its format's own escaping, so it
reads back as `<redacted>` wherever a value stands in that format."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree

from proxy.app.report_writing import FORMATS, placeholder_in
from proxy.core.redaction.policy import PLACEHOLDER


def test_each_format_spells_the_placeholder_as_its_escaping_does() -> None:
    assert placeholder_in("junit") == "&lt;redacted&gt;"
    assert ElementTree.fromstring(f"<v>{placeholder_in('junit')}</v>").text == PLACEHOLDER
    html = placeholder_in("html")
    assert "<" not in html and json.loads(f'"{html}"') == PLACEHOLDER  # inside a JSON string in <script>
    for plain in set(FORMATS) - {"junit", "html"}:
        assert placeholder_in(plain) == PLACEHOLDER
