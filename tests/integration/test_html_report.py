"""`check --format html` in a real headless browser (Debian's chromium, driven by Playwright).

The page is made by the command line as a user makes it, opened from disk with every network request
refused, and compared with `check --format json` of the same cassettes.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browsers import launched_chromium
from tests.conftest import entry_cassette_with_wrong_etag
from tests.paths import ROOT

HOSTILE = "</script><script>alert(1)</script>"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with launched_chromium("the HTML report's browser tests") as launched:
        yield launched


def run_check(*arguments: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "proxy", "check", *map(str, arguments)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """The shipped cassettes plus one with a broken ETag and a hostile string in a body."""
    folder = tmp_path_factory.mktemp("report")
    cassettes = folder / "cassettes"
    shutil.copytree(ROOT / "cassettes", cassettes)
    broken = entry_cassette_with_wrong_etag("f").replace('"name": "My Wishlist"', f'"name": "{HOSTILE}"')
    (cassettes / "broken-etag.yaml").write_text(broken)
    page = folder / "report.html"
    made = run_check(cassettes, "--format", "html", "-o", page)
    assert made.returncode == 1, made.stderr  # the broken ETag is an error
    wrote, timed = made.stderr.strip().splitlines()
    assert wrote == f"commerce-proxy: wrote {page}"
    assert timed.startswith("commerce-proxy: checked ") and timed.endswith(" s")
    as_json = run_check(cassettes, "--format", "json")
    return page, json.loads(as_json.stdout)


@pytest.fixture
def opened(
    browser: Any, reports: tuple[Path, dict[str, Any]]
) -> Iterator[tuple[Any, dict[str, Any], list[str]]]:
    """The report open in a fresh page; every console error, page error, dialog and network request is kept."""
    page_file, document = reports
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    problems: list[str] = []
    page.on(
        "console",
        lambda message: (
            problems.append(f"console {message.type}: {message.text}")
            if message.type in ("error", "warning")
            else None
        ),
    )
    page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    page.on("dialog", lambda dialog: (problems.append(f"dialog: {dialog.message}"), dialog.dismiss()))

    def only_the_file(route: Any) -> None:
        if route.request.url.startswith("file:"):
            route.continue_()
        else:
            problems.append(f"network request: {route.request.url}")
            route.abort()

    page.route("**/*", only_the_file)
    page.goto(page_file.as_uri())
    page.wait_for_selector("details.exchange")
    yield page, document, problems
    context.close()


def test_the_page_loads_with_no_console_error_and_no_network(
    opened: tuple[Any, dict[str, Any], list[str]],
) -> None:
    page, _, problems = opened
    assert page.locator("#verdict").inner_text() == "FAIL"
    assert problems == []


def test_the_summary_counts_match_the_json_report(opened: tuple[Any, dict[str, Any], list[str]]) -> None:
    page, document, _ = opened
    assert int(page.locator("#count-exchanges").inner_text()) == document["exchanges"]
    for severity in ("error", "warning", "info"):
        assert int(page.locator(f"#count-{severity}").inner_text()) == document["counts"][severity]
    assert page.locator("details.exchange").count() == document["exchanges"]
    assert page.locator(".tick").count() == document["exchanges"]
    failing = {
        (finding["cassette"], finding["exchange"])
        for finding in document["findings"]
        if finding["severity"] == "error"
    }
    assert page.locator(".tick.fail").count() == len(failing)
    # Per rule: every rule with findings, with the JSON's count.
    per_rule = Counter(finding["rule"] for finding in document["findings"])
    shown = {
        row.get_attribute("data-rule"): int(row.locator("td").nth(3).inner_text())
        for row in page.locator("#by-rule tbody tr").all()
        if row.is_visible()
    }
    assert shown == dict(per_rule)
    # Per endpoint: every exchange counted once, every finding under some endpoint.
    rows = page.locator("#by-endpoint tbody tr").all()
    cells = [[int(cell.inner_text()) for cell in row.locator("td.n").all()] for row in rows]
    assert sum(cell[0] for cell in cells) == document["exchanges"]
    for column, severity in ((4, "error"), (5, "warning"), (6, "info")):
        assert sum(cell[column] for cell in cells) == document["counts"][severity]
    entry = page.locator(
        '#by-endpoint tr[data-endpoint="GET /v2/extensions/{custom_api_slug}/{custom_api_entry_id}"]'
    )
    assert entry.count() == 1


def test_clicking_a_failing_exchange_shows_request_response_finding_and_section(
    opened: tuple[Any, dict[str, Any], list[str]], tmp_path: Path
) -> None:
    from playwright.sync_api import expect  # as tests/browsers.py: only where a browser runs

    page, document, problems = opened
    error = next(finding for finding in document["findings"] if finding["severity"] == "error")
    details = page.locator("details.exchange.fail")
    assert details.count() == 1
    assert not details.locator(".finding").is_visible()
    page.locator(".tick.fail").click()
    # what the click shows is waited for (the page may draw it a frame later), never assumed at once
    expect(details).to_have_attribute("open", "")
    request = details.locator(".part").nth(0)
    response = details.locator(".part").nth(1)
    expect(request).to_be_visible()
    expect(response).to_be_visible()
    assert request.locator("pre.headers").inner_text().startswith(f"GET {error['target']}")
    assert response.locator("pre.headers").inner_text().startswith("200 OK")
    assert 'ETag: W/"ffff' in response.locator("pre.headers").inner_text()
    finding = details.locator(f'.finding[data-rule="{error["rule"]}"]')
    expect(finding).to_be_visible()
    assert finding.locator(".message").inner_text() == error["message"]
    assert finding.locator(".section").inner_text() == error["citation"]
    expect(finding.locator(".section")).to_be_visible()
    # The hostile string in the body is shown as text, never run.
    assert HOSTILE in response.locator("pre.body-text").inner_text()
    page.screenshot(path=str(tmp_path / "report-opened.png"))
    assert problems == []


def test_the_list_filters_to_failing_exchanges_and_rules_that_found_nothing_unfold(
    opened: tuple[Any, dict[str, Any], list[str]],
) -> None:
    page, document, _ = opened
    page.locator("input[name=show][value=fail]").check()
    visible = [item for item in page.locator("details.exchange").all() if item.is_visible()]
    assert len(visible) == 1 and visible[0].get_attribute("data-mark") == "fail"
    page.locator("#search").fill("no such thing")
    assert page.locator("#shown").inner_text() == f"0 of {document['exchanges']} shown"
    hidden_before = sum(1 for row in page.locator("#by-rule tbody tr").all() if not row.is_visible())
    assert hidden_before > 0
    page.locator("#more-rules").click()
    assert all(row.is_visible() for row in page.locator("#by-rule tbody tr").all())


def test_rules_with_findings_come_errors_first_and_a_click_filters_the_exchanges(
    opened: tuple[Any, dict[str, Any], list[str]],
) -> None:
    """An error row never sits under info rows; clicking a rule shows only the exchanges it found
    something in, and clicking it again shows them all."""
    page, document, _ = opened
    order = {"error": 0, "warning": 1, "info": 2}
    rows = [row for row in page.locator("#by-rule tbody tr").all() if row.is_visible()]
    severities = [order[row.locator("td").nth(2).inner_text()] for row in rows]
    assert severities == sorted(severities) and severities[0] == 0
    rule = "coverage.error-body"
    having = {(f["cassette"], f["exchange"]) for f in document["findings"] if f["rule"] == rule}
    page.locator(f'#by-rule tr[data-rule="{rule}"]').click()
    visible = [item for item in page.locator("details.exchange").all() if item.is_visible()]
    assert len(visible) == len(having) > 0
    assert (
        page.locator("#shown").inner_text().startswith(f"{len(having)} of {document['exchanges']} shown with")
    )
    page.locator(f'#by-rule tr[data-rule="{rule}"]').click()
    assert page.locator("#shown").inner_text() == f"{document['exchanges']} of {document['exchanges']} shown"


def test_the_timeline_stays_one_screen_for_thousands_of_exchanges(browser: Any, tmp_path: Path) -> None:
    """3,000 exchanges: at most 600 marks; the failing exchange's mark is red and opens it."""
    cassettes = tmp_path / "cassettes"
    cassettes.mkdir()
    many = "cassette_format: 2\nexchanges:\n" + "".join(
        f"- request: {{method: GET, path: /v2/unknown/{number}}}\n  response: {{status: 404}}\n"
        for number in range(3000)
    )
    (cassettes / "many.yaml").write_text(many)
    (cassettes / "zz-broken.yaml").write_text(entry_cassette_with_wrong_etag("f"))
    page_file = tmp_path / "report.html"
    assert run_check(cassettes, "--format", "html", "-o", page_file).returncode == 1
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(page_file.as_uri())
    page.wait_for_selector("details.exchange")
    assert page.locator(".tick").count() <= 601  # a cassette's first mark starts a new run
    box = page.locator("#timeline").bounding_box()
    assert box is not None and box["height"] < 1000
    page.locator(".tick.fail").click()
    opened_now = page.locator("details.exchange.fail")
    assert opened_now.get_attribute("open") is not None
    page.close()


def test_without_a_browser_only_these_tests_skip_with_the_reason_and_ci_fails_instead(tmp_path: Path) -> None:
    env = {key: value for key, value in os.environ.items() if key not in ("CI", "COMMERCE_PROXY_CHROMIUM")}
    env["PATH"] = str(Path(sys.executable).parent)  # the venv's tools, and no chromium
    command = [
        sys.executable,
        "-m",
        "pytest",
        __file__,
        "-p",
        "no:cacheprovider",
        "-rs",
        "-k",
        "page_loads or counts",
    ]
    skipped = subprocess.run(
        command, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120, check=False
    )
    assert skipped.returncode == 0, skipped.stdout
    assert "2 skipped" in skipped.stdout
    assert (
        "SKIPPED [" in skipped.stdout
        and "no chromium on this machine (apt-get install chromium)" in skipped.stdout
    )
    failed = subprocess.run(
        command,
        capture_output=True,
        text=True,
        env={**env, "CI": "true"},
        cwd=tmp_path,
        timeout=120,
        check=False,
    )
    assert failed.returncode == 1
    assert ".ci/run installs it, so CI never skips these" in failed.stdout
