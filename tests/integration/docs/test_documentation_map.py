"""The docs' documentation map (docs/documentation-map.md) names every shipped rule; whether it maps every
row of the API's source documents is `scripts/audit-docs`'s check (tests/integration/docs/test_audit_docs.py),
since a clone does not carry those documents."""

from __future__ import annotations

from proxy.store.rule_files import load_rules
from proxy.store.shipped import shipped_dir
from tests.paths import ROOT

MAPPING = (ROOT / "docs" / "documentation-map.md").read_text()


def test_every_shipped_rule_id_is_in_the_mapping() -> None:
    """No rule exists that the row-by-row table does not name."""
    missing = [rule.id for rule in load_rules(shipped_dir("rules")).rules if f"`{rule.id}`" not in MAPPING]
    assert missing == []
