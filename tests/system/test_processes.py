"""`record` as a real process: graceful stop on signals, and nothing acknowledged lost on kill -9."""

from __future__ import annotations

import asyncio
import json
import signal
import sys
import time
from pathlib import Path

import aiohttp
import pytest
from yarl import URL

from proxy.store.cassette_reader.loading import read_cassette_file
from proxy.store.journal import journal_path
from proxy.store.shipped import shipped_dir
from tests.conftest import Serve, sandbox_token
from tests.integration.server.upstream import SLOW_STARTED, create_upstream_app
from tests.reliability.figures import write_figure
from tests.running import commerce_proxy, stop_with

LOAD_CLIENTS = 64
ACKNOWLEDGED_BEFORE_KILL = 1000
LOAD_REQUEST_CAP = 20_000
LOAD_SECONDS_CAP = 60.0


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
async def test_signal_finishes_in_flight_writes_the_cassette_and_exits_0(
    serve: Serve, tmp_path: Path, signum: int
) -> None:
    """A signal during a slow request: the client still gets its answer, then the cassette is written."""
    app = create_upstream_app()
    upstream = await serve(app)
    cassette = tmp_path / "c.yaml"
    async with (
        commerce_proxy("record", "--upstream", upstream, "--cassette", str(cassette)) as running,
        aiohttp.ClientSession() as session,
    ):
        async with session.get(f"{running.url}/fast") as answer:
            assert answer.status == 200
        slow = asyncio.ensure_future(session.get(f"{running.url}/slow"))
        await asyncio.wait_for(app[SLOW_STARTED].wait(), 10)  # in flight at the upstream
        code, err = await stop_with(running, signum)
        answer = await slow
        assert answer.status == 200 and await answer.json() == {"slow": True}
    assert code == 0, err
    assert "wrote" in err and "2 exchanges" in err
    assert [e.request.path for e in read_cassette_file(cassette).exchanges] == ["/fast", "/slow"]
    assert not journal_path(cassette).exists()


@pytest.mark.serial
async def test_kill_9_under_load_loses_no_acknowledged_exchange(serve: Serve, tmp_path: Path) -> None:
    """64 clients, kill -9 after 1,000+ answers: `check` recovers every answered exchange."""
    upstream = await serve(create_upstream_app())
    cassette = tmp_path / "load.yaml"
    acknowledged: set[str] = set()
    sent = 0
    started = time.monotonic()
    async with commerce_proxy(
        "record", "--upstream", upstream, "--cassette", str(cassette), "--quiet"
    ) as running:
        enough = asyncio.Event()

        async def client(number: int, session: aiohttp.ClientSession) -> None:
            nonlocal sent
            while sent < LOAD_REQUEST_CAP and time.monotonic() - started < LOAD_SECONDS_CAP:
                sent += 1
                request_id = f"c{number}-{sent}"
                try:
                    async with session.get(f"{running.url}/load/{request_id}") as answer:
                        await answer.read()
                        if answer.status == 200:
                            acknowledged.add(request_id)
                except aiohttp.ClientError:
                    return  # the proxy is gone
                if len(acknowledged) >= ACKNOWLEDGED_BEFORE_KILL:
                    enough.set()

        connector = aiohttp.TCPConnector(limit=LOAD_CLIENTS)
        async with aiohttp.ClientSession(connector=connector) as session:
            clients = [asyncio.ensure_future(client(n, session)) for n in range(LOAD_CLIENTS)]
            await asyncio.wait_for(enough.wait(), LOAD_SECONDS_CAP)
            running.process.kill()  # SIGKILL while requests are still in flight
            await running.process.wait()
            await asyncio.gather(*clients)
    assert len(acknowledged) >= ACKNOWLEDGED_BEFORE_KILL
    assert journal_path(cassette).exists()
    check = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "proxy",
        "check",
        str(cassette),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await check.communicate()
    assert check.returncode == 0, err.decode()
    assert "recovered" in err.decode() and "did not stop cleanly" in err.decode()
    recorded = [e.request.path.rsplit("/", 1)[1] for e in read_cassette_file(cassette).exchanges]
    assert len(recorded) == len(set(recorded)), "an exchange was recorded twice"
    assert acknowledged <= set(recorded), f"{len(acknowledged - set(recorded))} acknowledged exchanges lost"
    assert f"{len(recorded)} exchanges" in out.decode()
    assert not journal_path(cassette).exists()
    print(f"kill -9 figures: {sent} sent, {len(acknowledged)} acknowledged, {len(recorded)} recovered")
    lost = len(acknowledged - set(recorded))
    write_figure(
        "kill_9_acknowledged_lost", lost, "acknowledged exchanges lost to `kill -9` under 64-client load"
    )


async def test_spy_in_front_of_a_broken_sandbox_prints_and_serves_findings() -> None:
    """`sandbox --break RULE` and `spy` as processes: one stderr line per finding, JSON at /_proxy/findings."""
    async with (
        commerce_proxy("sandbox", "--break", "pagination.page.current") as sandbox,
        commerce_proxy("spy", "--upstream", sandbox.url) as spy,
        aiohttp.ClientSession() as session,
    ):
        token = await sandbox_token(session, spy.url)
        async with session.get(
            f"{spy.url}/v2/brands", headers={"Authorization": f"Bearer {token}"}
        ) as answer:
            assert answer.status == 200
        async with session.get(f"{spy.url}/_proxy/findings") as answer:
            findings = await answer.json()
        code, err = await stop_with(spy, signal.SIGTERM)
    assert code == 0, err
    assert findings["exchanges"] == 2
    errors = {(f["rule"], f["path"]) for f in findings["findings"] if f["severity"] == "error"}
    assert ("pagination.page.current", "/v2/brands") in errors
    prefix = "commerce-proxy: error pagination.page.current #"
    lines = [line for line in err.splitlines() if line.startswith(prefix)]
    assert len(lines) == 1 and lines[0].startswith(f"{prefix}1 GET /v2/brands: ")
    # one wrong current page is one finding (the page count it exceeds is no second fact)
    assert (
        "commerce-proxy: checked 2 exchanges: 1 error, 0 warnings, 0 info (pagination.page.current 1x)" in err
    )
    assert token not in err


async def test_record_summarises_its_findings_at_stop(tmp_path: Path) -> None:
    """`record` logs each finding as it comes, and at stop one line of counts with the rules that
    found most, errors first."""
    cassette = tmp_path / "c.yaml"
    async with (
        commerce_proxy("sandbox", "--break", "pagination.page.current") as sandbox,
        commerce_proxy("record", "--upstream", sandbox.url, "--cassette", str(cassette)) as record,
        aiohttp.ClientSession() as session,
    ):
        token = await sandbox_token(session, record.url)
        for _ in range(2):
            async with session.get(f"{record.url}/v2/brands", headers={"Authorization": f"Bearer {token}"}):
                pass
        code, err = await stop_with(record, signal.SIGTERM)
    assert code == 0, err
    summary = [line for line in err.splitlines() if line.startswith("commerce-proxy: checked 3 exchanges: ")]
    assert len(summary) == 1 and ": 2 errors, 0 warnings, 0 info " in summary[0]
    assert "(pagination.page.current 2x" in summary[0]


async def test_replay_simulates_reports_usage_and_injects_faults_as_a_process(tmp_path: Path) -> None:
    """`replay --simulate --usage-report F --fault ...` from the command line, on the shipped walk."""
    walk = shipped_dir("cassettes") / "pagination-walk.yaml"
    report = tmp_path / "usage.json"
    arguments = ["replay", "--simulate", "--cassette", str(walk), "--usage-report", str(report)]
    arguments += [
        "--fault",
        "503:100%:GET /v2/brands*",
        "--cassette-dir",
        str(walk.parent),
        "--latency",
        "300",
    ]
    async with commerce_proxy(*arguments) as replay, aiohttp.ClientSession() as session:
        headers = {"Authorization": "Bearer anything"}
        # A token-less list: the walk's cassette did not record one, so the simulator refuses it;
        # the demo cassette, chosen by header, recorded one and answers from its recording.
        for chosen, marked in (({}, "simulated"), ({"X-Commerce-Cassette": "demo-session"}, None)):
            started = time.monotonic()
            async with session.get(f"{replay.url}/v2/products", headers=chosen) as answer:
                assert (answer.status, answer.headers.get("X-Commerce-Proxy")) == (401, marked)
            assert time.monotonic() - started >= 0.3  # --latency 300 (a lower bound only)
        target = "/v2/products?page[limit]=4&page[offset]=3&page[total_method]=exact"
        async with session.get(URL(replay.url + target, encoded=True), headers=headers) as answer:
            assert answer.status == 200
            assert answer.headers["X-Commerce-Proxy"] == "simulated"
            page = await answer.json()
        async with session.get(f"{replay.url}/v2/brands", headers=headers) as answer:
            assert (answer.status, answer.headers["X-Commerce-Proxy"]) == (503, "fault")
        code, err = await stop_with(replay, signal.SIGTERM)
    assert code == 0, err
    assert [record["name"] for record in page["data"]] == [f"product {n}" for n in range(4, 8)]
    # Asked for exact, the recording of that request got lower_bound (rule 6): the simulation copies it.
    assert page["meta"]["results"] == {"total": 10000, "all": 10300, "total_method": "lower_bound"}
    usage = json.loads(report.read_text())
    assert usage["requests"] == {"recorded": 1, "simulated": 2, "missed": 0}
    cassette, demo = usage["cassettes"]
    assert demo["cassette"].endswith("demo-session.yaml") and demo["used"] == 1
    assert cassette["used"] == 1  # the first recorded page held records 3-6 and is the model
    assert "simulated: GET /v2/products?page[limit]=4" in err
    total = cassette["exchanges"] + demo["exchanges"]
    assert f"usage: 2 of {total} recorded exchanges used; 1 requests answered from recordings" in err


async def test_record_applies_the_redaction_settings_of_the_project_config(
    serve: Serve, tmp_path: Path
) -> None:
    """`[tool.commerce-proxy.redact]` headers and JSON paths are redacted by `record` before writing."""
    upstream = await serve(create_upstream_app())
    config = tmp_path / "pyproject.toml"
    config.write_text(
        '[tool.commerce-proxy.redact]\nheaders = ["X-Shop-Secret"]\njson_paths = ["data.email"]\n'
    )
    cassette = tmp_path / "c.yaml"
    async with (
        commerce_proxy(
            "record", "--upstream", upstream, "--cassette", str(cassette), "--config", str(config)
        ) as running,
        aiohttp.ClientSession() as session,
    ):
        sent = {"data": {"email": "carol@example.com", "name": "Carol"}}
        headers = {"X-Shop-Secret": "shop-SECRET-31337"}
        async with session.post(f"{running.url}/echo", json=sent, headers=headers) as answer:
            assert answer.status == 200
        code, err = await stop_with(running, signal.SIGINT)
    assert code == 0, err
    raw = cassette.read_bytes()
    assert b"shop-SECRET-31337" not in raw and b"carol@example.com" not in raw
    assert b"Carol" in raw and b"X-Shop-Secret: <redacted>" in raw
