"""Re-recording an unchanged service changes no byte of the cassette; a real change stands out."""

from __future__ import annotations

from pathlib import Path

from proxy.app.recording import RecordMode, RecordSettings
from proxy.cli.main import main
from proxy.sandbox.app import SandboxSettings, create_sandbox_app
from proxy.server.record import create_record_app
from proxy.server.serving import start
from proxy.store.cassette_reader.loading import load_cassette
from tests.integration.test_live_conformance import client_session


async def record(cassette: Path, mode: RecordMode, port: int = 0, fresh: bool = False) -> int:
    """The client session through `record`, in front of a sandbox of its own (a new day's service) at
    the same address as before; the sandbox's port."""
    sandbox_runner, sandbox = await start(create_sandbox_app(SandboxSettings()), "127.0.0.1", port)
    settings = RecordSettings(upstream=sandbox, cassette=cassette, mode=mode, fresh=fresh)
    try:
        runner, url = await start(create_record_app(settings), "127.0.0.1", 0)
        try:
            await client_session(url)
        finally:
            await runner.cleanup()
    finally:
        await sandbox_runner.cleanup()
    return int(sandbox.rsplit(":", 1)[1])


async def test_re_recording_an_unchanged_service_changes_no_byte(tmp_path: Path) -> None:
    cassette = tmp_path / "session.yaml"
    port = await record(cassette, "once")
    first = cassette.read_bytes()
    await record(cassette, "all", port)
    assert cassette.read_bytes() == first
    await record(cassette, "all", port, fresh=True)  # everything anew: recording times at least differ
    assert cassette.read_bytes() != first


async def test_only_the_exchange_that_changed_is_written_anew(tmp_path: Path) -> None:
    cassette = tmp_path / "session.yaml"
    port = await record(cassette, "once")
    before = load_cassette(cassette).cassette.exchanges
    index = next(
        number
        for number, exchange in enumerate(before)
        if exchange.request.method == "PUT" and exchange.response.status == 200
    )
    # The cassette says the service answered another name once: the live answer differs there only.
    assert (
        main(
            [
                "cassette",
                "set",
                str(cassette),
                str(index),
                "resp.json.data.attributes.name",
                '"Old"',
                "--no-check",
            ]
        )
        == 0
    )
    edited = load_cassette(cassette).cassette.exchanges
    await record(cassette, "all", port)
    after = load_cassette(cassette).cassette.exchanges
    assert len(after) == len(before)
    changed = [number for number, (old, new) in enumerate(zip(edited, after, strict=True)) if old != new]
    assert changed == [index]
    assert after[index].response.body.value["data"]["attributes"]["name"] != "Old"
