"""The real servers for the page's browser tests: `commerce-proxy record` (against the sandbox or an
upstream of the test's) and `commerce-proxy ui PATH...`, started as a user starts them, each read from
the address it prints (`ui: http://.../_proxy/ui/?token=T`), stopped with SIGINT after the test."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from proxy.core.model.access import TOKEN_HEADER
from tests.paths import ROOT

UI_LINE = re.compile(r"ui: (http://127\.0\.0\.1:[0-9]+)/_proxy/ui/\?token=([A-Za-z0-9_-]{40,})")
STARTING_SECONDS = 300  # `ui` over 100,000 exchanges indexes them before it listens


@dataclass
class RealServer:
    """A running command: where it serves (the proxy and its UI share the port), its token."""

    base_url: str
    token: str
    process: subprocess.Popen[str]

    @property
    def ui_url(self) -> str:
        return f"{self.base_url}/_proxy/ui/?token={self.token}"

    def api(self, route: str) -> Any:
        """GET /_proxy/ui/api/ROUTE with the token header, as a script would: its JSON."""
        asked = urllib.request.Request(
            f"{self.base_url}/_proxy/ui/api/{route}", headers={TOKEN_HEADER: self.token}
        )
        with urllib.request.urlopen(asked, timeout=30) as answer:
            return json.loads(answer.read())

    def get(self, path: str) -> int:
        """A request through the proxy (record's port): its status, the body read."""
        try:
            with urllib.request.urlopen(f"{self.base_url}{path}", timeout=30) as answer:
                answer.read()
                return int(answer.status)
        except urllib.error.HTTPError as error:
            error.read()
            return int(error.code)


def start(*arguments: str, cwd: Path | None = None) -> RealServer:
    """`commerce-proxy ARGUMENTS --port 0` (in `cwd`, a folder of the test's where it may look for a
    project's config), once it printed its UI address."""
    process = subprocess.Popen(
        [sys.executable, "-m", "proxy", *arguments, "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(ROOT), "COMMERCE_PROXY_UI_TOKEN": ""},
    )
    assert process.stdout is not None
    first = process.stdout.readline()
    second = process.stdout.readline().rstrip("\n")
    found = UI_LINE.fullmatch(second)
    if "listening on" not in first or found is None:
        process.kill()
        process.wait()
        raise AssertionError(f"commerce-proxy {' '.join(arguments)} printed {first!r} then {second!r}")
    return RealServer(found.group(1), found.group(2), process)


def stop(server: RealServer) -> None:
    if server.process.poll() is None:
        server.process.send_signal(signal.SIGINT)
        try:
            server.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.process.kill()
            server.process.wait()
    if server.process.stdout is not None:
        server.process.stdout.close()


@pytest.fixture
def real_server() -> Iterator[Callable[..., RealServer]]:
    """real_server(*arguments) -> RealServer: a real command serving the UI, stopped after the test."""
    started: list[RealServer] = []

    def run(*arguments: str, cwd: Path | None = None) -> RealServer:
        started.append(start(*arguments, cwd=cwd))
        return started[-1]

    yield run
    for server in started:
        stop(server)
