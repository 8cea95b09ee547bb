"""Live checking end to end: a client session through `spy` (and `record`) in front of the sandbox.

The sandbox's own conformant traffic, refusals and undocumented endpoints included, yields no error;
with `--break RULE_ID` the broken rule is found as an error, for every rule the sandbox can break.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from yarl import URL

from proxy.app.recording import RecordSettings
from proxy.core.rules.findings import FindingsLog
from proxy.sandbox.app import SandboxSettings, create_sandbox_app
from proxy.sandbox.breakage import BREAKABLE
from proxy.server.record import create_record_app
from proxy.server.serving import start
from proxy.store.cassette_reader.loading import load_cassette
from proxy.store.rule_files import load_rules
from proxy.store.shipped import shipped_dir
from tests.conftest import Serve, sandbox_token

FEATURE = "/v2/subscriptions/features/3f8e2a4c-9b1d-4c6e-8f0a-1b2c3d4e5f60"
ENTRY = "/v2/extensions/wishlists/5b0f6a52-3a8e-4f65-9d4c-0e6f1a2b3c4d"
RULES = load_rules(shipped_dir("rules"))


def payload(**attributes: Any) -> dict[str, Any]:
    return {
        "data": {
            "id": "3f8e2a4c-9b1d-4c6e-8f0a-1b2c3d4e5f60",
            "type": "subscription_feature",
            "attributes": attributes,
        }
    }


async def client_session(base: str) -> None:
    """What a client of the API does: every documented operation, its refusals, and a sort+filter walk."""
    async with aiohttp.ClientSession() as session:
        token = await sandbox_token(session, base)
        auth = {"Authorization": f"Bearer {token}"}

        async def get(target: str, headers: dict[str, str] = auth) -> Any:
            async with session.get(URL(base + target, encoded=True), headers=headers) as answer:
                return await answer.json()

        async def put(target: str, body: Any, headers: dict[str, str] = auth) -> Any:
            async with session.put(base + target, json=body, headers=headers) as answer:
                return await answer.json()

        await get("/v2/products")  # the default page length
        for target in (
            "/v2/products?page[limit]=10&page[offset]=10300&page[total_method]=exact",
            "/v2/brands?page[limit]=5&page[offset]=5",
            "/v2/customers?page[limit]=100&page[total_method]=observed",
            "/v2/customers?page[limit]=100&page[offset]=200&page[total_method]=observed",
            "/v2/accounts?sort=-created_at&page[limit]=10",
            "/v2/flows/wishlist-extras/entries?page[limit]=20&page[offset]=20",
            "/v2/flows/empty-flow/entries",
            "/v2/files?page[offset]=10025",
            "/v2/orders?page[offset]=10001",
            "/v2/categories?page[limit]=150",
            "/v2/inventory?page[limit]=abc",
        ):
            await get(target)
        walk = await get("/v2/customers?sort=created_at&page[limit]=7")
        page = walk.get("data") if isinstance(walk, dict) else walk  # a broken sandbox may send no envelope
        if isinstance(page, list) and page:
            last = page[-1]["meta"]["timestamps"]["created_at"]
            await get(f"/v2/customers?sort=created_at&page[limit]=7&filter=ge(created_at,{last})")
        await put(FEATURE, payload(name="Gold access", description="Perks", external_ref="crm-1"))
        await put(FEATURE, payload(configuration={"type": "promotion", "tag": "gold_2"}))
        await put(FEATURE, payload(description=None))
        await put(FEATURE, payload())
        await put(FEATURE, payload(name="ab"))  # refused with 400
        await put(FEATURE, payload(name="Platinum"), headers={})  # refused with 401
        first = await get(ENTRY)
        for name in ("Renamed", "Renamed again"):
            entry = await get(ENTRY)
            etag = 'W/"' + entry["data"]["meta"]["etag_id"] + '"'
            await put(ENTRY, {"data": {"type": "wishlist_ext", "name": name}}, {**auth, "If-Match": etag})
            await get(ENTRY)
        await put(
            ENTRY,
            {"data": {"name": "late"}},
            {**auth, "If-Match": 'W/"' + first["data"]["meta"]["etag_id"] + '"'},
        )
        await get("/v2/extensions/wishlists/holiday-list")
        await get("/v2/settings")  # undocumented: the sandbox answers 404
        await get("/v2/products", headers={})  # refused with 401


async def spied(serve: Serve, broken: str | list[str] | None = None) -> dict[str, Any]:
    """Run the client session through `spy` in front of a sandbox; the findings it served."""
    sandbox = await serve(create_sandbox_app(SandboxSettings(broken=broken)))
    settings = RecordSettings(upstream=sandbox, cassette=None, rules=RULES)
    spy = await serve(create_record_app(settings))
    await client_session(spy)
    async with aiohttp.ClientSession() as session, session.get(f"{spy}/_proxy/findings") as answer:
        assert answer.status == 200
        document: dict[str, Any] = await answer.json()
    return document


async def test_sandbox_traffic_yields_no_error(serve: Serve) -> None:
    """Every documented operation, refusals and undocumented endpoints included: warnings and info only."""
    found = await spied(serve)
    errors = [finding for finding in found["findings"] if finding["severity"] == "error"]
    assert errors == []
    assert found["exchanges"] >= 30
    severities = {item["severity"] for item in found["totals"].values()}
    assert severities == {"warning", "info"}  # the session does walk into documented caveats
    assert "pagination.request.limit-max" in found["totals"]


@pytest.mark.parametrize("rule_id", sorted(BREAKABLE))
async def test_a_broken_rule_is_found_live(serve: Serve, rule_id: str) -> None:
    """`sandbox --break RULE_ID` makes the live proxy report that rule as an error."""
    found = await spied(serve, broken=rule_id)
    assert found["totals"].get(rule_id, {}).get("severity") == "error", sorted(found["totals"])


async def test_several_rules_are_broken_at_once(serve: Serve) -> None:
    """`--break` takes several rules: a list rule, a feature rule and a behaviour, all found live."""
    rules = [
        "pagination.page.current",
        "pagination.links.next",
        "feature.meta.owner",
        "auth.bearer.accepted-without",
    ]
    found = await spied(serve, broken=rules)
    assert {rule for rule in rules if found["totals"].get(rule, {}).get("severity") == "error"} == set(rules)


def test_every_breakable_rule_is_a_shipped_error_rule() -> None:
    """The sandbox breaks only real rules, and every service-side (error) rule can be broken."""
    errors = {rule.id for rule in RULES.rules if rule.severity == "error"}
    assert errors == BREAKABLE


async def test_record_checks_live_and_the_cassette_check_agrees(serve: Serve, tmp_path: Path) -> None:
    """`record` reports findings as they happen, and `check` finds the same on the written cassette."""
    from proxy.core.rules.engine import Checker

    sandbox = await serve(create_sandbox_app(SandboxSettings(broken="pagination.page.current")))
    cassette = tmp_path / "broken.yaml"
    settings = RecordSettings(upstream=sandbox, cassette=cassette, rules=RULES)
    runner, proxy_url = await start(create_record_app(settings), "127.0.0.1", 0)
    try:
        await client_session(proxy_url)
        async with aiohttp.ClientSession() as session, session.get(f"{proxy_url}/_proxy/findings") as answer:
            live = await answer.json()
    finally:
        await runner.cleanup()  # writes the cassette
    offline = Checker(RULES).check_all(load_cassette(cassette).cassette.exchanges)
    assert {f.rule for f in offline} == set(live["totals"])
    assert live["totals"]["pagination.page.current"]["count"] == sum(
        1 for f in offline if f.rule == "pagination.page.current"
    )
    # One numbering: each live finding names the exchange `check` and `cassette show FILE N` do.
    assert sorted((f["exchange"], f["rule"]) for f in live["findings"]) == sorted(
        (f.exchange, f.rule) for f in offline
    )


async def test_live_numbers_are_cassette_indexes_after_episodes_refusals_and_overlap(
    serve: Serve, tmp_path: Path
) -> None:
    """Adding episodes to a cassette, with a request refused before forwarding and requests in flight
    together: every live finding's index opens, in the written cassette, the request it was about."""
    sandbox = await serve(create_sandbox_app(SandboxSettings(broken="pagination.page.current")))
    cassette = tmp_path / "episodes.yaml"
    first = create_record_app(RecordSettings(upstream=sandbox, cassette=cassette, rules=RULES))
    runner, proxy_url = await start(first, "127.0.0.1", 0)
    try:
        await client_session(proxy_url)
    finally:
        await runner.cleanup()
    settings = RecordSettings(upstream=sandbox, cassette=cassette, mode="new_episodes", rules=RULES)
    runner, proxy_url = await start(create_record_app(settings), "127.0.0.1", 0)
    try:
        async with aiohttp.ClientSession() as session:
            token = await sandbox_token(session, proxy_url)
            refused = {"Authorization": "Bearer <redacted>"}  # the placeholder: refused, not forwarded
            async with session.get(f"{proxy_url}/v2/brands", headers=refused) as answer:
                assert answer.status == 401
            auth = {"Authorization": f"Bearer {token}"}

            async def page(offset: int) -> None:
                target = f"{proxy_url}/v2/brands?page[limit]=3&page[offset]={offset}"
                async with session.get(URL(target, encoded=True), headers=auth) as answer:
                    assert answer.status == 200

            await asyncio.gather(*(page(offset) for offset in range(0, 60, 3)))
            async with session.get(f"{proxy_url}/_proxy/findings") as answer:
                live = await answer.json()
    finally:
        await runner.cleanup()
    exchanges = load_cassette(cassette).cassette.exchanges
    new = [f for f in live["findings"] if f["rule"] == "pagination.page.current"]
    assert len(new) == 20
    for finding in new:
        assert exchanges[finding["exchange"]].request.target == finding["target"]


def test_findings_log_stays_bounded() -> None:
    """The live log keeps the most recent findings and exact totals, however many arrive."""
    from proxy.core.rules.engine import Checker
    from tests.unit.core.exchanges import list_page, list_read

    query, body = list_page()
    body["meta"]["page"]["current"] = 9
    broken = list_read(query=query, body=body)
    per_exchange = len(Checker(RULES).check(broken, 0))
    checker = Checker(RULES)
    log = FindingsLog(capacity=50)
    for index in range(500):
        log.add(checker.check(broken, index))
    document = log.to_json()
    assert len(document["findings"]) == 50
    assert document["totals"]["pagination.page.current"]["count"] == 500
    assert document["dropped"] == 500 * per_exchange - 50
    assert document["findings"][-1]["exchange"] == 499
