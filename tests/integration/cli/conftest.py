"""Fixtures of the command-line tests."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
from aiohttp import web

from tests.running import app_served, sandbox_process


@pytest.fixture(scope="module")
def sandbox_upstream() -> Iterator[str]:
    """One sandbox a module's servers forward to, started once for the module: for tests that only
    read from it (it keeps no state a read changes)."""
    with sandbox_process() as url:
        yield url


@pytest.fixture
async def products_upstream() -> AsyncIterator[str]:
    """A tiny JSON upstream on 127.0.0.1: `GET /v2/products/N` answers `{"id": N, "name": "thing"}`."""

    async def answer(request: web.Request) -> web.Response:
        return web.json_response({"id": request.match_info["number"], "name": "thing"})

    app = web.Application()
    app.router.add_get("/v2/products/{number}", answer)
    async with app_served(app) as url:
        yield url
