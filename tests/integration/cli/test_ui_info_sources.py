"""`api/info` names where a live server's traffic comes from: `record` its cassette, `spy` its
upstream, `replay` the cassettes it answers from (it said `"sources": []` for all three)."""

from __future__ import annotations

from pathlib import Path

import aiohttp
import pytest

from proxy.core.model.access import TOKEN_HEADER
from tests.integration.cli.test_ui_wiring import NO_TOKEN, stopped, ui_of
from tests.paths import ROOT
from tests.running import commerce_proxy


@pytest.mark.parametrize("mode", ["record", "spy", "replay"])
async def test_info_names_the_live_servers_sources(mode: str, tmp_path: Path, sandbox_upstream: str) -> None:
    cassette = tmp_path / "shop.yaml"
    example = next((ROOT / "cassettes").glob("*.yaml"))
    arguments = {
        "record": ["record", "--upstream", sandbox_upstream, "--cassette", str(cassette)],
        "spy": ["spy", "--upstream", sandbox_upstream],
        "replay": ["replay", "--cassette", str(example)],
    }[mode]
    expected = {"record": [str(cassette)], "spy": [sandbox_upstream], "replay": [str(example)]}[mode]
    async with commerce_proxy(*arguments, environment=NO_TOKEN) as running:
        base, token = ui_of(running)
        async with (
            aiohttp.ClientSession() as session,
            session.get(f"{base}/_proxy/ui/api/info", headers={TOKEN_HEADER: token}) as answer,
        ):
            info = await answer.json()
        assert info["mode"] == mode and info["sources"] == expected, info
        status, _, err = await stopped(running)
        assert status == 0, err
