"""A spelling of a UI data route is judged as the route it names: without the token it is a 403 (or a
404, or the wire's 400), never the data. Failed before: the access decision read the raw target, so
`/_proxy/./ui/api/info`, `//_proxy/ui/api/exchanges`, `/%5Fproxy/ui/api/info` and the like were
answered 200 without the token by replay (and record, spy) with a UI."""

from __future__ import annotations

import json
import random
from collections.abc import Callable

import pytest

from proxy.core.model.access import TOKEN_VARIABLE, ours
from proxy.core.redaction.redact import RedactionPolicy
from proxy.core.replay.book import ReplayBook
from proxy.core.replay.matching import MatchPolicy
from proxy.server.replay import Replayer
from proxy.server.serving import start
from proxy.server.ui_routes import UiRoutes, create_ui_app
from proxy.server.wire import WireServer
from tests.integration.server.test_ui_routes import AUTH, PAGE_FILES, TOKEN, FakeView, fetch, parse, secured
from tests.unit.core.model.spellings import draw

ROUTES = ("/ui/api/info", "/ui/api/exchanges", "/ui/api/counts", "/ui/api/exchanges/1")


def _replay_with_a_ui() -> WireServer:
    replayer = Replayer(ReplayBook.build([], MatchPolicy(), RedactionPolicy()))
    replayer.door.ui = UiRoutes(FakeView(3), parse, PAGE_FILES)
    return replayer.server


def _offline_ui() -> WireServer:
    """`commerce-proxy ui`'s server: it has no upstream, but decides what is ours as the others do."""
    return create_ui_app(UiRoutes(FakeView(3), parse, PAGE_FILES), TOKEN)


@pytest.mark.parametrize("server", [_replay_with_a_ui, _offline_ui], ids=["replay", "ui"])
async def test_no_spelling_of_a_data_route_opens_it_without_the_token(
    monkeypatch: pytest.MonkeyPatch, server: Callable[[], WireServer]
) -> None:
    monkeypatch.setenv(TOKEN_VARIABLE, TOKEN)
    runner, url = await start(server(), "127.0.0.1", 0)
    rng = random.Random(38)
    try:
        port = int(url.rsplit(":", 1)[1])
        for plain in ("/_proxy/./ui/api/info", "//_proxy/ui/api/exchanges", "/%5Fproxy/ui/api/info"):
            assert (await fetch(url, plain))[0] == 403, plain
            status, _, body = await fetch(url, plain, AUTH)
            assert status == 200 and "exchanges" in json.loads(body), plain
        opened = 0
        for number in range(300):
            route = ROUTES[number % len(ROUTES)]
            target = draw(rng, port, wire=True, rest=route).target
            status, _, body = await fetch(url, target)
            assert status in (400, 403, 404), (target, status, body[:200])
            status, _, body = await fetch(url, target, AUTH)
            opened += status == 200
        assert opened > 20  # the same spellings with the token: many are the route itself
    finally:
        await runner.cleanup()


@pytest.mark.parametrize("server", [_replay_with_a_ui, _offline_ui], ids=["replay", "ui"])
async def test_every_answer_on_our_paths_carries_the_uis_security_headers(
    monkeypatch: pytest.MonkeyPatch, server: Callable[[], WireServer]
) -> None:
    """Drawn spellings of our routes (and of other segments), with and without the token: every answer
    of `commerce-proxy ui`'s server, and every answer on a path `ours` claims on the others, carries
    the UI's headers: a route, a 403, a 404 (a dot segment resolved to /_proxy/), a 400 alike."""
    monkeypatch.setenv(TOKEN_VARIABLE, TOKEN)
    offline = server is _offline_ui
    runner, url = await start(server(), "127.0.0.1", 0)
    rng = random.Random(3838)
    try:
        port = int(url.rsplit(":", 1)[1])
        statuses = set()
        for number in range(200):
            rest = rng.choice([*ROUTES, "/ui/..", "/ui/assets/../..", "/nowhere", None])
            name = "v2" if number % 5 == 0 else None  # a fifth: spellings of a segment not ours
            target = draw(rng, port, name, wire=True, rest=rest).target
            for lines in ((), (AUTH,)):
                status, headers, _ = await fetch(url, target, *lines)
                statuses.add(status)
                if offline or ours(target.partition("?")[0]) is not None:
                    secured(headers)
        assert {200, 403, 404} <= statuses  # the table reached routes, refusals and misses
    finally:
        await runner.cleanup()
