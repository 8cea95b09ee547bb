"""A spelling of a UI data route is judged as the route it names: without the token it is a 403 (or a
404, or the wire's 400), never the data. Failed before: the access decision read the raw target, so
`/_proxy/./ui/api/info`, `//_proxy/ui/api/exchanges`, `/%5Fproxy/ui/api/info` and the like were
answered 200 without the token by replay (and record, spy) with a UI."""

from __future__ import annotations

import json
import random

import pytest

from proxy.core.model.access import TOKEN_VARIABLE
from proxy.core.redaction.redact import RedactionPolicy
from proxy.core.replay.book import ReplayBook
from proxy.core.replay.matching import MatchPolicy
from proxy.server.replay import Replayer
from proxy.server.serving import start
from proxy.server.ui_routes import UiRoutes
from tests.integration.server.test_ui_routes import AUTH, PAGE_FILES, TOKEN, FakeView, fetch, parse
from tests.unit.core.model.spellings import draw

ROUTES = ("/ui/api/info", "/ui/api/exchanges", "/ui/api/counts", "/ui/api/exchanges/1")


async def test_no_spelling_of_a_data_route_opens_it_without_the_token(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(TOKEN_VARIABLE, TOKEN)
    replayer = Replayer(ReplayBook.build([], MatchPolicy(), RedactionPolicy()))
    replayer.door.ui = UiRoutes(FakeView(3), parse, PAGE_FILES)
    runner, url = await start(replayer.server, "127.0.0.1", 0)
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
