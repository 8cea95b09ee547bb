"""`spy` and `record` in CI: started as processes in front of `commerce-proxy sandbox`, sent traffic,
stopped by a signal; the report they write at stop and their exit status (`--format`, `-o`,
`--fail-on`), over a generated table of stop signals x formats x --fail-on levels x traffic."""

from __future__ import annotations

import itertools
import json
import signal
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import aiohttp
import pytest

from proxy.store.cassette_reader.loading import read_cassette_file
from tests.conftest import sandbox_token
from tests.running import commerce_proxy, refusal_lines, sandbox_process, stop_with

# The sandbox breaks one error rule on the entry read; a page of 500 is a warning on the client's side.
ENTRY = "/v2/extensions/wishlists/5b0f6a52-3a8e-4f65-9d4c-0e6f1a2b3c4d"
ERROR_RULE, WARNING_RULE = "entry.etag.weak", "pagination.request.limit-max"
CONFORMANT = "/v2/products?page[limit]=2"
TRAFFIC = {  # what is sent after the token: each kind adds one request to the one before
    "conformant": [CONFORMANT],
    "warning": [CONFORMANT, "/v2/products?page[limit]=500"],
    "error": [CONFORMANT, "/v2/products?page[limit]=500", ENTRY],
}
FORMATS = ("text", "json", "junit", "markdown", "html")
STOPS = (signal.SIGTERM, signal.SIGINT)
FAIL_ON = (None, "error", "warning")


class Case(NamedTuple):
    command: str
    stop: signal.Signals
    format: str
    fail_on: str | None
    traffic: str

    @property
    def id(self) -> str:
        return f"{self.command}-{self.stop.name}-{self.format}-fail-on-{self.fail_on}-{self.traffic}"

    @property
    def exit_code(self) -> int:
        if self.fail_on is None or self.traffic == "conformant":
            return 0
        return 1 if self.fail_on == "warning" or self.traffic == "error" else 0


def _cases() -> Iterator[Case]:
    """spy: every stop x format x level, the traffic turning so each level meets each kind; record: every
    stop x level, the format and traffic turning."""
    kinds = list(TRAFFIC)
    for number, (stop, format_name, fail_on) in enumerate(itertools.product(STOPS, FORMATS, FAIL_ON)):
        yield Case("spy", stop, format_name, fail_on, kinds[(number // 3 + number) % 3])
    for number, (stop, fail_on) in enumerate(itertools.product(STOPS, FAIL_ON)):
        yield Case("record", stop, FORMATS[number % 5], fail_on, kinds[(number // 3 + number) % 3])


CASES = list(_cases())


@pytest.fixture(scope="module")
def sandbox() -> Iterator[str]:
    """`commerce-proxy sandbox` on an ephemeral port of 127.0.0.1, breaking the entry's ETag."""
    with sandbox_process("--break", ERROR_RULE) as url:
        yield url


async def _send(base: str, targets: list[str]) -> None:
    async with aiohttp.ClientSession() as session:
        token = await sandbox_token(session, base)
        for target in targets:
            async with session.get(f"{base}{target}", headers={"Authorization": f"Bearer {token}"}) as answer:
                assert answer.status == 200, await answer.text()


def _rules_in(format_name: str, text: str) -> set[str]:
    """The rules a report names, read the way its format is read (each must parse)."""
    known = {ERROR_RULE, WARNING_RULE}
    if format_name == "json":
        return {finding["rule"] for finding in json.loads(text)["findings"]} & known
    if format_name == "junit":
        root = ElementTree.fromstring(text)
        failed = {case.get("name", "") for case in root.iter("testcase") if len(case)}
        return {rule for rule in known if any(rule in name for name in failed)}
    if format_name == "html":  # the page's data: every exchange with its own findings
        data = text.split('id="report-data">', 1)[1].split("</script>", 1)[0]
        rows = json.loads(data)["rows"]
        assert len(rows) == len({row["target"] for row in rows}) >= 2  # every exchange, once
        return {finding["rule"] for row in rows for finding in row["findings"]} & known
    return {rule for rule in known if rule in text}


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
async def test_report_at_stop_and_exit_status(sandbox: str, tmp_path: Path, case: Case) -> None:
    """Every finding of the session is in the report, whatever stopped it; the exit status is the level's."""
    report = tmp_path / f"report.{case.format}"
    arguments = [case.command, "--upstream", sandbox, "--format", case.format, "-o", str(report)]
    if case.command == "record":
        arguments += ["--cassette", str(tmp_path / "cassettes" / "session.yaml")]
    if case.fail_on is not None:
        arguments += ["--fail-on", case.fail_on]
    async with commerce_proxy(*arguments) as running:
        await _send(running.url, TRAFFIC[case.traffic])  # the last finding is still in the worker here
        code, err = await stop_with(running, case.stop)
    assert code == case.exit_code, err
    assert f"wrote {report}" in err
    text = report.read_text(encoding="utf-8")
    expected = {"conformant": set(), "warning": {WARNING_RULE}, "error": {WARNING_RULE, ERROR_RULE}}
    assert _rules_in(case.format, text) == expected[case.traffic]
    if case.format == "json":
        document = json.loads(text)
        assert document["exchanges"] == len(TRAFFIC[case.traffic]) + 1  # the token request too
    if case.command == "record":  # a finding's number is the exchange's index in the cassette
        cassette = read_cassette_file(tmp_path / "cassettes" / "session.yaml")
        sent = [target.split("?")[0] for target in TRAFFIC[case.traffic]]
        assert [exchange.request.path for exchange in cassette.exchanges][1:] == sent


async def test_without_the_options_the_exit_status_is_as_before(sandbox: str, tmp_path: Path) -> None:
    async with commerce_proxy("spy", "--upstream", sandbox) as running:
        await _send(running.url, TRAFFIC["error"])
        code, err = await stop_with(running, signal.SIGTERM)
    assert code == 0, err
    assert "wrote" not in err and not list(tmp_path.iterdir())


async def test_fail_on_alone_writes_no_report(sandbox: str, tmp_path: Path) -> None:
    async with commerce_proxy("spy", "--upstream", sandbox, "--fail-on", "error") as running:
        await _send(running.url, TRAFFIC["error"])
        code, err = await stop_with(running, signal.SIGINT)
        rest = await running.process.stdout.read() if running.process.stdout else b""  # type: ignore[union-attr]
    assert code == 1, err
    assert "wrote" not in err and rest == b""


async def test_format_without_o_goes_to_stdout_after_the_ready_line(sandbox: str) -> None:
    async with commerce_proxy("spy", "--upstream", sandbox, "--format", "json") as running:
        await _send(running.url, TRAFFIC["warning"])
        running.process.send_signal(signal.SIGTERM)
        out, err = await running.process.communicate()
    assert running.process.returncode == 0, err
    document = json.loads(out)
    assert {finding["rule"] for finding in document["findings"]} >= {WARNING_RULE}


async def test_o_replaces_an_earlier_report(sandbox: str, tmp_path: Path) -> None:
    """As `check -o`: a report file is replaced, atomically."""
    report = tmp_path / "spy.json"
    report.write_text("an earlier report\n", encoding="utf-8")
    async with commerce_proxy("spy", "--upstream", sandbox, "--format", "json", "-o", str(report)) as running:
        await _send(running.url, TRAFFIC["conformant"])
        code, err = await stop_with(running, signal.SIGTERM)
    assert code == 0, err
    assert json.loads(report.read_text(encoding="utf-8"))["exchanges"] == 2


@pytest.mark.parametrize(
    ("command", "target", "why"),
    [
        ("spy", "existing.yaml", "is an existing cassette"),
        ("spy", "folder", "is a folder"),
        ("record", "cassette.yaml", "is one of this command's inputs"),
        ("record", "existing.yaml", "is an existing cassette"),
    ],
)
def test_o_never_replaces_a_cassette_or_an_input(tmp_path: Path, command: str, target: str, why: str) -> None:
    """Refused in one line before serving, as `check -o` refuses it; the file is left as it was."""
    (tmp_path / "existing.yaml").write_text("cassette_format: 1\nexchanges: []\n", encoding="utf-8")
    (tmp_path / "folder").mkdir()
    arguments = [command, "--upstream", "http://127.0.0.1:9", "--port", "0", "-o", str(tmp_path / target)]
    if command == "record":
        arguments += ["--cassette", str(tmp_path / "cassette.yaml")]
    code, lines, err = refusal_lines(*arguments)
    assert code == 2 and len(lines) == 1 and why in err, err
    assert (tmp_path / "existing.yaml").read_text(encoding="utf-8").startswith("cassette_format")
    assert not (tmp_path / "cassette.yaml").exists()
