"""`commerce_sandbox`: the project's sandbox, started once per session on 127.0.0.1 and a free port,
as the upstream a suite records from when there is no real service (`--commerce-sandbox`).

It yields the sandbox's URL as a `str` (so it goes wherever a URL goes) that also carries the ids the
sandbox documents (docs/sandbox-and-demo.md) and the credentials its token endpoint takes, read from
the sandbox itself so they never drift. `commerce_sandbox_settings` says how it starts: override it to
break a rule or change its credentials.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING

import pytest

from proxy.errors import CommerceProxyError
from proxy.pytest_plugin.state import fail
from proxy.sandbox.datasets import FLOW_SIZES
from proxy.sandbox.entries import seed_entries
from proxy.sandbox.features import seed_features

if TYPE_CHECKING:  # the sandbox's server (aiohttp) is imported when a test asks for it, not at load
    from proxy.sandbox.app import SandboxSettings

SANDBOX_OPTION = "--commerce-sandbox"
SEEDED_AT = "2025-01-01T00:00:00Z"  # only the ids are read from the seeds; their time is not kept


class CommerceSandbox(str):
    """The sandbox's base URL (`http://127.0.0.1:PORT`), with what a test needs to talk to it."""

    client_id: str
    client_secret: str
    feature_ids: tuple[str, ...]  # PUT /v2/subscriptions/features/{id}
    entry_ids: tuple[str, ...]  # /v2/extensions/wishlists/{id}
    flows: Mapping[str, int]  # /v2/flows/{slug}/entries: slug -> how many entries

    def __new__(cls, url: str, settings: SandboxSettings) -> CommerceSandbox:
        sandbox = super().__new__(cls, url)
        sandbox.client_id = settings.client_id
        sandbox.client_secret = settings.client_secret
        sandbox.feature_ids = tuple(seed_features(SEEDED_AT))
        sandbox.entry_ids = tuple(entry_id for _, entry_id in seed_entries(SEEDED_AT))
        sandbox.flows = MappingProxyType(dict(FLOW_SIZES))
        return sandbox

    @property
    def url(self) -> str:
        return str(self)

    @property
    def token_url(self) -> str:
        """Where a client signs in: POST client_credentials, form-encoded."""
        return f"{self}/oauth/access_token"


def add_sandbox_options(group: pytest.OptionGroup, parser: pytest.Parser) -> None:
    group.addoption(
        SANDBOX_OPTION,
        action="store_true",
        default=False,
        help="record from the project's sandbox, started for the session on 127.0.0.1 (the "
        "commerce_sandbox fixture), instead of --commerce-upstream",
    )
    parser.addini("commerce_sandbox", "true: as --commerce-sandbox", type="bool", default=False)


def sandbox_upstream(config: pytest.Config) -> bool:
    """Whether the sandbox is the upstream; giving both it and --commerce-upstream is a usage error."""
    chosen = bool(config.getoption("commerce_sandbox") or config.getini("commerce_sandbox"))
    if chosen and config.getoption("commerce_upstream"):
        raise pytest.UsageError(
            f"{SANDBOX_OPTION} and --commerce-upstream both name the upstream: give one of them"
        )
    return chosen


@pytest.fixture(scope="session")
def commerce_sandbox_settings() -> SandboxSettings:
    """How `commerce_sandbox` starts (the documented defaults); override it to change them."""
    from proxy.sandbox.app import SandboxSettings

    return SandboxSettings()


@pytest.fixture(scope="session")
def commerce_sandbox(commerce_sandbox_settings: SandboxSettings) -> Iterator[CommerceSandbox]:
    """The sandbox, for the session, on 127.0.0.1 and a free port: its URL, with its documented ids."""
    from proxy.sandbox.app import create_sandbox_app
    from proxy.server.background import BackgroundServer

    settings = commerce_sandbox_settings
    server = BackgroundServer(lambda: create_sandbox_app(settings))
    try:
        url = server.start()
    except (OSError, CommerceProxyError) as error:
        fail(f"commerce-proxy: cannot start the sandbox: {error}")
    try:
        yield CommerceSandbox(url, settings)
    finally:
        server.stop()
