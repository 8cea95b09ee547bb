"""A stop does not wait for the UI's actions: every action still waiting its turn when the server
begins to stop is a 503 saying so, and an export under way gives up between pages, so the process
exits without first reading and writing the whole view (an export of 100,000 exchanges takes seconds)."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest

from proxy.app import ui_action_cases
from proxy.app.project_rules import project_rules
from proxy.app.traffic_view import offline_view
from proxy.app.ui_action_cases import ActionSetting, UiActions
from proxy.core.ui.query import parse_query
from proxy.errors import UsageError
from proxy.server.serving import start
from proxy.server.ui_action_routes import ActionRoutes
from proxy.server.ui_routes import UiRoutes, create_ui_app
from proxy.server.wire import WireServer
from tests.integration.server.test_ui_action_routes import ACTIONS, call, error_line, folder  # noqa: F401

HELD_S = 10  # a bound on each wait, not a measure


async def started(folder: Path) -> tuple[str, WireServer]:  # noqa: F811
    in_force = project_rules(folder)
    view = offline_view([folder / "walk.yaml"], in_force, cache=False)
    setting = ActionSetting("offline", in_force, policy=in_force.project.redaction)
    actions = ActionRoutes(UiActions(view, setting), parse_query)
    server = create_ui_app(
        UiRoutes(view, parse_query, {}, actions=actions), "actions-test-token-0123456789abcdef"
    )
    _, url = await start(server, "127.0.0.1", 0)
    return url, server


@pytest.mark.parametrize(("method", "route", "body", "name"), ACTIONS)
async def test_an_action_waiting_its_turn_when_the_server_stops_is_a_503(
    folder: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    method: str,
    route: str,
    body: Any,
    name: str,
) -> None:
    began, release = threading.Event(), threading.Event()

    def hold(*_: Any, **__: Any) -> Any:  # the first call holds the actions' turn until the stop began
        if not began.is_set():
            began.set()
            release.wait(HELD_S)
        raise UsageError("probe: ran")

    monkeypatch.setattr(UiActions, name, hold)
    url, server = await started(folder)
    first = asyncio.create_task(call(url, method, route, body))
    assert await asyncio.to_thread(began.wait, HELD_S)
    second = asyncio.create_task(call(url, method, route, body))
    await asyncio.sleep(0.3)  # its request is in, waiting for the turn
    stopping = asyncio.create_task(server.cleanup())
    await asyncio.sleep(0.05)
    release.set()
    (status, _, answer), (waited, _, refusal) = await asyncio.gather(first, second)
    await stopping
    assert (status, error_line(400, answer)) == (400, "probe: ran")  # under way: it ends as it would
    assert waited == 503 and "the server is stopping" in error_line(503, refusal)


@pytest.mark.parametrize("kind", ["har", "cassette"])
async def test_an_export_under_way_when_the_server_stops_gives_up_between_pages(
    folder: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    kind: str,
) -> None:
    monkeypatch.setattr(ui_action_cases, "PAGE", 1)  # a page a row: the walk's rows are many pages
    read, began, release = [], threading.Event(), threading.Event()
    exchange_of = UiActions._exchange

    def slow(self: UiActions, number: int) -> Any:
        read.append(number)
        if not began.is_set():
            began.set()
            release.wait(HELD_S)
        return exchange_of(self, number)

    monkeypatch.setattr(UiActions, "_exchange", slow)
    url, server = await started(folder)
    exporting = asyncio.create_task(call(url, "GET", f"export?format={kind}"))
    assert await asyncio.to_thread(began.wait, HELD_S)
    stopping = asyncio.create_task(server.cleanup())
    await asyncio.sleep(0.05)
    release.set()
    status, _, answer = await exporting
    await stopping
    assert status == 503 and "the server is stopping" in error_line(503, answer)
    assert len(read) == 1, f"{len(read)} rows read after the stop began"
