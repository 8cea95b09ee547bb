"""The page's actions against the real servers, through the routes of docs/ui.md (Part E's, server
side): curl, a diff of two exchanges with its tiers, export of the filtered view re-imported with
`import-har`, a finding accepted into the project's baseline, an edit and a delete offline (the cassette
re-checked and saved), a resend in record. They need the action routes: the lead runs them once those
are merged."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import expect

from proxy.store.cassette_reader.loading import read_cassette_file
from proxy.store.shipped import shipped_dir
from tests.paths import ROOT
from tests.system.ui.conftest import Opened
from tests.system.ui.real_servers import RealServer
from tests.system.ui.test_real_servers import EXAMPLES

WALK = shipped_dir("cassettes") / "pagination-walk.yaml"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project folder naming a baseline, with a copy of an example cassette."""
    (tmp_path / "pyproject.toml").write_text('[tool.commerce-proxy]\nbaseline = "baseline.json"\n')
    shutil.copyfile(EXAMPLES[0], tmp_path / "shop.yaml")
    return tmp_path


def cli(*arguments: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "proxy", *arguments],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def opened_at(server: RealServer, open_page: Callable[..., Opened], number: int) -> Opened:
    opened = open_page(f"{server.ui_url}&exchange={number}")
    expect(opened.page.locator("#pane .actions")).to_be_visible()
    return opened


def test_copy_as_curl_shows_the_servers_command(
    project: Path, real_server: Callable[..., RealServer], open_page: Callable[..., Opened]
) -> None:
    server = real_server("ui", str(project / "shop.yaml"), cwd=project)
    opened = opened_at(server, open_page, 1)
    opened.page.locator("#pane .act-curl").click()
    command = server.api("exchanges/1/curl")["command"]
    assert command.startswith("curl ")
    expect(opened.page.locator("#pane pre.curl")).to_have_text(command)
    assert opened.problems == []


def test_a_diff_of_two_exchanges_in_tiers(
    project: Path, real_server: Callable[..., RealServer], open_page: Callable[..., Opened]
) -> None:
    server = real_server("ui", str(project / "shop.yaml"), cwd=project)
    opened = opened_at(server, open_page, 2)
    page = opened.page
    page.locator("#pane .act-mark").click()
    page.locator(".spacer .row[data-id='3']").click()
    page.locator("#pane .act-diff-marked").click()
    changed, every = server.api("diff?a=2&b=3"), server.api("diff?a=2&b=3&all=1")
    diff = page.locator("#pane .diff")
    expect(diff.locator(".changes.response tr.change")).to_have_count(len(changed["changes"]))
    tiers = " ".join(
        f"{tier} {changed['counts'][tier]}" for tier in ("breaking", "additive", "data", "volatile")
    )
    assert diff.locator(".tiers").inner_text().replace("\n", " ") == tiers
    diff.locator("input.all-tiers").check()
    expect(page.locator("#pane .diff .changes.response tr.change")).to_have_count(len(every["changes"]))
    assert opened.problems == []


def test_export_of_the_filtered_view_imports_back_with_import_har(
    project: Path, real_server: Callable[..., RealServer], open_page: Callable[..., Opened]
) -> None:
    server = real_server("ui", str(project / "shop.yaml"), cwd=project)
    wanted = server.api("exchanges?method=GET&limit=500")["exchanges"]
    opened = open_page(f"{server.ui_url}&method=GET")
    with opened.page.expect_download() as download:
        opened.page.locator("#export-har").click()
    har = project / "view.har"
    download.value.save_as(har)
    imported = cli("import-har", str(har), "-o", str(project / "back.yaml"), cwd=project)
    assert imported.returncode == 0, imported.stderr
    back = read_cassette_file(project / "back.yaml").exchanges
    assert [(e.request.method, e.request.target) for e in back] == [
        (row["method"], row["path"]) for row in wanted
    ]


def test_a_finding_accepted_into_the_baseline(
    project: Path, real_server: Callable[..., RealServer], open_page: Callable[..., Opened]
) -> None:
    server = real_server("ui", str(project / "shop.yaml"), cwd=project)
    number = server.api("exchanges?has_findings=true&limit=1")["exchanges"][0]["id"]
    rule = server.api(f"exchanges/{number}")["findings"][0]["rule"]
    opened = opened_at(server, open_page, number)
    opened.page.locator("#pane .finding .act-accept").first.click()
    expect(opened.page.locator("#status")).to_contain_text(f"{rule} accepted into")
    assert rule in (project / "baseline.json").read_text()


def test_an_edit_and_a_delete_offline_are_rechecked_and_saved(
    project: Path, real_server: Callable[..., RealServer], open_page: Callable[..., Opened]
) -> None:
    cassette = project / "shop.yaml"
    server = real_server("ui", str(cassette), cwd=project)
    total = server.api("info")["exchanges"]
    opened = opened_at(server, open_page, 2)
    page = opened.page
    page.locator("#pane .edit-field").fill("status")
    page.locator("#pane .edit-value").fill("418")
    page.locator("#pane .act-edit").click()
    expect(page.locator("#pane .action-output .summary")).not_to_be_empty()
    expect(page.locator(".spacer .row[data-id='2'] .c-status")).to_have_text("418")
    assert "status: 418" in cassette.read_text()
    page.locator("#pane .act-delete").click()
    expect(page.locator("#pane")).to_be_hidden()
    expect(page.locator(".spacer .row[data-id]")).to_have_count(total - 1)
    assert "status: 418" not in cassette.read_text()
    assert opened.problems == []


def test_resend_in_record_shows_the_diff_with_the_recording(
    tmp_path: Path, sandbox: str, real_server: Callable[..., RealServer], open_page: Callable[..., Opened]
) -> None:
    server = real_server(
        "record", "--upstream", sandbox, "--cassette", str(tmp_path / "shop.yaml"), cwd=tmp_path
    )
    status = server.get("/v2/products")
    opened = opened_at(server, open_page, 1)
    opened.page.locator("#pane .act-resend").click()
    expect(opened.page.locator("#pane .resent")).to_have_text(f"resent: the upstream answered {status}")
    expect(opened.page.locator("#pane .diff h3")).to_have_text("recorded #1 → live answer")
    assert server.api("info")["exchanges"] == 1  # never recorded


def verify_report(cassette: Path, name: str) -> str:
    """`verify --format json -v`'s report of `cassette` (named `name`, as verify was given it), from
    live answers that moved a status and a Date: written by verify's own renderer."""
    from dataclasses import replace

    from proxy.core.drift.compare import compare_exchanges
    from proxy.core.drift.pairing import request_line
    from proxy.core.drift.verification import Verification, Verified
    from proxy.core.reports.verification import verify_json

    results = []
    for index, recorded in enumerate(read_cassette_file(cassette).exchanges[1:4], start=1):
        heads = tuple(
            (n, "Mon, 01 Jan 2035 00:00:00 GMT" if n == "Date" else v) for n, v in recorded.response.headers
        )
        live = replace(
            recorded, response=replace(recorded.response, status=500 if index == 2 else 200, headers=heads)
        )
        results.append(Verified(name, index, request_line(recorded), compare_exchanges(recorded, live)))
    return verify_json(Verification(results, []), verbose=True)


def test_two_cassettes_and_a_cassette_with_its_verify_report_compare_in_tiers(
    project: Path, real_server: Callable[..., RealServer], open_page: Callable[..., Opened]
) -> None:
    shutil.copyfile(WALK, project / "a.yaml")
    shutil.copyfile(WALK, project / "b.yaml")
    assert (
        cli("cassette", "set", "b.yaml", "1", "resp.header.Date", "Tue, 02 Jan 2035", cwd=project).returncode
        == 0
    )
    assert cli("cassette", "delete", "b.yaml", "3", cwd=project).returncode == 0
    (project / "verified.json").write_text(verify_report(project / "a.yaml", "a.yaml"))
    server = real_server("ui", "a.yaml", "b.yaml", "verified.json", cwd=project)
    opened = open_page(server.ui_url)
    page = opened.page
    page.locator("#compare").click()
    pane = page.locator("#pane")
    pane.locator("select.compare-b").select_option("b.yaml")
    pane.locator(".act-compare").click()
    expected = server.api("cassette-diff?a=a.yaml&b=b.yaml")
    counts = "".join(f"{tier} {n}" for tier, n in expected["counts"].items())
    expect(pane.locator(".compared .tiers")).to_have_text(counts)
    expect(pane.locator(".compared tr.change")).to_have_count(len(expected["changes"]))
    expect(pane.locator(".only.removed li")).to_have_count(1)
    pane.locator(".compared input.all-tiers").check()
    every = server.api("cassette-diff?a=a.yaml&b=b.yaml&all=1")["changes"]
    assert len(every) > len(expected["changes"])  # the Date: volatile, listed when asked
    expect(pane.locator(".compared tr.change")).to_have_count(len(every))
    expect(pane.locator(".compared tr.change.volatile td code").first).to_have_text("headers.Date")

    pane.locator("select.compare-b").select_option("verified.json")
    pane.locator(".act-compare").click()
    expect(pane.locator(".compared .note").first).to_have_text(
        "b: the live answers verify got; a: the recorded ones"
    )
    expect(pane.locator(".compared tr.change")).to_have_count(1)  # the status; the Dates are volatile
    expect(pane.locator(".compared tr.change td.tier")).to_have_text(
        server.api("cassette-diff?a=a.yaml&b=verified.json")["changes"][0]["tier"]
    )
    pane.locator(".compared input.all-tiers").check()
    expect(pane.locator(".compared tr.change")).to_have_count(
        len(server.api("cassette-diff?a=a.yaml&b=verified.json&all=1")["changes"])
    )
    assert opened.problems == []
