"""`--match-ignore-json PATH` and the config's `match.ignore_json`, end to end: a client that sends a
generated id in a body is answered from its recording whatever the id, which stays as recorded."""

from __future__ import annotations

from pathlib import Path

import aiohttp

from proxy.core.cassette.document import Cassette
from proxy.store.saving import save_cassette
from tests.conftest import json_body, make_exchange, make_request
from tests.running import commerce_proxy, run_commerce_proxy

PATH = "/v2/subscriptions/features/0b6f8e1c-1c52-4a6c-9f3e-2d1f6c9a7b10"


def update(request_id: str) -> dict[str, object]:
    return {
        "data": {
            "type": "subscription_feature",
            "attributes": {"name": "Gold"},
            "meta": {"request_id": request_id},
        }
    }


def recorded_update(tmp_path: Path) -> Path:
    cassette = tmp_path / "update.yaml"
    request = make_request("PUT", path=PATH, body=json_body(update("r-recorded")))
    save_cassette(cassette, Cassette((make_exchange(request, body=json_body({"renamed": True})),)))
    return cassette


async def put(url: str, request_id: str) -> int:
    async with aiohttp.ClientSession() as session, session.put(url + PATH, json=update(request_id)) as answer:
        return answer.status


async def test_replay_answers_whatever_the_ignored_field_holds_and_only_then(tmp_path: Path) -> None:
    cassette = recorded_update(tmp_path)
    async with commerce_proxy("replay", "--cassette", str(cassette)) as strict:
        assert await put(strict.url, "r-new") != 200  # the id decides a match by default
    async with commerce_proxy(
        "replay", "--cassette", str(cassette), "--match-ignore-json", "data.meta.request_id"
    ) as ignoring:
        assert await put(ignoring.url, "r-new") == 200
        assert await put(ignoring.url, "r-newer") == 200
    config = tmp_path / "commerce-proxy.yaml"
    config.write_text("match:\n  ignore_json: [data.meta.request_id]\n")
    async with commerce_proxy("replay", "--cassette", str(cassette), "--config", str(config)) as configured:
        assert await put(configured.url, "r-new") == 200
    assert "r-recorded" in cassette.read_text()


def test_a_bad_path_or_match_table_is_one_line_naming_it(tmp_path: Path) -> None:
    cassette = recorded_update(tmp_path)
    flagged = run_commerce_proxy("replay", "--cassette", str(cassette), "--match-ignore-json", "data..id")
    assert flagged.returncode == 2
    assert flagged.stderr.strip().splitlines() == [
        "commerce-proxy: error: --match-ignore-json: 'data..id' is not a dotted JSON path, e.g. data.meta.request_id"
    ]
    config = tmp_path / "commerce-proxy.yaml"
    config.write_text("match:\n  ignore_json: data.meta.request_id\n")
    configured = run_commerce_proxy("replay", "--cassette", str(cassette), "--config", str(config))
    assert configured.returncode == 2 and "Traceback" not in configured.stderr
    assert f"{config}: match.ignore_json: expected a list of names" in configured.stderr
