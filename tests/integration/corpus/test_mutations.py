"""One documented violation at a time, planted in a published example, is caught by its own rule."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from proxy.core.model.exchange import Body, Exchange
from proxy.core.rules.engine import Checker
from proxy.store.rule_files import load_rules
from proxy.store.shipped import shipped_dir
from tests.integration.corpus.published import CORPUS, ETAG_ID
from tests.unit.core.exchanges import REMOVE, changed

RULES = load_rules(shipped_dir("rules"))
ACCESS = "feature update, access configuration"
PROMOTION = "feature update, promotion configuration (tags in promotions[])"
ENTRY = "custom API entry read with etag_id"
ACCOUNTS = "accounts list: current page 0 on the first page"
FEATURE = "data.attributes"


def answer_with(place: str, value: Any) -> Any:
    def mutate(exchange: Exchange) -> Exchange:
        body = changed(exchange.response.body.value, place, value)
        return replace(exchange, response=replace(exchange.response, body=Body("json", body)))

    return mutate


def sent_with(place: str, value: Any) -> Any:
    def mutate(exchange: Exchange) -> Exchange:
        sent = changed(exchange.request.body.value, place, value)
        return replace(exchange, request=replace(exchange.request, body=Body("json", sent)))

    return mutate


def etag(value: str | None) -> Any:
    def mutate(exchange: Exchange) -> Exchange:
        headers = tuple((name, text) for name, text in exchange.response.headers if name != "ETag")
        headers += (("ETag", value),) if value is not None else ()
        return replace(exchange, response=replace(exchange.response, headers=headers))

    return mutate


def accounts_fixed(exchange: Exchange) -> Exchange:
    """The accounts example with its own violation (current page 0) put right: the base of its mutations."""
    return answer_with("meta.page.current", 1)(exchange)


MUTATIONS: list[tuple[str, str, Any]] = [
    (ACCESS, "feature.name.length", answer_with(f"{FEATURE}.name", "ab")),
    (ACCESS, "feature.description.length", answer_with(f"{FEATURE}.description", "x" * 1025)),
    (ACCESS, "feature.external-ref.length", answer_with(f"{FEATURE}.external_ref", "x" * 2049)),
    (ACCESS, "feature.configuration.tag", answer_with(f"{FEATURE}.configuration.tag", "not ok!")),
    (ACCESS, "feature.configuration.type", answer_with(f"{FEATURE}.configuration.type", "gift")),
    (ACCESS, "feature.configuration.present", answer_with(f"{FEATURE}.configuration", REMOVE)),
    (ACCESS, "feature.type", answer_with("data.type", "feature")),
    (ACCESS, "feature.meta.owner", answer_with("data.meta.owner", "user")),
    (ACCESS, "feature.timestamps.format", answer_with("data.meta.timestamps.updated_at", "2017-01-10")),
    (
        ACCESS,
        "feature.timestamps.order",
        answer_with("data.meta.timestamps.updated_at", "2016-01-10T11:41:19.244Z"),
    ),
    (ACCESS, "feature.id.uuid", answer_with("data.id", "feature-1")),
    (ACCESS, "feature.id.matches-path", answer_with("data.id", "11111111-2222-3333-4444-000000000000")),
    (ACCESS, "feature.update.sent-applied", answer_with(f"{FEATURE}.name", "Another name")),
    (ACCESS, "feature.update.invalid-accepted", sent_with(f"{FEATURE}.name", "ab")),
    (
        PROMOTION,
        "feature.configuration.tag",
        answer_with(f"{FEATURE}.configuration.promotions.0.tag", "a b"),
    ),
    (ENTRY, "entry.etag.present", etag(None)),
    (ENTRY, "entry.etag.weak", etag(f'"{ETAG_ID}"')),
    (ENTRY, "entry.etag.matches-etag-id", etag('W/"' + "0" * 64 + '"')),
    (ACCOUNTS, "pagination.page.current", answer_with("meta.page.current", 3)),
    (ACCOUNTS, "pagination.page.total", answer_with("meta.page.total", 4)),
    (ACCOUNTS, "pagination.page.limit-max", answer_with("meta.page.limit", 150)),
    (ACCOUNTS, "pagination.page.offset-requested", answer_with("meta.page.offset", 25)),
    (ACCOUNTS, "pagination.results.total-method-consistent", answer_with("meta.results.total", 5)),
    (ACCOUNTS, "pagination.envelope.results", answer_with("meta.results.total", REMOVE)),
    (ACCOUNTS, "pagination.envelope.meta", answer_with("meta.results", REMOVE)),
    (
        ACCOUNTS,
        "pagination.links.next",
        answer_with(
            "links.next", "https://useast.api.elasticpath.com/v2/accounts?page[offset]=25&page[limit]=25"
        ),
    ),
]


def rules_of(exchanges: list[Exchange]) -> set[str]:
    return {finding.rule for finding in Checker(RULES).check_all(exchanges)}


@pytest.mark.parametrize(
    ("example", "rule", "mutate"), MUTATIONS, ids=[f"{rule} in {example}" for example, rule, _ in MUTATIONS]
)
def test_a_planted_violation_is_caught_by_its_rule(example: str, rule: str, mutate: Any) -> None:
    [base] = CORPUS[example].exchanges
    if example == ACCOUNTS:
        base = accounts_fixed(base)
    assert rule not in rules_of([base])
    assert rule in rules_of([mutate(base)])
