"""The reliability page's table (docs/reliability.md) and `reliability-results.json` say the same,
figure for figure."""

from __future__ import annotations

import json

from tests.reliability.figures import RESULTS, page_rows, row_value


def test_the_page_quotes_every_figure_the_tests_wrote_and_no_other() -> None:
    """A figure the tests wrote and the page lacks, or quotes differently, or a page row no test
    writes, fails here (each test also compares its own figure as it writes it)."""
    written = json.loads(RESULTS.read_text(encoding="utf-8"))
    assert page_rows() == {key: row_value(entry["value"]) for key, entry in written.items()}
