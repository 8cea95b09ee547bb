"""Record mode `spy`: the recording fixtures forward to the upstream and check every exchange against
the rules in force, writing nothing (no cassette, no journal), as `commerce-proxy spy` does. Findings go
to the test that caused them, as in every mode: strict fails it on an error, the summary lists them."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from proxy.app.record_setup import record_settings
from proxy.errors import CommerceProxyError
from proxy.pytest_plugin.exchanges import CommerceServer, Exchanges
from proxy.pytest_plugin.misses import watcher
from proxy.pytest_plugin.state import STATE, PluginState, Served, fail
from proxy.pytest_plugin.ui import Opened

if TYPE_CHECKING:
    from proxy.server.serving import Servable

Serving = Callable[
    [PluginState, Served, Callable[[], "Servable"], Opened | None], AbstractContextManager[str]
]


@contextmanager
def spying(request: pytest.FixtureRequest, serving: Serving) -> Iterator[CommerceServer]:
    """A spying proxy in front of the upstream for this test (or module), served by `serving`; what the
    test sent is listed as in every mode (each answer `forwarded`)."""
    from proxy.server.record import RecordProxy

    state = request.config.stash[STATE]
    upstream = request.getfixturevalue("commerce_upstream")
    if not upstream:
        fail(
            f"{request.node.nodeid}: record mode spy needs an upstream to check: --commerce-upstream URL, "
            "commerce_upstream in the ini file, --commerce-sandbox, or a commerce_upstream fixture"
        )
    try:
        in_force = state.in_force()
        state.baseline()
        contract = state.contract() if state.conformance != "off" else None
        # writes nothing
        settings = record_settings(
            str(upstream), None, in_force, ca_bundle=state.ca_bundle, contract=contract
        )
        exchanges = Exchanges(state.current_test)
        proxy = RecordProxy(settings, watcher(request.config, exchanges, [], "", None))
    except CommerceProxyError as error:
        fail(f"{request.node.nodeid}: {error}")
    shown = settings.upstream
    served = state.served(Path("nothing"), f"spying on {shown}, writing")  # "..., writing nothing"
    live = proxy.recording.live
    if live is not None:  # the plugin shows each finding once, in its summary or the failure
        live.follow(lambda checked: served.findings.extend(checked.findings), quiet=True)
    ui = state.ui.attach(request.node.nodeid, "spy", proxy, in_force, [shown]) if state.ui else None
    with serving(state, served, lambda: proxy.server, ui) as url:
        yield CommerceServer(url, exchanges)
