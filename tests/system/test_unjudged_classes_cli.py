"""End to end through `commerce-proxy check`: exchanges a rule reported on (bodies that are not JSON)
and refusals of requests found wrong are judged; every spelling of a path is one group; up to 1,000
distinct values in paths make one group per shape, in the not-judged summary and in the per-endpoint
table alike, which stay bounded and show no value from a path."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from proxy.core.model.exchange import Exchange
from tests.system.test_unjudged_report import cassette, check
from tests.unit.core.exchanges import entry_read, exchange, feature_update, list_read
from tests.unit.core.rules.test_unjudged_classes import (
    BODIES,
    DEFECTS,
    REFUSALS,
    SEGMENTS,
    SPELLINGS,
    _refused,
    answered,
)

DISTINCT = 1000


def judged() -> list[Exchange]:
    """Success answers with no JSON body to each documented operation, and refusals of requests a rule
    about the request found wrong: every one judged."""
    made = [
        answered(operation(), status, body, content_type)
        for (body, content_type, _), operation, status in itertools.product(
            BODIES.values(), (list_read, entry_read, feature_update), (200, 204)
        )
    ]
    return made + [
        _refused(defect(), status) for defect, status in itertools.product(DEFECTS.values(), REFUSALS)
    ]


def shaped() -> list[Exchange]:
    """Every spelling of two undocumented paths, and DISTINCT values of every kind in a product path."""
    made = [
        exchange("GET", spelling(path), body={"data": []})
        for spelling, path in itertools.product(SPELLINGS.values(), ("/v2/settings", "/v2/products/42"))
    ]
    kinds = itertools.cycle(SEGMENTS.values())
    made += [exchange("GET", f"/v2/products/{next(kinds)(n)}", body={"data": {}}) for n in range(DISTINCT)]
    return made


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return cassette(tmp_path_factory.mktemp("classes") / "classes.yaml", judged() + shaped())


def test_the_json_summary_counts_one_group_per_shape(recorded: Path) -> None:
    document = json.loads(check(recorded, "json", code=1))
    unjudged = document["unjudged"]
    groups = {item["group"]: item["exchanges"] for item in unjudged["groups"]}
    assert groups == {
        "GET /v2/settings": len(SPELLINGS),
        "GET /v2/products/{id}": len(SPELLINGS) + DISTINCT,
    }
    assert unjudged["exchanges"] == 2 * len(SPELLINGS) + DISTINCT
    assert unjudged["overflow"] == {"exchanges": 0, "groups": 0, "exact": True}
    assert document["exchanges"] == len(judged()) + len(shaped())


def test_the_text_summary_names_only_the_shapes(recorded: Path) -> None:
    text = check(recorded, "text", code=1)
    total = len(judged()) + len(shaped())
    assert f"not judged: {2 * len(SPELLINGS) + DISTINCT} of {total} exchanges" in text
    summary = text.split("not judged:", 1)[1]
    assert summary.count("\n  ") == 2 and "more group" not in summary
    assert "body is not JSON" not in summary and "error answer" not in summary
    assert "found null" not in text and "found a text/html body" in text


def test_the_markdown_endpoint_table_names_path_shapes(recorded: Path) -> None:
    text = check(recorded, "markdown", code=1)
    table = text.split("### By endpoint", 1)[1].split("### Findings", 1)[0]
    rows = [line for line in table.splitlines() if line.startswith("| `")]
    endpoints = {row.split("`")[1] for row in rows}
    assert "GET /v2/products/{id}" in endpoints and "GET /v2/settings" in endpoints
    assert len(rows) <= 12, rows
    for value in ("shirt", "sk_live", "eyJ", "Shirt_", "5b0f6a52", "/V2", "//"):
        assert value not in table
    assert len(table) < 2_000


def test_the_html_endpoint_table_names_path_shapes(recorded: Path) -> None:
    text = check(recorded, "html", code=1)
    data = json.loads(text.split('id="report-data">', 1)[1].split("</script>", 1)[0])
    endpoints = {row["endpoint"] for row in data["endpoints"]}
    assert "GET /v2/products/{id}" in endpoints and len(endpoints) <= 12, endpoints


def test_a_run_of_only_judged_exchanges_says_nothing_is_unjudged(tmp_path: Path) -> None:
    path = cassette(tmp_path / "judged.yaml", judged())
    assert "not judged" not in check(path, "text", code=1)
    assert json.loads(check(path, "json", code=1))["unjudged"]["exchanges"] == 0
