"""Hostile and broken requests to `record` and `replay` as processes, on raw sockets: each gets a clear
4xx (or is handled as what it is), and the proxy goes on serving the next client."""

from __future__ import annotations

import asyncio
import json
import shutil
import signal
from pathlib import Path

from proxy.store.shipped import shipped_dir
from tests.reliability.figures import write_figure
from tests.running import commerce_proxy, stop_with

HOST = b"Host: 127.0.0.1\r\n"
# request bytes: the status the client must get (the connection may then be closed)
MALFORMED: dict[bytes, int] = {
    b"NOT HTTP AT ALL\r\n\r\n": 400,
    b"GET\r\n\r\n": 400,
    b"GET / HTTP/9.9\r\n" + HOST + b"\r\n": 400,
    b"GET /\x00nul HTTP/1.1\r\n" + HOST + b"\r\n": 400,
    b"G@T / HTTP/1.1\r\n" + HOST + b"\r\n": 400,
    b"GET / HTTP/1.1\r\n" + HOST + b"no colon here\r\n\r\n": 400,
    b"GET / HTTP/1.1\r\n" + HOST + b"X-Space : before colon\r\n\r\n": 400,
    b"GET / HTTP/1.1\r\n" + HOST + b"X-Folded: a\r\n b\r\n\r\n": 400,
    b"GET / HTTP/1.1\r\n" + HOST + b"X-Big: " + b"y" * 70_000 + b"\r\n\r\n": 431,
    b"GET / HTTP/1.1\r\n" + HOST + b"".join(b"X-H%d: v\r\n" % n for n in range(10_000)) + b"\r\n": 431,
    b"POST / HTTP/1.1\r\n" + HOST + b"Content-Length: 99999999999\r\n\r\n": 413,
    b"POST / HTTP/1.1\r\n" + HOST + b"Content-Length: -5\r\n\r\n": 400,
    b"POST / HTTP/1.1\r\n" + HOST + b"Content-Length: 3\r\nContent-Length: 4\r\n\r\nabcd": 400,
    b"POST / HTTP/1.1\r\n" + HOST + b"Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n": 400,
    b"POST / HTTP/1.1\r\n" + HOST + b"Transfer-Encoding: chunked\r\n\r\nzz\r\n": 400,
}
NOT_JSON = [b"{not json", b"\xff\xfe\x00binary", b"[" * 5000, b""]


async def answer_to(url: str, raw: bytes) -> tuple[int, bytes]:
    """Send raw bytes to the server at `url`; the status it answers and the body (read to the close or
    the Content-Length)."""
    host, port = url.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    try:
        writer.write(raw)
        await writer.drain()
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 15)
        lines = head.decode("latin-1").split("\r\n")
        length = next(
            (int(line.split(":")[1]) for line in lines if line.lower().startswith("content-length:")), 0
        )
        body = await asyncio.wait_for(reader.readexactly(length), 15)
        return int(lines[0].split()[1]), body
    finally:
        writer.close()


async def still_serving(url: str) -> None:
    status, body = await answer_to(
        url, b"GET /_proxy/health HTTP/1.1\r\n" + HOST + b"Connection: close\r\n\r\n"
    )
    assert status == 200 and json.loads(body)["status"] == "ok"


async def test_hostile_requests_get_clear_answers_and_the_proxies_keep_serving(tmp_path: Path) -> None:
    """Malformed lines and headers, oversized heads and bodies, request smuggling shapes, JSON that is
    not, and cassette names that try to leave the folder, against `record` and `replay`."""
    folder = tmp_path / "cassettes"
    shutil.copytree(shipped_dir("cassettes"), folder)
    (tmp_path / "secret.yaml").write_text("cassette_format: 2\nexchanges: []\n", encoding="utf-8")
    (folder / "link.yaml").symlink_to(tmp_path / "secret.yaml")
    tried = 0
    async with (
        commerce_proxy("sandbox") as sandbox,
        commerce_proxy("record", "--upstream", sandbox.url, "--cassette", str(tmp_path / "r.yaml")) as record,
        commerce_proxy("replay", "--cassette", str(folder)) as replay,
    ):
        for url in (record.url, replay.url):
            for raw, status in MALFORMED.items():
                got, body = await answer_to(url, raw)
                assert got == status, (raw[:60], got, body[:200])
                assert json.loads(body)["errors"], raw[:60]
                await still_serving(url)
                tried += 1
            for content in NOT_JSON:  # forwarded and recorded as what it is, or a replay miss: never a crash
                raw = (
                    b"POST /v2/subscriptions/features/x HTTP/1.1\r\n"
                    + HOST
                    + b"Content-Type: application/json\r\n"
                    b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(content) + content
                )
                got, body = await answer_to(url, raw)
                assert got in ((401, 400, 404) if url == record.url else (404,)), (
                    content[:20],
                    got,
                    body[:200],
                )
                await still_serving(url)
                tried += 1
        for name in (
            "../secret",
            "..%2fsecret",
            "/etc/passwd",
            "team/../../secret",
            "link",
            "a\x01b",
            "x" * 5000,
        ):
            raw = (
                b"GET /v2/brands HTTP/1.1\r\n" + HOST + b"X-Commerce-Cassette: " + name.encode() + b"\r\n\r\n"
            )
            got, body = await answer_to(replay.url, raw)
            assert got == 400, (name[:40], got, body[:300])
            await still_serving(replay.url)
            tried += 1
        code, err = await stop_with(record, signal.SIGINT)
    assert code == 0, err
    recorded = (tmp_path / "r.yaml").read_text(encoding="utf-8")
    assert "text: '{not json'" in recorded and "base64:" in recorded  # recorded as what each body was
    write_figure(
        "hostile_requests", tried, "hostile requests to `record` and `replay`, each answered clearly"
    )
