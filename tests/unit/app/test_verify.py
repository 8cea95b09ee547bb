"""How `verify` sends: reads of a resource nobody writes go at once (bounded by the concurrency); a
resource with writes is asked in recorded order, one request at a time. And how `--update` writes what
drifted without losing an edit made while it verified."""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from proxy.app.verify import VerifyOptions, update_cassettes, verify
from proxy.core.cassette.document import Cassette
from proxy.core.drift.compare import Difference
from proxy.core.drift.verification import Verification, Verified
from proxy.core.model.exchange import Request, Response
from proxy.core.redaction.redact import RedactionPolicy
from proxy.store.cassette_reader.loading import load_cassette
from proxy.store.rule_files import load_project_rules
from proxy.store.saving import save_cassette
from tests.conftest import json_body, make_exchange, make_request


class Upstream:
    """A fake service that takes a moment to answer and notes how many requests each path had in flight
    at once, and the order requests arrived in."""

    def __init__(self) -> None:
        self.in_flight: Counter[str] = Counter()
        self.peak: Counter[str] = Counter()
        self.arrived: list[str] = []

    async def send(self, request: Request) -> Response:
        self.arrived.append(f"{request.method} {request.target}")
        self.in_flight[request.path] += 1
        self.peak[request.path] = max(self.peak[request.path], self.in_flight[request.path])
        await asyncio.sleep(0.02)
        self.in_flight[request.path] -= 1
        return make_exchange(request, body=json_body({"ok": True})).response


def run(cassette: Cassette, options: VerifyOptions, tmp_path: Path) -> Upstream:
    upstream = Upstream()
    in_force = load_project_rules(None, None, tmp_path)
    asyncio.run(
        verify([(tmp_path / "c.yaml", cassette)], upstream.send, in_force, RedactionPolicy(), options)
    )
    return upstream


def test_reads_of_one_resource_go_at_once_up_to_the_concurrency(tmp_path: Path) -> None:
    pages = [make_request(path="/v2/products", query=f"page[offset]={n * 10}") for n in range(12)]
    cassette = Cassette(tuple(make_exchange(page, body=json_body({"ok": True})) for page in pages))
    upstream = run(cassette, VerifyOptions(concurrency=4), tmp_path)
    assert len(upstream.arrived) == 12 and upstream.peak["/v2/products"] == 4


def test_a_resource_with_writes_is_asked_in_recorded_order_one_at_a_time(tmp_path: Path) -> None:
    path = "/v2/subscriptions/features/1"
    steps = [make_request(path=path), make_request("PUT", path=path, body=json_body({"a": 1}))]
    steps += [make_request(path=path, query=f"n={n}") for n in range(3)]
    cassette = Cassette(tuple(make_exchange(step, body=json_body({"ok": True})) for step in steps))
    upstream = run(cassette, VerifyOptions(writes=True, concurrency=8), tmp_path)
    assert upstream.peak[path] == 1
    assert upstream.arrived == [f"{step.method} {step.target}" for step in steps]


def numbered(count: int) -> tuple[Any, ...]:
    return tuple(
        make_exchange(make_request(path=f"/v2/items/{number}"), body=json_body({"n": number}))
        for number in range(count)
    )


@pytest.mark.parametrize("edited", [0, 1, 2, 3])
@pytest.mark.parametrize("drifted", [(1,), (1, 3), (0, 1, 2, 3)])
def test_an_edit_made_while_verifying_is_kept(tmp_path: Path, edited: int, drifted: tuple[int, ...]) -> None:
    path = tmp_path / "c.yaml"
    verified = Cassette(numbered(4))
    save_cassette(path, verified)
    # while verify asked the service, someone edited exchange `edited` (a `cassette set`)
    on_disk = list(verified.exchanges)
    on_disk[edited] = replace(on_disk[edited], recorded_at="2026-01-02T03:04:05Z")
    save_cassette(path, Cassette(tuple(on_disk)))
    live = {
        index: make_exchange(make_request(path=f"/v2/items/{index}"), body=json_body({"live": index}))
        for index in drifted
    }
    results = [
        Verified(
            str(path),
            index,
            f"GET /v2/items/{index}",
            [Difference("data", ".n", "1", "2", kind="changed")],
            live[index],
        )
        for index in drifted
    ]
    update_cassettes([(path, verified)], Verification(results, []))
    after = load_cassette(path).cassette.exchanges
    assert after[edited].recorded_at == "2026-01-02T03:04:05Z"  # the edit survived
    for index in range(4):
        if index in drifted and index != edited:
            assert after[index].response.body.value == {"live": index}
        elif index != edited:
            assert after[index] == verified.exchanges[index]
