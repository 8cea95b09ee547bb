"""A report names the command it came from in every format that has a heading or title: `record` and
`spy` write the same formats as `check`, and a reader must not take a session's report for a check's."""

from __future__ import annotations

import pytest

from proxy.app.report_writing import rendered
from proxy.core.reports.formats import Report

TITLED_FORMATS = ("markdown", "html")


@pytest.mark.parametrize("format_name", TITLED_FORMATS)
@pytest.mark.parametrize("command", ["check", "record", "spy", "replay"])
def test_the_report_names_its_command(format_name: str, command: str) -> None:
    title = f"commerce-proxy {command}"
    text = "".join(rendered(Report(()), format_name, lambda method, path: path, lambda: [], 10, False, title))
    assert title in text
    for other in {"check", "record", "spy", "replay"} - {command}:
        assert f"commerce-proxy {other}" not in text
