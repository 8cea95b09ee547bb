"""Each exchange no rule about the answer judged is marked "not judged" wherever a report marks
exchanges one by one: the HTML page's rows, timeline and per-endpoint table (from `check` and from
`spy` at stop), and JUnit's skipped case, never as a pass. A generated table over every verdict."""

from __future__ import annotations

import json
import signal
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from typing import Any

from proxy.core.rules.unjudged import REASON_TEXT
from tests.running import commerce_proxy, stop_with
from tests.system.test_unjudged_report import _send, cassette, check, sandbox  # noqa: F401 (a fixture)
from tests.unit.core.exchanges import changed, feature_update, list_read
from tests.unit.core.rules.test_unjudged import CASES

FAILING = list_read(body=changed(list_read().response.body.value, "meta.page.offset", "ten"))


def page_data(text: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(text.split('id="report-data">', 1)[1].split("</script>", 1)[0])
    return data


def test_every_unjudged_exchange_is_marked_not_judged_with_its_reason(tmp_path: Path) -> None:
    exchanges = [case.exchange for case in CASES] + [FAILING, feature_update()]
    path = cassette(tmp_path / "table.yaml", exchanges)
    data = page_data(check(path, "html", code=1))
    rows = data["rows"]
    assert len(rows) == len(exchanges)
    for case, row in zip(CASES, rows, strict=False):
        severities = {finding["severity"] for finding in row["findings"]}
        if case.expected is None:
            assert row["unjudged"] is None and row["mark"] != "unjudged", case.name
            continue
        reason, _, status = case.expected
        assert row["unjudged"].startswith(f"not judged: {REASON_TEXT[reason][0]}"), case.name  # type: ignore[index]
        assert str(status) in row["unjudged"] or reason not in ("error", "status"), case.name
        expected = "fail" if "error" in severities else "warn" if "warning" in severities else "unjudged"
        assert row["mark"] == expected, case.name
    assert rows[-2]["mark"] == "fail" and rows[-1]["mark"] == "pass"
    marks = [row["mark"] for row in rows]
    unjudged = sum(1 for case in CASES if case.expected is not None)
    assert marks.count("unjudged") + marks.count("warn") + marks.count("fail") >= unjudged
    for endpoint in data["endpoints"]:
        assert endpoint["exchanges"] == sum(endpoint[mark] for mark in ("fail", "warn", "unjudged", "pass"))
    by_mark = {mark: sum(endpoint[mark] for endpoint in data["endpoints"]) for mark in set(marks)}
    assert by_mark == {mark: marks.count(mark) for mark in set(marks)}


def test_junit_shows_the_unjudged_exchanges_as_one_skipped_case(tmp_path: Path) -> None:
    path = cassette(tmp_path / "table.yaml", [case.exchange for case in CASES])
    root = ElementTree.fromstring(check(path, "junit", code=1))
    case = root.find(".//testcase[@name='not judged']")
    assert case is not None
    skipped = case.find("skipped")
    count = sum(1 for one in CASES if one.expected is not None)
    assert skipped is not None and skipped.get("message", "").startswith(f"not judged: {count} of ")
    suite = root.find("testsuite")
    assert suite is not None and int(suite.get("skipped", "0")) >= 1
    assert int(suite.get("tests", "0")) == len(list(suite.iter("testcase")))


def test_a_cassette_nothing_judged_is_never_a_pass(tmp_path: Path) -> None:
    errors = [case.exchange for case in CASES if case.expected is not None and case.expected[0] == "status"]
    path = cassette(tmp_path / "unjudged.yaml", errors)
    data = page_data(check(path, "html"))
    assert {row["mark"] for row in data["rows"]} == {"unjudged"}
    assert data["unjudged"]["exchanges"] == data["exchanges"] == len(errors)
    assert check(path, "markdown").startswith("## ⚪ commerce-proxy check")


async def test_spy_marks_the_unjudged_exchanges_on_its_page_at_stop(sandbox: str, tmp_path: Path) -> None:  # noqa: F811
    report = tmp_path / "report.html"
    arguments = ["spy", "--upstream", sandbox, "--format", "html", "-o", str(report)]
    async with commerce_proxy(*arguments) as running:
        await _send(running.url)
        code, err = await stop_with(running, signal.SIGINT)
    assert code == 0, err
    rows = page_data(report.read_text(encoding="utf-8"))["rows"]
    marks = {row["target"].split("?")[0]: (row["mark"], row["unjudged"]) for row in rows}
    assert marks["/oauth/access_token"] == ("unjudged", "not judged: known operation, not documented")
    assert marks["/v2/settings"] == ("unjudged", "not judged: undocumented operation")
    assert [row["mark"] for row in rows if row["target"].endswith("=2")] == ["pass"]
    assert [row["mark"] for row in rows if row["target"].endswith("=abc")] == ["warn"]  # a judged refusal
