"""The unseen traffic with every documented operation's path spelled with a trailing slash (the service
routes `/v2/brands/` as `/v2/brands`): the same classified findings, no undocumented-operation note."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from proxy.core.model.exchange import Exchange
from proxy.core.rules.engine import Checker
from proxy.store.rule_files import load_rules
from proxy.store.shipped import shipped_dir
from tests.integration.corpus.unseen_corpus import CORPUS

RULES = load_rules(shipped_dir("rules"))
# commerce-api.md, Endpoints: the paginated lists (and inventories, as the service spells it), the
# feature update and the entry read; this table is the spec's, not the tool's.
LISTS = "brands|carts|categories|collections|customers|files|inventory|inventories|orders|products|accounts"
DOCUMENTED = [
    ("GET", re.compile(rf"/v2/(?:{LISTS}|flows/[^/]+/entries)")),
    ("PUT", re.compile(r"/v2/subscriptions/features/[^/]+")),
    ("GET", re.compile(r"/v2/extensions/[^/]+/[^/]+")),
]


def documented(exchange: Exchange) -> bool:
    method, path = exchange.request.method, exchange.request.path
    return any(method == verb and pattern.fullmatch(path) for verb, pattern in DOCUMENTED)


def slashed(exchange: Exchange) -> Exchange:
    if not documented(exchange):
        return exchange
    return replace(exchange, request=replace(exchange.request, path=exchange.request.path + "/"))


SPELLED = sorted(name for name, example in CORPUS.items() if any(map(documented, example.exchanges)))


def test_most_of_the_corpus_has_a_documented_operation_to_spell_again() -> None:
    assert len(SPELLED) >= 50


@pytest.mark.parametrize("name", SPELLED)
def test_a_trailing_slash_gives_the_same_findings(name: str) -> None:
    example = CORPUS[name]
    found = Checker(RULES).check_all([slashed(exchange) for exchange in example.exchanges])
    expected = sorted((number, rule, where) for number, rule, where, _ in example.findings)
    assert sorted((f.exchange, f.rule, f.where) for f in found) == expected, example.source
