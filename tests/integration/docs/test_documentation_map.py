"""The docs' documentation map (docs/documentation-map.md) maps every rule, limit and field row of
commerce-api.md to rule ids (or says why not)."""

from __future__ import annotations

import re

import pytest

from proxy.store.rule_files import load_rules
from proxy.store.shipped import shipped_dir
from tests.paths import ROOT

SPEC = (ROOT.parent / "shared" / "spec" / "commerce-api.md").read_text()
MAPPING = (ROOT / "docs" / "documentation-map.md").read_text()


def table_rows(heading: str) -> list[str]:
    """The first cells of the first table under a heading of commerce-api.md."""
    section = SPEC[SPEC.index(heading) :]
    rows = []
    for line in section.splitlines()[2:]:
        if line.startswith("| ") and not line.startswith("|---"):
            rows.append(line.split("|")[1].strip())
        elif rows and not line.startswith("|"):
            break
    return [row for row in rows[1:]]  # without the header row


def numbered_rules(heading: str) -> list[str]:
    section = SPEC[SPEC.index(heading) + len(heading) :]
    following = re.search(r"^#{2,3} ", section, flags=re.MULTILINE)
    section = section[: following.start()] if following else section
    rules = section[section.index("Rules:") :]
    return re.findall(r"^(\d+)\. ", rules, flags=re.MULTILINE)


def test_every_shipped_rule_id_is_in_the_mapping() -> None:
    """No rule exists that the row-by-row table does not name."""
    missing = [rule.id for rule in load_rules(shipped_dir("rules")).rules if f"`{rule.id}`" not in MAPPING]
    assert missing == []


@pytest.mark.parametrize("field", table_rows("### Feature (resource type"))
def test_every_feature_field_row_is_mapped(field: str) -> None:
    assert f"Feature `{field}`" in MAPPING


@pytest.mark.parametrize("field", table_rows("### Paginated list envelope"))
def test_every_envelope_row_is_mapped(field: str) -> None:
    assert f"Envelope `{field}`" in MAPPING


@pytest.mark.parametrize("field", table_rows("### Feature update payload"))
def test_every_update_payload_row_is_mapped(field: str) -> None:
    rows = [line for line in MAPPING.splitlines() if line.startswith("| Update payload")]
    assert any(f"`{field}`" in row.split("|")[1] for row in rows), field


@pytest.mark.parametrize("limit", table_rows("## Limits"))
def test_every_limit_row_is_mapped(limit: str) -> None:
    assert f"Limit: {limit}" in MAPPING


@pytest.mark.parametrize("parameter", table_rows("Query parameters:"))
def test_every_query_parameter_is_mapped(parameter: str) -> None:
    assert f"Query `{parameter}`" in MAPPING


@pytest.mark.parametrize(
    ("heading", "prefix"),
    [
        ("### Update a feature", "Update a feature, rule"),
        ("### Get a custom API entry", "Get a custom API entry, rule"),
        ("### List endpoints that support pagination", "Pagination rule"),
    ],
)
def test_every_numbered_endpoint_rule_is_mapped(heading: str, prefix: str) -> None:
    numbers = numbered_rules(heading)
    assert numbers, heading
    for number in numbers:
        assert f"{prefix} {number}" in MAPPING
