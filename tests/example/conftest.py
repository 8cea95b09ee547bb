"""The example suite's one piece of set-up: where `commerce_record` records from.

A real project passes `--commerce-upstream https://staging.example` (or sets commerce_upstream in its
ini file) and needs no conftest at all. This suite records from the local sandbox instead, started only
when a test really records (never under CI=true, whose record mode is none), on the port the
cassettes were recorded from when it is free: re-recording an unchanged sandbox then changes no byte.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from proxy.sandbox.app import SandboxSettings, create_sandbox_app
from proxy.server.background import BackgroundServer

SANDBOX_PORT = 43645  # the `upstream:` port of the cassettes below


@pytest.fixture(scope="session")
def commerce_upstream() -> Iterator[str]:
    server = BackgroundServer(lambda: create_sandbox_app(SandboxSettings()), port=SANDBOX_PORT)
    try:
        url = server.start()
    except OSError:  # taken: any free port (the cassettes' `upstream:` line then changes)
        server = BackgroundServer(lambda: create_sandbox_app(SandboxSettings()))
        url = server.start()
    yield url
    server.stop()
