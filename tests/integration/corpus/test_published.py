"""The published examples give exactly their listed findings: a new false alarm and a lost true
violation both fail here."""

from __future__ import annotations

import pytest

from proxy.core.rules.engine import Checker
from proxy.store.rule_files import load_rules
from proxy.store.shipped import shipped_dir
from tests.integration.corpus.published import CORPUS

RULES = load_rules(shipped_dir("rules"))


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_a_published_example_gives_exactly_its_findings(name: str) -> None:
    example = CORPUS[name]
    found = Checker(RULES).check_all(example.exchanges)
    assert sorted((f.exchange, f.rule, f.where) for f in found) == sorted(example.findings), example.source
