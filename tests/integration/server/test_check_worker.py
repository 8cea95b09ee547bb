"""Checking in a child process: the same findings as checking in the proxy, none lost when it dies."""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import os
import threading
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from proxy.app.live_check_worker import FRAME, PIPE_BYTES, CheckWorker, Outbox, _frames
from proxy.app.recording import RecordSettings
from proxy.core.model.exchange import Exchange
from proxy.core.redaction.book import KNOWN
from proxy.core.redaction.policy import PLACEHOLDER
from proxy.core.rules import engine
from proxy.core.rules.engine import Checked, Checker, LiveChecker
from proxy.core.rules.findings import Finding
from proxy.core.ui.query import Query
from proxy.sandbox.app import SandboxSettings, create_sandbox_app
from proxy.server.record import RecordProxy
from proxy.server.serving import start
from proxy.store.rule_files import RuleSource
from proxy.store.shipped import shipped_dir
from tests.conftest import Serve, json_body, make_exchange, make_request
from tests.integration.test_live_conformance import RULES, client_session


def source(tmp_path: Path) -> RuleSource:
    return RuleSource(None, shipped_dir("rules"), tmp_path)


def without_order(document: dict[str, Any]) -> tuple[int, dict[str, Any], list[str]]:
    findings = sorted(f"{item['exchange']} {item['rule']} {item['where']}" for item in document["findings"])
    return document["exchanges"], document["totals"], findings


async def findings_of(serve: Serve, tmp_path: Path, apart: bool, broken: str) -> dict[str, Any]:
    sandbox = await serve(create_sandbox_app(SandboxSettings(broken=broken)))
    settings = RecordSettings(
        upstream=sandbox, cassette=None, rules=RULES, rule_source=source(tmp_path) if apart else None
    )
    server = RecordProxy(settings)
    runner, spy = await start(server.server, "127.0.0.1", 0)
    try:
        assert isinstance(server.recording.live, CheckWorker) == apart
        await client_session(spy)
        async with aiohttp.ClientSession() as session:
            # A burst, then the findings at once: they must already cover every exchange answered.
            await asyncio.gather(*(burst_request(session, spy, number) for number in range(BURST)))
            async with session.get(f"{spy}/_proxy/findings") as answer:
                document: dict[str, Any] = await answer.json()
        assert document["exchanges"] == server.recording.checked
    finally:
        await runner.cleanup()
    return document


BURST = 300


async def burst_request(session: aiohttp.ClientSession, base: str, number: int) -> None:
    async with session.get(f"{base}/v2/brands?page[limit]=2&page[offset]={number % 7}") as answer:
        await answer.read()


@pytest.mark.parametrize(
    "broken", ["pagination.page.current", "entry.etag.identifies-version", "feature.update.others-kept"]
)
async def test_a_checker_process_finds_what_checking_in_the_proxy_finds(
    serve: Serve, tmp_path: Path, broken: str
) -> None:
    """Same exchanges, same findings, same totals; /_proxy/findings waits for the child's answers."""
    apart = await findings_of(serve, tmp_path, True, broken)
    here = await findings_of(serve, tmp_path, False, broken)
    assert apart["totals"][broken]["severity"] == "error"
    assert without_order(apart) == without_order(here)


async def test_when_the_checker_process_dies_the_proxy_checks_the_rest(
    serve: Serve, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Killed mid-session: nothing handed over is lost, later exchanges are checked, and it is said."""
    sandbox = await serve(create_sandbox_app(SandboxSettings(broken="pagination.page.current")))
    settings = RecordSettings(upstream=sandbox, cassette=None, rules=RULES, rule_source=source(tmp_path))
    server = RecordProxy(settings)
    runner, spy = await start(server.server, "127.0.0.1", 0)
    worker = server.recording.live
    assert isinstance(worker, CheckWorker)
    try:
        await client_session(spy)
        worker.process.kill()
        worker.process.wait()
        with caplog.at_level(logging.WARNING):
            await client_session(spy)
            async with aiohttp.ClientSession() as session, session.get(f"{spy}/_proxy/findings") as answer:
                document = await answer.json()
    finally:
        await runner.cleanup()
    assert "checking goes on in the proxy process" in caplog.text
    requests_made = server.recording.checked
    assert document["exchanges"] == requests_made
    assert document["totals"]["pagination.page.current"]["count"] >= 2  # once in each session


def test_a_synchronous_caller_gets_every_answer_however_many_findings(tmp_path: Path) -> None:
    """No event loop: answers are read as exchanges are handed over, so neither side waits forever."""
    exchanges = [
        make_exchange(
            make_request("GET", "/v2/products", f"page[limit]=abc&n={number}"), body=json_body({"data": "x"})
        )
        for number in range(1200)
    ]
    expected = Checker(RULES).check_all(exchanges)
    worker = CheckWorker(source(tmp_path), lambda: Checker(RULES))
    reported: list[Finding] = []
    worker.follow(lambda checked: reported.extend(checked.findings))
    for number, exchange in enumerate(exchanges):
        worker.check(exchange, number)
    worker.close()
    assert worker.process.returncode == 0
    assert worker.log.exchanges == len(exchanges)
    assert sorted(reported, key=repr) == sorted(expected, key=repr)


@pytest.mark.skipif(not hasattr(fcntl, "F_GETPIPE_SZ"), reason="pipe sizes are Linux's")
def test_both_pipes_have_room_for_a_large_exchange_in_one_write(tmp_path: Path) -> None:
    """At Linux's default 64 KiB, one 64 KB answer filled the pipe to the checker: a write and a wake-up
    of the child per 64 KiB. The pipes get PIPE_BYTES where the system allows that much."""
    allowed = int(Path("/proc/sys/fs/pipe-max-size").read_text())
    worker = CheckWorker(source(tmp_path), lambda: Checker(RULES))
    try:
        for fd in (worker._to_child, worker._from_child):
            assert fcntl.fcntl(fd, fcntl.F_GETPIPE_SZ) >= min(PIPE_BYTES, allowed)
    finally:
        worker.close()
    assert worker.process.returncode == 0


def test_a_follower_is_told_of_every_exchange_with_its_findings_in_either_process(tmp_path: Path) -> None:
    """`follow` is the one public way to watch live checking (the plugin, a live report, a live UI):
    each exchange checked, those without findings too, in order, with the exchange itself, whether
    the rules run in the checker process or in this one."""
    exchanges = [
        make_exchange(
            make_request("GET", "/v2/products", f"page[limit]={limit}&n={number}"),
            body=json_body({"data": []}),
        )
        for number, limit in enumerate(["abc", "10", "x", "25", "-1", "5"])
    ]
    checker = Checker(RULES)
    expected = [checker.check(exchange, number) for number, exchange in enumerate(exchanges)]
    for live in (CheckWorker(source(tmp_path), lambda: Checker(RULES)), LiveChecker(Checker(RULES))):
        told: list[Checked] = []
        live.follow(told.append)
        for number, exchange in enumerate(exchanges):
            live.check(exchange, number)
        if isinstance(live, CheckWorker):
            live.close()
        assert [checked.sequence for checked in told] == list(range(len(exchanges)))
        assert [checked.exchange for checked in told] == exchanges
        assert [sorted(checked.findings, key=repr) for checked in told] == [
            sorted(findings, key=repr) for findings in expected
        ]


SECRET = "sk-live-5f3a9c27e1b84d6f"


def exchanges_quoting(secret: str, count: int) -> list[Exchange]:
    """Exchanges whose findings' lines quote their query, which holds `secret`."""
    limits = ["abc", "10", "-1", "x"]
    return [
        make_exchange(
            make_request("GET", "/v2/products", f"page[limit]={limits[number % 4]}&key={secret}&n={number}"),
            body=json_body({"data": []}),
        )
        for number in range(count)
    ]


def lines_of(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("commerce-proxy: ")]


@pytest.mark.parametrize("learned", ["before", "after"])
@pytest.mark.parametrize("level", [logging.INFO, logging.WARNING, logging.ERROR])
def test_each_finding_is_one_line_at_the_level_scrubbed_by_what_the_proxy_knows_when_it_is_written(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], level: int, learned: str
) -> None:
    """`record` and `spy` write the findings' lines of each batch of answers at once, not as log
    records: each finding at or above the command's level is one line on stderr, in the command's
    format, none twice, none lost, and scrubbed of a secret the proxy learned before the line was
    written, however late after the exchange was handed over to the checker (a later exchange taught it)."""
    exchanges = exchanges_quoting(SECRET, 4)
    checker = Checker(RULES)
    expected = [finding for number, one in enumerate(exchanges) for finding in checker.check(one, number)]
    logging.getLogger(engine.__name__).setLevel(level)
    try:
        worker = CheckWorker(source(tmp_path), lambda: Checker(RULES), lines_direct=True)
        if learned == "before":
            KNOWN.add([SECRET])
        for number, exchange in enumerate(exchanges):
            worker.check(exchange, number)
        if learned == "after":
            KNOWN.add([SECRET])  # handed over already: the checker never knew it
        worker.close()
    finally:
        logging.getLogger(engine.__name__).setLevel(logging.NOTSET)
    lines = lines_of(capfd.readouterr().err)
    shown = [finding for finding in expected if engine.LOG_LEVELS[finding.severity] >= level]
    assert shown, "the table needs findings at this level"
    assert len(lines) == len(shown)
    for line, finding in zip(lines, shown, strict=True):
        assert line.startswith(f"commerce-proxy: {finding.severity} {finding.rule} {finding.number} GET ")
        assert SECRET not in line and PLACEHOLDER in line
    assert worker.log.exchanges == len(exchanges)


def test_a_follower_that_shows_the_findings_silences_their_lines(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    worker = CheckWorker(source(tmp_path), lambda: Checker(RULES), lines_direct=True)
    worker.follow(lambda checked: None, quiet=True)
    for number, exchange in enumerate(exchanges_quoting("x", 4)):
        worker.check(exchange, number)
    worker.close()
    assert lines_of(capfd.readouterr().err) == []
    assert worker.log.exchanges == 4


@pytest.mark.parametrize("after", [1, 7, 30])
async def test_a_checker_that_dies_leaves_each_finding_one_line_none_twice_none_lost(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture, after: int
) -> None:
    """Killed once `after` exchanges were answered: the lines written for what it answered and the
    take-over's own log lines for the rest hold every finding once."""
    exchanges = exchanges_quoting("x", 60)
    checker = Checker(RULES)
    expected = [finding for number, one in enumerate(exchanges) for finding in checker.check(one, number)]
    findings_log = logging.getLogger(engine.__name__)
    findings_log.setLevel(logging.INFO)
    findings_log.addHandler(caplog.handler)  # the take-over's records here alone: whatever handler an
    findings_log.propagate = False  # earlier test left on the root would write them to stderr too
    try:
        worker = CheckWorker(source(tmp_path), lambda: Checker(RULES), lines_direct=True)
        for number, exchange in enumerate(exchanges):
            worker.check(exchange, number)
            if number == after:
                for _ in range(500):
                    if worker.log.exchanges >= after:
                        break
                    await asyncio.sleep(0.01)
                worker.process.kill()
        await worker.caught_up()
        worker.close()
    finally:
        findings_log.setLevel(logging.NOTSET)
        findings_log.removeHandler(caplog.handler)
        findings_log.propagate = True
    written = lines_of(capfd.readouterr().err)
    logged = [  # a filter an earlier test left on caplog's handler may have prefixed them already
        f"commerce-proxy: {record.getMessage().removeprefix('commerce-proxy: ')}"
        for record in caplog.records
        if record.name == engine.__name__
    ]
    heads = sorted(" ".join(line.split()[1:4]) for line in written + logged)
    assert heads == sorted(f"{finding.severity} {finding.rule} {finding.number}" for finding in expected)
    assert worker.log.exchanges == len(exchanges)


@pytest.mark.parametrize("piece", [1, 3, 7, 64, 4096, 1 << 20])
def test_frames_come_whole_and_in_order_however_the_pipe_cuts_them(piece: int) -> None:
    """The checker reads as much as the pipe holds and answers every whole frame of it at once: a frame
    cut anywhere by the pipe is taken whole once the rest comes, in order, none lost, none made up."""
    payloads = [
        bytes([number % 251]) * size for number, size in enumerate([0, 1, 3, 5000, 70_000, 2, 1 << 17])
    ]
    stream = b"".join(FRAME.pack(len(payload)) + payload for payload in payloads)
    read_end, write_end = os.pipe()

    def write() -> None:
        with os.fdopen(write_end, "wb", buffering=0) as pipe:
            for start in range(0, len(stream), piece):
                pipe.write(stream[start : start + piece])

    writer = threading.Thread(target=write)
    writer.start()
    try:
        with os.fdopen(read_end, "rb") as inbox:  # as the checker reads its stdin
            got = [payload for batch in _frames(inbox) for payload in batch]
    finally:
        writer.join()
    assert got == payloads


@pytest.mark.parametrize("room", [1, 5, 4096, 65536])
def test_frames_handed_over_reach_the_pipe_whole_and_in_order_however_little_it_takes(room: int) -> None:
    """The frames waiting for the checker go out many at a time; a pipe that takes `room` bytes a turn
    cuts a frame anywhere, and the rest follows from where it stopped, in order."""
    payloads = [
        bytes([number % 251]) * size for number, size in enumerate([1, 3, 5000, 70_000, 2, 1 << 17, 9])
    ]
    outbox = Outbox()
    for payload in payloads:
        outbox.add(payload)
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    got = bytearray()
    try:
        while outbox:
            with contextlib.suppress(BlockingIOError):
                outbox.write_to(write_end)
            while len(got) < sum(FRAME.size + len(payload) for payload in payloads) - outbox.size:
                got += os.read(read_end, room)
    finally:
        os.close(read_end)
        os.close(write_end)
    assert outbox.size == 0
    assert bytes(got) == b"".join(FRAME.pack(len(payload)) + payload for payload in payloads)


@pytest.mark.parametrize("cassette", ["rec.yaml", None])
async def test_with_a_page_open_the_checker_process_makes_the_ui_entries(
    serve: Serve, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cassette: str | None
) -> None:
    """Once the UI's view is made, each exchange's index entry comes from the checker's process (the
    proxy's loop no longer makes and packs it); before, and for what was handed over before, the proxy
    makes it. Every exchange is indexed once either way, in order."""
    from proxy.app.checker_entries import CheckerEntry
    from proxy.app.record_setup import shipped_rules_in_force
    from proxy.cli.serving import live_ui_on

    used: list[int] = []
    made_by_the_child = CheckerEntry.prepared

    def counted(self: CheckerEntry, texts: tuple[str, str]) -> Any:
        used.append(self.row[1])
        return made_by_the_child(self, texts)

    monkeypatch.setattr(CheckerEntry, "prepared", counted)
    sandbox = await serve(create_sandbox_app(SandboxSettings()))
    settings = RecordSettings(upstream=sandbox, cassette=None, rules=RULES, rule_source=source(tmp_path))
    server = RecordProxy(settings)
    runner, url = await start(server.server, "127.0.0.1", 0)
    assert isinstance(server.recording.live, CheckWorker)
    ui = live_ui_on("record" if cassette else "spy", server, shipped_rules_in_force(), [], cassette)
    try:
        async with aiohttp.ClientSession() as session:
            await asyncio.gather(*(burst_request(session, url, number) for number in range(20)))
            view = ui.view()  # the first UI request makes it
            assert view is not None
            await asyncio.gather(*(burst_request(session, url, number) for number in range(20, 120)))
        await server.recording.live.caught_up()
        await asyncio.to_thread(ui.settled, 10)
        rows = view.window(Query(), 0, 500, wait=True)["exchanges"]
    finally:
        await runner.cleanup()
    assert [row["id"] for row in rows] == list(range(1, 121))
    assert [row["index"] for row in rows] == (list(range(120)) if cassette else [None] * 120)  # spy: none
    assert {row["cassette"] for row in rows} == {cassette}
    assert 90 <= len(used) <= 100, len(used)  # of the 100 after the view was made (a few were in flight)
    assert cassette is None or set(used) <= set(range(20, 120))
