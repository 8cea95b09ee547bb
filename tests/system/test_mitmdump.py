"""A real `mitmdump -s proxy/mitm/addon.py` on 127.0.0.1 recording HTTPS traffic to a TLS sandbox."""

from __future__ import annotations

import asyncio
import signal
import ssl
import sys
from pathlib import Path

import aiohttp
import pytest
from yarl import URL

import proxy.mitm.addon
from proxy.cli.main import main
from proxy.store.cassette_reader.loading import read_cassette_file
from tests.conftest import sandbox_token
from tests.running import free_port

ADDON = Path(proxy.mitm.addon.__file__)
MITMDUMP = Path(sys.executable).with_name("mitmdump")


async def wait_until_listening(port: int, process: asyncio.subprocess.Process) -> None:
    for _ in range(300):  # at most 30 s
        if process.returncode is not None:
            raise AssertionError(f"mitmdump exited with {process.returncode}")
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            await asyncio.sleep(0.1)
            continue
        writer.close()
        await writer.wait_closed()
        return
    raise AssertionError("mitmdump did not start listening within 30 s")


async def test_mitmdump_with_the_addon_records_and_checks_https_traffic(
    tmp_path: Path,
    tls_sandbox: tuple[str, Path],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A client that only knows a forward proxy talks HTTPS through mitmdump; the cassette it leaves is
    redacted, passes `check`, and equals `import-mitm` of the flows mitmdump wrote with -w."""
    monkeypatch.chdir(tmp_path)
    upstream, sandbox_cert = tls_sandbox
    cassette, flows, confdir = tmp_path / "phone.yaml", tmp_path / "flows.mitm", tmp_path / "mitm"
    port = free_port()
    process = await asyncio.create_subprocess_exec(
        str(MITMDUMP),
        "--listen-host", "127.0.0.1",
        "--listen-port", str(port),
        "-s", str(ADDON),
        "--set", f"cassette={cassette}",
        "--set", f"confdir={confdir}",
        "--set", f"ssl_verify_upstream_trusted_ca={sandbox_cert}",
        "-w", str(flows),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )  # fmt: skip
    try:
        await wait_until_listening(port, process)
        client_tls = ssl.create_default_context(cafile=str(confdir / "mitmproxy-ca-cert.pem"))
        proxy_url = f"http://127.0.0.1:{port}"
        connector = aiohttp.TCPConnector(ssl=client_tls)
        async with aiohttp.ClientSession(connector=connector, proxy=proxy_url) as session:
            token = await sandbox_token(session, upstream)
            bearer = {"Authorization": f"Bearer {token}"}
            page = URL(f"{upstream}/v2/products?page[limit]=2", encoded=True)
            async with session.get(page, headers=bearer) as answer:
                assert answer.status == 200
                assert len((await answer.json())["data"]) == 2
            async with session.get(f"{upstream}/v2/products") as answer:
                assert answer.status == 401
    finally:
        if process.returncode is None:
            process.send_signal(signal.SIGINT)
        output, _ = await asyncio.wait_for(process.communicate(), 30)
    log = output.decode()
    assert process.returncode == 0, log
    assert f"commerce-proxy: wrote {cassette}: 3 exchanges" in log
    recorded = read_cassette_file(cassette)
    assert recorded.upstream == upstream
    assert [
        (item.request.method, item.request.target, item.response.status) for item in recorded.exchanges
    ] == [
        ("POST", "/oauth/access_token", 200),
        ("GET", "/v2/products?page[limit]=2", 200),
        ("GET", "/v2/products", 401),
    ]
    raw = cassette.read_bytes()
    assert token.encode() not in raw and b"sandbox-secret" not in raw
    assert main(["check", str(cassette)]) == 0, capsys.readouterr().out
    assert main(["import-mitm", str(flows), "-o", str(tmp_path / "imported.yaml")]) == 0
    assert read_cassette_file(tmp_path / "imported.yaml") == recorded
