"""The pytest plugin's network guard: in a test that uses a commerce fixture or marker, a connection to
any host but this machine fails at once, inside the test, naming the host and the test, so a suite
replaying in CI never waits on the network (on by default whenever the record mode is none, which
CI implies; `--commerce-block-network`, `--commerce-allow-host HOST`).

The guard itself is `network_core` (an audit hook: every socket's connect, datagrams, name look-ups;
sends on connections opened before the test). While it is on, PYTHONPATH starts with
`network_bootstrap/`, so each Python process the test starts guards itself the same way.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from proxy.pytest_plugin.network_core import ENVIRONMENT, activate, deactivate, environment_value
from proxy.pytest_plugin.network_core import NetworkBlocked as NetworkBlocked
from proxy.pytest_plugin.network_core import is_local as is_local
from proxy.pytest_plugin.state import COMMERCE_FIXTURES

CASSETTE_MARKER = "commerce_cassette"  # the plugin's marker: a test with it uses the plugin too
BLOCKING = pytest.StashKey[bool]()  # set by the plugin at configure: whether the guard is on
BOOTSTRAP = Path(__file__).with_name("network_bootstrap")  # first on PYTHONPATH for the test's processes


def add_network_options(group: Any) -> None:
    group.addoption(
        "--commerce-block-network",
        choices=("on", "off", "auto"),
        default="auto",
        help="refuse connections to other hosts in tests using a commerce fixture or marker (auto, the "
        "default: on when the record mode is none, as under CI)",
    )
    group.addoption(
        "--commerce-allow-host",
        metavar="HOST",
        action="append",
        default=[],
        help="a host the network guard lets through (repeatable)",
    )


def configure_network_guard(config: pytest.Config, record_mode: str) -> None:
    choice = config.getoption("commerce_block_network")
    config.stash[BLOCKING] = choice == "on" or (choice == "auto" and record_mode == "none")


@pytest.fixture(autouse=True)
def commerce_network_guard(request: pytest.FixtureRequest) -> Iterator[None]:
    """Guard the network for the test when it uses the plugin and blocking is on."""
    uses_plugin = bool(COMMERCE_FIXTURES & set(request.fixturenames)) or (
        request.node.get_closest_marker(CASSETTE_MARKER) is not None
    )
    if not uses_plugin or not request.config.stash.get(BLOCKING, False):
        yield
        return
    allowed = frozenset(host.lower() for host in request.config.getoption("commerce_allow_host"))
    test = request.node.nodeid
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(ENVIRONMENT, environment_value(test, allowed))
        patch.setenv("PYTHONPATH", str(BOOTSTRAP), prepend=os.pathsep)
        activate(test, allowed)
        try:
            yield
        finally:
            deactivate()
