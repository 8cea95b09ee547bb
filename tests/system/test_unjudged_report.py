"""From the command line: `check` (every format) and `spy` stopped by a signal tell which exchanges no
rule about the answer judged, counted per documented operation and per path shape, bounded in length,
and say nothing of it when every exchange was judged."""

from __future__ import annotations

import json
import signal
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest

from proxy.core.cassette.document import Cassette
from proxy.core.model.exchange import Exchange
from proxy.store.saving import save_cassette
from tests.conftest import sandbox_token
from tests.running import commerce_proxy, run_commerce_proxy, sandbox_process, stop_with
from tests.unit.core.exchanges import error_document, exchange, feature_update, list_read
from tests.unit.core.rules.test_unjudged import CASES, FEATURE

FORMATS = ("text", "json", "junit", "markdown", "html")
HEADLINE = "not judged: "


def cassette(path: Path, exchanges: list[Exchange]) -> Path:
    save_cassette(path, Cassette(tuple(exchanges)))
    return path


def mixed() -> list[Exchange]:
    """Conformant exchanges, three error answers of the feature update and four reads of products by id."""
    made = [list_read(), feature_update()]
    made += [feature_update(status=status, body=error_document(status)) for status in (409, 409, 500)]
    made += [exchange("GET", f"/v2/products/{number}", body={"data": {}}) for number in range(4)]
    return made


def check(path: Path, format_name: str, *more: str, code: int = 0) -> str:
    done = run_commerce_proxy("check", str(path), "--format", format_name, *more)
    assert done.returncode == code, done.stderr
    return done.stdout


def said(format_name: str, text: str) -> str:
    """What a report says of unjudged exchanges, read the way its format is read (each must parse)."""
    if format_name == "json":
        return json.dumps(json.loads(text)["unjudged"])
    if format_name == "junit":
        root = ElementTree.fromstring(text)
        return "\n".join(element.text or "" for element in root.iter("system-out"))
    if format_name == "html":
        data = json.loads(text.split('id="report-data">', 1)[1].split("</script>", 1)[0])
        return "\n".join([data["unjudged"]["headline"], *data["unjudged"]["lines"]])
    return text


@pytest.mark.parametrize("format_name", FORMATS)
def test_check_names_the_unjudged_exchanges_in_every_format(tmp_path: Path, format_name: str) -> None:
    text = said(format_name, check(cassette(tmp_path / "mixed.yaml", mixed()), format_name))
    if format_name == "json":
        document = json.loads(text)
        assert document["exchanges"] == 7
        groups = {item["group"]: item for item in document["groups"]}
        assert groups[FEATURE]["reasons"] == {"error": 3}
        assert groups[FEATURE]["statuses"] == {"409": 2, "500": 1}
        assert groups["GET /v2/products/{id}"] == {
            "group": "GET /v2/products/{id}",
            "documented": False,
            "exchanges": 4,
            "reasons": {"undocumented": 4},
            "statuses": {},
        }
        return
    assert "not judged: 7 of 9 exchanges" in text
    assert "3 error answers (409 x2, 500)" in text
    assert "GET /v2/products/{id}" in text and "4 (undocumented operation)" in text


@pytest.mark.parametrize("format_name", FORMATS)
def test_a_fully_judged_run_says_nothing_of_it(tmp_path: Path, format_name: str) -> None:
    text = check(cassette(tmp_path / "clean.yaml", [list_read(), feature_update()]), format_name)
    if format_name == "json":
        assert json.loads(text)["unjudged"]["exchanges"] == 0
    else:
        assert HEADLINE not in text


def test_the_text_summary_is_bounded(tmp_path: Path) -> None:
    """Ten groups, then one line for the rest; the JSON has every group kept."""
    made = [exchange("GET", f"/v2/thing{letter}/42", body={}) for letter in "abcdefghijklmnop"] * 2
    path = cassette(tmp_path / "many.yaml", made)
    lines = check(path, "text").splitlines()
    start = next(number for number, line in enumerate(lines) if line.startswith(HEADLINE))
    shown = lines[start + 1 :]
    assert len(shown) == 11 and shown[-1].strip() == "and 6 more group(s), 12 exchange(s)", shown
    assert len(json.loads(check(path, "json"))["unjudged"]["groups"]) == 16


def test_quiet_text_keeps_the_headline(tmp_path: Path) -> None:
    text = check(cassette(tmp_path / "mixed.yaml", mixed()), "text", "-q")
    assert "not judged: 7 of 9 exchanges" in text and FEATURE not in text


def test_check_counts_every_case_of_the_table(tmp_path: Path) -> None:
    path = cassette(tmp_path / "table.yaml", [case.exchange for case in CASES])
    document = json.loads(check(path, "json", code=1))["unjudged"]  # the table holds errors
    assert document["exchanges"] == sum(1 for case in CASES if case.expected is not None)


@pytest.fixture(scope="module")
def sandbox() -> Iterator[str]:
    """`commerce-proxy sandbox` on an ephemeral port of 127.0.0.1."""
    with sandbox_process() as url:
        yield url


async def _send(base: str) -> None:
    async with aiohttp.ClientSession() as session:
        token = await sandbox_token(session, base)
        headers = {"Authorization": f"Bearer {token}"}
        for target in ("/v2/products?page[limit]=2", "/v2/products?page[limit]=abc", "/v2/settings"):
            async with session.get(f"{base}{target}", headers=headers) as answer:
                await answer.read()


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("format_name", ["json", "text"])
async def test_spy_reports_the_unjudged_exchanges_at_stop(
    sandbox: str, tmp_path: Path, stop: signal.Signals, format_name: str
) -> None:
    report = tmp_path / f"report.{format_name}"
    arguments = ["spy", "--upstream", sandbox, "--format", format_name, "-o", str(report)]
    async with commerce_proxy(*arguments) as running:
        await _send(running.url)
        code, err = await stop_with(running, stop)
    assert code == 0, err
    text = report.read_text(encoding="utf-8")
    if format_name == "text":
        assert "not judged: 2 of 4 exchanges" in text, text
        assert "POST /oauth/access_token: 1 (known operation, not documented)" in text
        return
    document = json.loads(text)["unjudged"]
    groups = {item["group"]: item for item in document["groups"]}
    assert document["exchanges"] == 2, document
    assert groups["POST /oauth/access_token"]["reasons"] == {"not-documented": 1}
    assert groups["GET /v2/settings"]["reasons"] == {"undocumented": 1}
    # page[limit]=abc refused with 400: the page parameter rule found the request wrong, and the
    # refusal is what the documentation expects, so it was judged
    assert "GET /v2/products" not in groups
