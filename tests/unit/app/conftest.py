"""Fixtures the UI's view tests share: the shipped rules, and a cache folder of the test's own."""

from __future__ import annotations

from pathlib import Path

import pytest

from proxy.app.record_setup import shipped_rules_in_force
from proxy.core.redaction.book import KNOWN
from proxy.store.rule_files import RulesInForce


@pytest.fixture(scope="module")
def shipped_rules() -> RulesInForce:
    return shipped_rules_in_force()


@pytest.fixture
def own_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Offline indexes cached in the test's folder, and no secret remembered from another test."""
    monkeypatch.setenv("COMMERCE_PROXY_CACHE", str(tmp_path / "cache"))
    KNOWN.forget()
