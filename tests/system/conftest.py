"""Fixtures of the pytest plugin's system tests: an empty user project, a sandbox to record from."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from proxy.sandbox.app import SandboxSettings, create_sandbox_app
from proxy.server.background import BackgroundServer
from tests.system.plugin_suite import HELPERS


@pytest.fixture
def suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """An empty user project: asyncio auto mode, plugin_suite.HELPERS as helpers.py, not under CI unless a test says."""
    monkeypatch.delenv("CI", raising=False)
    pytester.makeini("[pytest]\nasyncio_mode = auto\nasyncio_default_fixture_loop_scope = function\n")
    pytester.makepyfile(helpers=HELPERS)
    return pytester


@pytest.fixture
def sandbox() -> Iterator[str]:
    server = BackgroundServer(lambda: create_sandbox_app(SandboxSettings()))
    yield server.start()
    server.stop()
