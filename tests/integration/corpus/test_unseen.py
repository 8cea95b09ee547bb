"""Traffic of the real service from sources nobody here wrote gives exactly its classified findings: a
false alarm, a fact reported twice or a missed violation each fail here (unseen.py has the reading)."""

from __future__ import annotations

import pytest

from proxy.core.rules.engine import Checker
from proxy.store.rule_files import load_rules
from proxy.store.shipped import shipped_dir
from tests.integration.corpus.unseen_corpus import CORPUS, SOURCES

RULES = load_rules(shipped_dir("rules"))


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_unseen_traffic_gives_exactly_its_findings(name: str) -> None:
    example = CORPUS[name]
    found = Checker(RULES).check_all(example.exchanges)
    expected = sorted((number, rule, where) for number, rule, where, _ in example.findings)
    assert sorted((f.exchange, f.rule, f.where) for f in found) == expected, example.source


def test_the_corpus_has_six_sources_80_exchanges_and_each_finding_a_class() -> None:
    sources = {example.source.split()[0] for example in CORPUS.values()}
    assert sources == SOURCES
    assert sum(len(example.exchanges) for example in CORPUS.values()) >= 80
    kinds = {kind for example in CORPUS.values() for *_, kind in example.findings}
    assert kinds == {"true", "note"}
