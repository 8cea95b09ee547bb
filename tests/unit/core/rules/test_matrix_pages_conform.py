"""The throughput matrix's upstream serves list pages that follow the documented envelope, so what the
matrix measures of `record` is recording and checking, not a finding logged on every page: every page of
every answer size that can hold a full page, walked in order through one checker, gets no finding of a
pagination rule (the small answers, too small for a page of 25, are short before the last page)."""

from __future__ import annotations

import sys
from urllib.parse import urlsplit

import pytest

from proxy.app.record_setup import shipped_rules_in_force
from proxy.core.rules.engine import Checker
from tests.paths import ROOT
from tests.unit.core.exchanges import exchange

sys.path.insert(0, str(ROOT / "scripts" / "benchmarks"))
import workloads  # the bench's modules are not a package

BASE = "http://127.0.0.1:8080"


@pytest.mark.parametrize("urls", [50, 1_000])
@pytest.mark.parametrize("size", [None, 4_000, 64_000])
def test_every_list_page_of_the_matrix_follows_the_documented_envelope(urls: int, size: int | None) -> None:
    in_force = shipped_rules_in_force()
    checker = Checker(in_force.ruleset, in_force.project.config)
    served = workloads.documents(urls, size, BASE)
    pages = [target for target in workloads.targets(urls) if "?" in target]
    assert len(pages) == urls * 4 // 5
    found = []
    for number, target in enumerate(pages):
        address = urlsplit(target)
        sent = exchange("GET", address.path, address.query, body=served[target])
        found += [
            finding for finding in checker.check(sent, number) if finding.rule.startswith("pagination.")
        ]
    assert found == []
