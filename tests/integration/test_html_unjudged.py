"""The HTML page in a real browser marks each exchange no rule about the answer judged as "not judged"
(grey), never as a pass: in the timeline, the rows (with the reason), the "not judged" filter, the
counts and the per-endpoint table. Generated over every verdict of the not-judged table."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from proxy.core.cassette.document import Cassette
from proxy.store.saving import save_cassette
from tests.integration.test_html_report import browser, run_check  # noqa: F401 (a fixture)
from tests.unit.core.exchanges import changed, feature_update, list_read
from tests.unit.core.rules.test_unjudged import CASES

FAILING = list_read(body=changed(list_read().response.body.value, "meta.page.offset", "ten"))
EXCHANGES = [case.exchange for case in CASES] + [FAILING, feature_update()]


@pytest.fixture
def page(browser: Any, tmp_path: Path) -> Iterator[Any]:  # noqa: F811
    cassette = tmp_path / "table.yaml"
    save_cassette(cassette, Cassette(tuple(EXCHANGES)))
    page_file = tmp_path / "report.html"
    assert run_check(cassette, "--format", "html", "-o", page_file).returncode == 1
    opened = browser.new_page(viewport={"width": 1400, "height": 1000})
    problems: list[str] = []
    opened.on("pageerror", lambda error: problems.append(str(error)))
    opened.goto(page_file.as_uri())
    opened.wait_for_selector("details.exchange")
    yield opened
    assert problems == []
    opened.close()


def test_each_unjudged_exchange_is_grey_with_its_reason_and_filterable(page: Any) -> None:
    unjudged = [number for number, case in enumerate(CASES) if case.expected is not None]
    count = int(page.locator("#count-unjudged").inner_text())
    assert count == len(unjudged)
    rows = page.locator("details.exchange").all()
    ticks = page.locator(".tick").all()
    assert len(rows) == len(ticks) == len(EXCHANGES)
    grey = 0
    for number, (row, tick) in enumerate(zip(rows, ticks, strict=True)):
        mark = row.get_attribute("data-mark")
        assert tick.get_attribute("class") == f"tick {mark}"
        found = row.locator("summary .found").inner_text()
        if number in unjudged:
            assert mark != "pass" and "not judged: " in found, (number, found)
            grey += mark == "unjudged"
            if mark == "unjudged":
                assert tick.get_attribute("aria-label") == f"exchange {number}: not judged"
                assert tick.evaluate("e => getComputedStyle(e).backgroundColor") == "rgb(138, 147, 156)"
        else:
            assert "not judged" not in found
    assert grey > 0
    page.locator("input[name=show][value=unjudged]").check()
    shown = [row for row in rows if row.is_visible()]
    assert len(shown) == len(unjudged)
    assert page.locator("#shown").inner_text() == f"{len(unjudged)} of {len(EXCHANGES)} shown"
    first = shown[0]
    first.locator("summary").click()
    assert first.locator(".unjudged-reason").inner_text().startswith("not judged: ")


def test_the_endpoint_table_counts_not_judged_apart_from_pass(page: Any) -> None:
    headers = [cell.inner_text() for cell in page.locator("#by-endpoint thead tr").nth(1).locator("th").all()]
    assert headers == ["all", "failed", "warned", "not judged", "errors", "warnings", "info"]
    cells = [
        [int(cell.inner_text()) for cell in row.locator("td.n").all()]
        for row in page.locator("#by-endpoint tbody tr").all()
    ]
    marks = [row.get_attribute("data-mark") for row in page.locator("details.exchange").all()]
    assert sum(cell[0] for cell in cells) == len(EXCHANGES)
    assert sum(cell[1] for cell in cells) == marks.count("fail")
    assert sum(cell[2] for cell in cells) == marks.count("warn")
    assert sum(cell[3] for cell in cells) == marks.count("unjudged") > 0
    assert page.locator("#verdict").inner_text() == "FAIL"
