"""The pytest plugin's network guard: in a test that uses a commerce fixture or marker, a connection to
any host but this machine fails at once, inside the test, naming the host and the test, so a suite
replaying in CI never waits on the network (on by default whenever the record mode is none, which
CI=true implies; `--commerce-block-network`, `--commerce-allow-host HOST`).

It blocks at the socket: `connect` and `connect_ex` of every socket, and name look-ups, IP literals and
Unix sockets included (loopback and Unix sockets pass).
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Iterator
from typing import Any

import pytest

COMMERCE_FIXTURES = frozenset(
    {"commerce_replay", "commerce_record", "commerce_replay_module", "commerce_record_module"}
)
CASSETTE_MARKER = "commerce_cassette"  # the plugin's marker: a test with it uses the plugin too
LOCAL_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost"})
BLOCKING = pytest.StashKey[bool]()  # set by the plugin at configure: whether the guard is on


class NetworkBlocked(RuntimeError):
    """Not an OSError on purpose: a client's retry loop must not swallow it and wait."""


def add_network_options(group: Any) -> None:
    group.addoption(
        "--commerce-block-network",
        choices=("on", "off", "auto"),
        default="auto",
        help="refuse connections to other hosts in tests using a commerce fixture or marker (auto, the "
        "default: on when the record mode is none, as under CI=true)",
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


def is_local(host: str, allowed: frozenset[str]) -> bool:
    """Loopback (127.0.0.0/8, ::1), localhost, or a host the user allowed."""
    name = host.strip("[]").lower()
    if name in LOCAL_NAMES or name in allowed:
        return True
    try:
        return ipaddress.ip_address(name.split("%", 1)[0]).is_loopback
    except ValueError:
        return False


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
    with pytest.MonkeyPatch.context() as patch:
        _guard(patch, request.node.nodeid, allowed)
        yield


def _guard(patch: pytest.MonkeyPatch, test: str, allowed: frozenset[str]) -> None:
    def refuse(host: str) -> NetworkBlocked:
        return NetworkBlocked(
            f"commerce-proxy blocked a connection to {host} in {test}: replaying, a test reaches only "
            "this machine (--commerce-allow-host HOST lets one through)"
        )

    def checked(address: Any) -> None:
        if isinstance(address, tuple) and address and not is_local(str(address[0]), allowed):
            raise refuse(str(address[0]))

    def guarded(original: Callable[..., Any]) -> Callable[..., Any]:
        def method(self: socket.socket, address: Any, *rest: Any) -> Any:
            if self.family in (socket.AF_INET, socket.AF_INET6):
                checked(address)
            return original(self, address, *rest)

        return method

    real_getaddrinfo = socket.getaddrinfo

    def getaddrinfo(host: Any, *arguments: Any, **keywords: Any) -> Any:
        if host is not None and not is_local(
            host.decode() if isinstance(host, bytes) else str(host), allowed
        ):
            raise refuse(str(host))
        return real_getaddrinfo(host, *arguments, **keywords)

    patch.setattr(socket.socket, "connect", guarded(socket.socket.connect))
    patch.setattr(socket.socket, "connect_ex", guarded(socket.socket.connect_ex))
    patch.setattr(socket, "getaddrinfo", getaddrinfo)
