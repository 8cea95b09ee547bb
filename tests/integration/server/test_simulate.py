"""`replay --simulate` against the sandbox it was recorded from: the same request, the same answer.

A history is recorded from the sandbox through `record`; then the replay built from that cassette and
the sandbox (which has lived through the same history) are asked the same unrecorded requests. Answers
must agree in status and body, timestamps aside; links are compared as path plus the set of query
parameters (the two servers have different origins).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import aiohttp
import pytest
from multidict import CIMultiDict
from yarl import URL

from proxy.app.recording import RecordSettings
from proxy.core.model.bodies import body_from_bytes
from proxy.core.model.exchange import EMPTY_BODY, Body, Exchange, Request, Response
from proxy.core.redaction.redact import RedactionPolicy
from proxy.core.replay.book import ReplayBook
from proxy.core.replay.matching import MatchPolicy
from proxy.core.rules.config import RuleConfig
from proxy.core.rules.engine import Checker
from proxy.server.record import create_record_app
from proxy.server.replay import create_replay_app
from proxy.server.serving import start
from proxy.store.cassette_reader.loading import load_cassette
from proxy.store.rule_files import load_rules
from proxy.store.shipped import shipped_dir
from tests.conftest import Serve, sandbox_token

FEATURE = "/v2/subscriptions/features/3f8e2a4c-9b1d-4c6e-8f0a-1b2c3d4e5f60"
FEATURE_ID = FEATURE.rsplit("/", 1)[1]
UNRECORDED_FEATURE = "/v2/subscriptions/features/7a1b2c3d-4e5f-4a6b-9c7d-8e9f0a1b2c3d"
ENTRY = "/v2/extensions/wishlists/5b0f6a52-3a8e-4f65-9d4c-0e6f1a2b3c4d"
# Opaque values the service computes by an undocumented formula (see proxy/core/replay/simulation/entries.py).
OPAQUE = frozenset({"created_at", "updated_at", "etag_id", "data_size"})


def feature_payload(**attributes: Any) -> dict[str, Any]:
    return {"data": {"id": FEATURE_ID, "type": "subscription_feature", "attributes": attributes}}


@dataclass
class Answer:
    status: int
    headers: CIMultiDict[str]
    document: Any
    raw: bytes


@dataclass
class Twin:
    """The recorded sandbox and the simulating replay of its cassette, asked the same requests."""

    sandbox: str
    replay: str
    session: aiohttp.ClientSession
    token: str
    cassette: Path
    asked: list[Exchange] = field(default_factory=list)

    async def ask(
        self, base: str, method: str, target: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> Answer:
        sent = {"Authorization": f"Bearer {self.token}", **(headers or {})}
        sent = {name: value for name, value in sent.items() if value}
        async with self.session.request(
            method, URL(base + target, encoded=True), json=body, headers=sent
        ) as answer:
            raw = await answer.read()
            document = await answer.json() if raw else None
            result = Answer(answer.status, CIMultiDict(answer.headers), document, raw)
        if base == self.replay:
            path, _, query = target.partition("?")
            sent_body = Body("json", body) if body is not None else EMPTY_BODY
            request = Request(method, path, query, tuple(sent.items()), sent_body)
            headers_got = tuple(answer.headers.items())
            response = Response(result.status, headers_got, body_from_bytes(raw, headers_got))
            self.asked.append(Exchange(request, response))
        return result

    async def both(self, method: str, target: str, body: Any = None, **headers: str) -> tuple[Answer, Answer]:
        """(replay's answer, sandbox's answer); the replay is asked first."""
        simulated = await self.ask(self.replay, method, target, body, headers)
        live = await self.ask(self.sandbox, method, target, body, headers)
        return simulated, live


def comparable(value: Any) -> Any:
    """A document with opaque values blanked, links as (path, set of query pairs), error details dropped."""
    if isinstance(value, dict):
        result = {}
        for key, item in value.items():
            if key in OPAQUE:
                result[key] = "<opaque>"
            elif key == "links" and isinstance(item, dict):
                result[key] = {name: _link(link) for name, link in item.items()}
            elif key == "errors" and isinstance(item, list):
                result[key] = [{k: v for k, v in error.items() if k != "detail"} for error in item]
            else:
                result[key] = comparable(item)
        return result
    if isinstance(value, list):
        return [comparable(item) for item in value]
    return value


def _link(link: Any) -> Any:
    if not isinstance(link, str):
        return link
    parts = urlsplit(link)
    return parts.path, frozenset(parse_qsl(parts.query, keep_blank_values=True))


def assert_same(simulated: Answer, live: Answer) -> None:
    assert simulated.headers.get("X-Commerce-Proxy") == "simulated", simulated.document
    assert simulated.status == live.status, (simulated.document, live.document)
    assert comparable(simulated.document) == comparable(live.document)


async def record_history(base: str) -> None:
    """The history the cassette holds: list pages, one feature update, one entry read."""
    async with aiohttp.ClientSession() as session:
        token = await sandbox_token(session, base)
        auth = {"Authorization": f"Bearer {token}"}
        targets = [f"/v2/customers?page[limit]=10&page[offset]={offset}" for offset in range(0, 240, 10)]
        targets += [f"/v2/products?page[limit]=20&page[offset]={offset}" for offset in (0, 20, 40, 10280)]
        targets += [
            f"/v2/brands?page[limit]=5&page[offset]={offset}&page[total_method]=observed"
            for offset in (0, 5, 10)
        ]
        targets += ["/v2/orders?page[limit]=5", ENTRY]
        for target in targets:
            async with session.get(URL(base + target, encoded=True), headers=auth) as answer:
                assert answer.status == 200, target
        body = feature_payload(name="Premium support plus")
        async with session.put(base + FEATURE, json=body, headers=auth) as answer:
            assert answer.status == 200


@pytest.fixture
async def twin(serve: Serve, sandbox_url: str, tmp_path: Path) -> AsyncIterator[Twin]:
    cassette = tmp_path / "history.yaml"
    runner, proxy_url = await start(
        create_record_app(RecordSettings(upstream=sandbox_url, cassette=cassette)), "127.0.0.1", 0
    )
    try:
        await record_history(proxy_url)
    finally:
        await runner.cleanup()
    loaded = load_cassette(cassette).cassette
    book = ReplayBook.build([("history.yaml", loaded)], MatchPolicy(), RedactionPolicy(), simulate=True)
    replay_url = await serve(create_replay_app(book))
    async with aiohttp.ClientSession() as session:
        token = await sandbox_token(session, sandbox_url)
        yield Twin(sandbox_url, replay_url, session, token, cassette)


@pytest.mark.parametrize(
    "target",
    [
        "/v2/customers?page[limit]=7&page[offset]=3",
        "/v2/customers?page[offset]=215&page[limit]=25",
        "/v2/customers?page[limit]=100&page[offset]=200",
        "/v2/customers?page[limit]=500&page[offset]=40",
        "/v2/customers?page[limit]=10&page[offset]=250",
        "/v2/customers",
        "/v2/products?page[limit]=30&page[offset]=5",
        "/v2/products?page[limit]=10&page[offset]=10290",
        "/v2/brands?page[limit]=4&page[offset]=2&page[total_method]=observed",
        "/v2/brands?page[limit]=3&page[offset]=9&page[total_method]=observed",
        "/v2/customers?page[limit]=abc",
        "/v2/customers?page[offset]=-5",
        "/v2/customers?page[total_method]=fastest",
        "/v2/orders?page[limit]=5&page[offset]=10005",
    ],
)
async def test_unrecorded_list_windows_equal_the_live_answer(twin: Twin, target: str) -> None:
    """Windows of other sizes and offsets, clamped limits, refusals: the sandbox's answer, offline."""
    simulated, live = await twin.both("GET", target)
    assert_same(simulated, live)


async def test_list_requests_without_a_bearer_token_are_refused_like_the_service(twin: Twin) -> None:
    simulated, live = await twin.both("GET", "/v2/customers?page[limit]=3", Authorization="")
    assert live.status == 401
    assert_same(simulated, live)


async def test_a_window_past_the_recordings_is_a_clear_miss(twin: Twin) -> None:
    """Products 55-64 were never recorded (only 0-59): a 404 miss naming what is held, no invented data."""
    answer = await twin.ask(twin.replay, "GET", "/v2/products?page[limit]=10&page[offset]=55")
    assert answer.status == 404
    assert answer.headers["X-Commerce-Proxy"] == "no-match"
    detail = answer.document["errors"][0]["detail"]
    assert "cannot be simulated" in detail and "records 0-59" in detail and "not record 60" in detail


async def test_a_client_walking_with_another_page_size_gets_the_recorded_records_in_order(
    twin: Twin,
) -> None:
    """Recorded with page[limit]=10; walked with 7 by following links.next until it is null."""
    recorded = load_cassette(twin.cassette).cassette
    expected = [
        record["id"]
        for exchange in recorded.exchanges
        if exchange.request.path == "/v2/customers"
        for record in exchange.response.body.value["data"]  # type: ignore[index,union-attr]
    ]
    assert len(expected) == 240
    seen: list[str] = []
    target: str | None = f"{twin.replay}/v2/customers?page[limit]=7"
    pages = 0
    while target is not None and pages < 100:
        async with twin.session.get(
            URL(target, encoded=True), headers={"Authorization": "Bearer x"}
        ) as answer:
            assert answer.status == 200
            assert answer.headers["X-Commerce-Proxy"] == "simulated"
            page = await answer.json()
        assert page["meta"]["page"]["limit"] == 7
        seen.extend(record["id"] for record in page["data"])
        target = page["links"]["next"]
        pages += 1
    assert seen == expected
    assert pages == 35  # ceil(240 / 7)


async def test_a_feature_updated_twice_offline_ends_in_the_live_state(twin: Twin) -> None:
    """Two unrecorded updates in a row, each equal to the live answer; the final state field by field."""
    first = await twin.both(
        "PUT", FEATURE, feature_payload(description=None, configuration={"type": "usage", "tag": "calls_v2"})
    )
    assert_same(*first)
    second = await twin.both("PUT", FEATURE, feature_payload(external_ref="crm-9"))
    assert_same(*second)
    final = second[0].document["data"]
    assert final["id"] == FEATURE_ID
    assert final["type"] == "subscription_feature"
    assert final["attributes"] == {
        "name": "Premium support plus",  # from the recorded update
        "external_ref": "crm-9",
        "configuration": {"type": "usage", "tag": "calls_v2"},
    }
    assert final["meta"]["owner"] == "store"
    timestamps = final["meta"]["timestamps"]
    assert timestamps["updated_at"] > timestamps["created_at"]
    assert len(timestamps["updated_at"]) == len(timestamps["created_at"])  # the recorded precision


async def test_feature_refusals_and_empty_updates_match_the_service(twin: Twin) -> None:
    """Invalid payloads are refused with the same status, titles and sources; {} changes nothing."""
    for body in (
        feature_payload(name="ab"),
        feature_payload(configuration={"type": "usage"}),
        feature_payload(name=None, description="x" * 1025),
        {"data": {"type": "subscription_feature", "attributes": {}}},
        {"data": {"id": FEATURE_ID, "type": "feature", "attributes": {"name": "Okay"}}},
        [1, 2],
    ):
        simulated, live = await twin.both("PUT", FEATURE, body)
        assert live.status == 400
        assert_same(simulated, live)
    before = await twin.both("PUT", FEATURE, feature_payload())
    assert_same(*before)
    assert (
        before[0].document["data"]["meta"]["timestamps"]["updated_at"]
        == (load_recorded_feature(twin.cassette)["meta"]["timestamps"]["updated_at"])
    )


def load_recorded_feature(cassette: Path) -> dict[str, Any]:
    for exchange in load_cassette(cassette).cassette.exchanges:
        if exchange.request.path == FEATURE:
            return exchange.response.body.value["data"]  # type: ignore[index,call-overload,no-any-return]
    raise AssertionError("no recorded feature")


async def test_a_feature_the_cassette_never_saw_is_a_miss(twin: Twin) -> None:
    answer = await twin.ask(twin.replay, "PUT", UNRECORDED_FEATURE, {"data": {}})
    assert answer.status == 404
    assert answer.headers["X-Commerce-Proxy"] == "no-match"


async def test_entry_changes_offline_move_the_etag_like_the_service(twin: Twin) -> None:
    """The recorded read, then an unrecorded change: a new ETag equal to W/"etag_id", kept for reads."""
    recorded, _ = await twin.both("GET", ENTRY)
    assert "X-Commerce-Proxy" not in recorded.headers  # the recording answers
    old_etag = recorded.headers["ETag"]
    assert old_etag == f'W/"{recorded.document["data"]["meta"]["etag_id"]}"'
    body = {"data": {"type": "wishlist_ext", "name": "Renamed", "items_count": 4}}
    changed = await twin.both("PUT", ENTRY, body, **{"If-Match": old_etag})
    assert_same(*changed)
    simulated = changed[0]
    new_etag = simulated.headers["ETag"]
    assert new_etag != old_etag
    assert new_etag == f'W/"{simulated.document["data"]["meta"]["etag_id"]}"'
    assert simulated.document["data"]["meta"]["resource_version"] == 1
    read_back = await twin.both("GET", ENTRY)
    assert_same(*read_back)
    assert read_back[0].headers["ETag"] == new_etag
    assert read_back[0].document["data"]["name"] == "Renamed"
    stale = await twin.both("PUT", ENTRY, body, **{"If-Match": old_etag})
    assert stale[1].status == 412
    assert_same(*stale)
    wrong = await twin.both("PUT", ENTRY, {"data": {"type": "wishlist_ext", "colour": "red", "name": 3}})
    assert wrong[1].status == 400
    assert_same(*wrong)


async def test_simulated_answers_break_no_documented_rule(twin: Twin) -> None:
    """Every answer the simulator gave in a session passes the conformance in_force without an error."""
    for target in (
        "/v2/customers?page[limit]=7&page[offset]=3",
        "/v2/customers?page[limit]=25&page[offset]=230",
        "/v2/products?page[limit]=30&page[offset]=5",
        "/v2/brands?page[limit]=4&page[offset]=8&page[total_method]=observed",
        "/v2/customers?page[limit]=10&page[offset]=5&page[total_method]=observed",
    ):
        await twin.ask(twin.replay, "GET", target)
    await twin.ask(twin.replay, "PUT", FEATURE, feature_payload(description=None))
    await twin.ask(twin.replay, "PUT", ENTRY, {"data": {"type": "wishlist_ext", "items_count": 9}})
    checker = Checker(load_rules(shipped_dir("rules")), RuleConfig(), cassette=None)
    simulated = [
        exchange for exchange in twin.asked if ("X-Commerce-Proxy", "simulated") in exchange.response.headers
    ]
    assert len(simulated) == 7
    findings = checker.check_all(simulated)
    assert [finding for finding in findings if finding.severity == "error"] == []
