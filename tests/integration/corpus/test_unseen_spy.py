"""The unseen traffic as a new user meets it: one fresh `commerce-proxy spy` per exchange group, in front
of a tiny upstream on 127.0.0.1 that answers what the source recorded; the recorded requests go through
the spy, which is stopped by SIGINT, and its JSON report holds exactly the classified findings."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from proxy.core.model.exchange import Exchange
from tests.integration.corpus.unseen_corpus import CORPUS

DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback only, never a proxy
TOKEN = "Bearer 3f1c0e9a2b"  # the spy refuses the cassettes' <redacted> placeholder, as it should
READY = re.compile(r"listening on (http://127\.0\.0\.1:\d+)")
SPIED = [
    "RB brands, page[limit]=10: results.total is the page size",
    "RB categories, page[offset]=10 alone: the rest, its total the records left",
    "RB categories, sort=name (LED before Lab)",
    "RB files, page[limit]=10: a prev link on page 1",
    "RB products, filter=has(name,2017): meta.counts",
    "RB orders, 52 with neither links nor meta, then one order's transactions",
    "CLI customers, empty list: negative offsets, prev and next on the only page",
    "JS products, 429 then 404",
    "EPC feature: created, read, its description updated, listed",
    "EPC feature update refused: 400 Validation Error (a tag with a space)",
    "DEV wishlist entry: created, read, updated with If-Match, read again",
    "DEV wishlist entry read without etag_id (the page's GET example)",
]


def _body(value: object) -> bytes:
    return b"" if value is None else json.dumps(value).encode()


@contextmanager
def upstream(exchanges: list[Exchange]) -> Iterator[str]:
    """Answers the recorded responses, one per request, in the recorded order."""
    answers = iter([exchange.response for exchange in exchanges])

    class Recorded(BaseHTTPRequestHandler):
        def answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            self.rfile.read(length)
            response = next(answers)
            payload = _body(response.body.value)
            self.send_response(response.status)
            for name, value in response.headers:
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        do_GET = do_POST = do_PUT = do_DELETE = answer

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Recorded)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def send(base: str, exchange: Exchange) -> None:
    request = exchange.request
    url = f"{base}{request.path}" + (f"?{request.query}" if request.query else "")
    data = None if request.body.value is None else _body(request.body.value)
    headers = {name: TOKEN if value == "Bearer <redacted>" else value for name, value in request.headers}
    sent = urllib.request.Request(url, data=data, method=request.method, headers=headers)
    if data is not None and "Content-Type" not in sent.headers:
        sent.add_header("Content-Type", "application/json")
    try:
        with DIRECT.open(sent, timeout=30) as answer:
            answer.read()
    except urllib.error.HTTPError as refused:
        refused.read()


def spy_findings(exchanges: list[Exchange], report: Path) -> list[tuple[int, str, str]]:
    with upstream(exchanges) as origin:
        command = [sys.executable, "-m", "proxy", "spy", "--upstream", origin, "--port", "0"]
        spy = subprocess.Popen(
            [*command, "--format", "json", "-o", str(report)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        try:
            assert spy.stdout is not None
            ready = READY.search(spy.stdout.readline())
            assert ready, "spy did not say where it listens"
            for exchange in exchanges:
                send(ready[1], exchange)
        finally:
            os.kill(spy.pid, signal.SIGINT)
            _, errors = spy.communicate(timeout=60)  # bounded: a spy that does not stop fails here
        assert spy.returncode == 0, errors
    found = json.loads(report.read_text())["findings"]
    return sorted((f["exchange"], f["rule"], f["where"]) for f in found)


@pytest.mark.parametrize("name", SPIED)
def test_a_fresh_spy_reports_exactly_the_classified_findings(name: str, tmp_path: Path) -> None:
    example = CORPUS[name]
    expected = sorted((number, rule, where) for number, rule, where, _ in example.findings)
    assert spy_findings(example.exchanges, tmp_path / "report.json") == expected, example.source
