"""The remedies `max_age`'s message gives clear it, without churn: re-recording (`record --mode all`)
and a clean `verify --update` confirm a cassette in one top-level line, `confirmed_at`, which `check`
and `cassette list --stale` count; the same day they change no byte, a later day one line; plain
`verify`, and a `verify --update` that left writes unsent, confirm nothing. End to end: the sandbox and
`record` as real processes on 127.0.0.1, the other commands as the command line runs them, the days
set through COMMERCE_PROXY_NOW."""

from __future__ import annotations

import asyncio
import difflib
import json
import signal
import urllib.parse
import urllib.request
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from proxy.cli.main import main
from tests.running import commerce_proxy, stop_with

DAY0 = "2026-01-10T12:00:00Z"  # the first recording
DAY0_LATER = "2026-01-10T18:00:00Z"
LATER = "2026-04-20T12:00:00Z"  # 100 days on: past a max_age of 90d
LATER_AGAIN = "2026-04-20T20:00:00Z"
NEXT_DAY = "2026-04-21T09:00:00Z"
FEATURE = "/v2/subscriptions/features/3f8e2a4c-9b1d-4c6e-8f0a-1b2c3d4e5f60"
CREDENTIALS = ["--client-id", "sandbox-client", "--client-secret", "sandbox-secret"]
READS = ("/v2/brands", "/v2/products?page%5Blimit%5D=3", "/v2/collections")


def call(base: str, method: str, target: str, token: str | None = None, body: Any = None) -> Any:
    data = json.dumps(body).encode() if body is not None else None
    headers = {"Content-Type": "application/json"} if data else {}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(base + target, data=data, headers=headers, method=method)
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.loads(answer.read())


def session(url: str, write: bool) -> None:
    """A token, three lists, and (`write`) a feature update the sandbox answers the same each time."""
    form = urllib.parse.urlencode(
        {"grant_type": "client_credentials", "client_id": "sandbox-client", "client_secret": "sandbox-secret"}
    ).encode()
    with urllib.request.urlopen(url + "/oauth/access_token", data=form, timeout=10) as answer:
        token = json.loads(answer.read())["access_token"]
    for target in READS:
        call(url, "GET", target, token)
    if write:
        update = {
            "data": {
                "id": FEATURE.rsplit("/", 1)[1],
                "type": "subscription_feature",
                "attributes": {"name": "Gold"},
            }
        }
        call(url, "PUT", FEATURE, token, update)


@pytest.fixture
async def sandbox() -> AsyncIterator[str]:
    async with commerce_proxy("sandbox") as running:
        yield running.url


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "commerce-proxy.yaml").write_text("max_age: 90d\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


async def record(
    monkeypatch: pytest.MonkeyPatch, cassette: Path, upstream: str, mode: str, now: str, write: bool = False
) -> None:
    """`commerce-proxy record` as a process, on the day `now`, through one session, stopped by Ctrl-C."""
    monkeypatch.setenv("COMMERCE_PROXY_NOW", now)
    async with commerce_proxy(
        "record", "--upstream", upstream, "--cassette", str(cassette), "--mode", mode
    ) as running:
        session(running.url, write)
        code, err = await stop_with(running, signal.SIGINT)
    assert code == 0, err


async def verify(upstream: str, *more: str) -> int:
    """`commerce-proxy verify session.yaml` (it runs its own event loop: on a thread of its own here)."""
    return await asyncio.to_thread(
        main, ["verify", "session.yaml", "--upstream", upstream, *CREDENTIALS, *more]
    )


def changed_lines(before: bytes, after: bytes) -> tuple[list[str], list[str]]:
    """The lines removed and added from `before` to `after` (what `git diff` shows)."""
    removed, added = [], []
    for line in difflib.ndiff(before.decode().splitlines(), after.decode().splitlines()):
        if line.startswith("- "):
            removed.append(line[2:])
        elif line.startswith("+ "):
            added.append(line[2:])
    return removed, added


def stale(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, now: str) -> tuple[int, int]:
    """On the day `now`: how many max_age findings `check` reports, and how many exchanges
    `cassette list --stale` lists."""
    monkeypatch.setenv("COMMERCE_PROXY_NOW", now)
    capsys.readouterr()
    main(["check", "--format", "json", "session.yaml"])
    findings = json.loads(capsys.readouterr().out)["findings"]
    assert main(["cassette", "list", "session.yaml", "--stale", "--format", "json"]) == 0
    listed = json.loads(capsys.readouterr().out)["exchanges"]
    return sum(1 for item in findings if item["rule"] == "cassette.max-age"), len(listed)


async def test_re_recording_confirms_in_one_line_a_day_and_clears_max_age(
    project: Path, sandbox: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    cassette = project / "session.yaml"
    await record(monkeypatch, cassette, sandbox, "once", DAY0)
    first = cassette.read_bytes()
    assert b"confirmed_at" not in first  # a first recording needs no confirmation
    await record(monkeypatch, cassette, sandbox, "all", DAY0_LATER)
    assert cassette.read_bytes() == first  # the same day: git diff stays empty
    assert stale(capsys, monkeypatch, LATER) == (4, 4)  # the token request and three lists

    await record(monkeypatch, cassette, sandbox, "all", LATER)
    confirmed = cassette.read_bytes()
    assert changed_lines(first, confirmed) == ([], ["confirmed_at: '2026-04-20'"])
    assert stale(capsys, monkeypatch, LATER) == (0, 0)
    assert stale(capsys, monkeypatch, "2026-07-25T12:00:00Z") == (4, 4)  # 96 days after the confirmation

    await record(monkeypatch, cassette, sandbox, "all", LATER_AGAIN)
    assert cassette.read_bytes() == confirmed
    await record(monkeypatch, cassette, sandbox, "all", NEXT_DAY)
    assert changed_lines(confirmed, cassette.read_bytes()) == (
        ["confirmed_at: '2026-04-20'"],
        ["confirmed_at: '2026-04-21'"],
    )


async def test_a_clean_verify_update_confirms_and_plain_verify_writes_nothing(
    project: Path, sandbox: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    cassette = project / "session.yaml"
    await record(monkeypatch, cassette, sandbox, "once", DAY0)
    first = cassette.read_bytes()
    monkeypatch.setenv("COMMERCE_PROXY_NOW", LATER)
    assert await verify(sandbox) == 0
    assert cassette.read_bytes() == first  # plain verify writes nothing
    assert stale(capsys, monkeypatch, LATER) == (4, 4)

    assert await verify(sandbox, "--update") == 0
    err = capsys.readouterr().err
    assert "every recording confirmed: confirmed_at 2026-04-20" in err, err
    confirmed = cassette.read_bytes()
    assert changed_lines(first, confirmed) == ([], ["confirmed_at: '2026-04-20'"])
    assert stale(capsys, monkeypatch, LATER) == (0, 0)

    monkeypatch.setenv("COMMERCE_PROXY_NOW", LATER_AGAIN)
    assert await verify(sandbox, "--update") == 0
    assert cassette.read_bytes() == confirmed  # the same day: no change


async def test_verify_update_that_left_writes_unsent_confirms_nothing_and_says_so(
    project: Path, sandbox: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    cassette = project / "session.yaml"
    await record(monkeypatch, cassette, sandbox, "once", DAY0, write=True)
    first = cassette.read_bytes()
    monkeypatch.setenv("COMMERCE_PROXY_NOW", LATER)
    capsys.readouterr()
    assert await verify(sandbox, "--update") == 0
    err = capsys.readouterr().err
    assert "not confirmed" in err and "1 exchange not re-sent" in err and "--writes" in err, err
    assert cassette.read_bytes() == first
    assert stale(capsys, monkeypatch, LATER) == (5, 5)

    monkeypatch.setenv("COMMERCE_PROXY_NOW", LATER)
    assert await verify(sandbox, "--update", "--writes") == 0
    assert changed_lines(first, cassette.read_bytes()) == ([], ["confirmed_at: '2026-04-20'"])
    assert stale(capsys, monkeypatch, LATER) == (0, 0)
