"""End to end through `commerce-proxy check --format json`, one fact one finding over generated tables:
an invalid update payload gets one finding whatever the answer's status (the client's warning on every
answer but a success, the service's error on a success); a value compared with the request is judged
only when its own rule accepts it; and an undocumented operation under a documented pattern's parameter
is named by that parameter, whatever the slug."""

from __future__ import annotations

import itertools
import json
from collections import defaultdict
from pathlib import Path

from proxy.core.model.exchange import Exchange
from proxy.core.rules.engine import Checker
from proxy.store.rule_files import load_rules
from proxy.store.shipped import shipped_dir
from tests.system.test_unjudged_report import cassette, check
from tests.unit.core.exchanges import (
    changed,
    error_document,
    exchange,
    feature_document,
    feature_update,
    list_read,
    update_payload,
)

STATUSES = range(100, 600)  # 1xx only through the engine: a cassette holds final answers
RECORDED = range(200, 600)
PAYLOAD, ACCEPTED = "feature.update.payload", "feature.update.invalid-accepted"
INVALID_PAYLOADS = {
    "name too short": update_payload(name="ab"),
    "tag with a space": update_payload(configuration={"type": "access", "tag": "a b"}),
    "no type": {"data": {"id": feature_document()["data"]["id"], "attributes": {"name": "Gold"}}},
}


def findings_by_exchange(path: Path, code: int) -> dict[int, list[tuple[str, str]]]:
    document = json.loads(check(path, "json", code=code))
    found: dict[int, list[tuple[str, str]]] = defaultdict(list)
    for finding in document["findings"]:
        found[finding["exchange"]].append((finding["rule"], finding["where"]))
    return found


def updates(statuses: range) -> tuple[list[tuple[str, int]], list[Exchange]]:
    """Each invalid payload answered with each status: (payload, status) and the exchange."""
    made: list[tuple[str, int]] = []
    exchanges: list[Exchange] = []
    for (name, payload), status in itertools.product(INVALID_PAYLOADS.items(), statuses):
        body = feature_document() if 200 <= status < 300 else error_document(status)
        exchanges.append(feature_update(sent=payload, status=status, body=body))
        made.append((name, status))
    return made, exchanges


def wrong_payload_findings(made: list[tuple[str, int]], found: dict[int, list[tuple[str, str]]]) -> list[str]:
    wrong = []
    for number, (name, status) in enumerate(made):
        rules = [rule for rule, _ in found.get(number, []) if rule in (PAYLOAD, ACCEPTED)]
        expected = [ACCEPTED] if 200 <= status < 300 else [PAYLOAD]
        if rules != expected:
            wrong.append(f"{name}, {status}: {rules}")
    return wrong


def test_an_invalid_payload_is_one_finding_on_every_recorded_status(tmp_path: Path) -> None:
    made, exchanges = updates(RECORDED)
    found = findings_by_exchange(cassette(tmp_path / "payloads.yaml", exchanges), code=1)
    assert wrong_payload_findings(made, found) == []


def test_an_invalid_payload_is_one_finding_on_every_status_the_engine_is_given() -> None:
    made, exchanges = updates(STATUSES)
    checker = Checker(load_rules(shipped_dir("rules")))
    found: dict[int, list[tuple[str, str]]] = defaultdict(list)
    for number, one in enumerate(exchanges):
        found[number] = [(finding.rule, finding.where) for finding in checker.check(one, number)]
    assert wrong_payload_findings(made, found) == []


# label: (the rule of the value itself, a page answering a request with a value that rule refuses)
INVALID_COMPARED: dict[str, tuple[str, Exchange]] = {}
for _value in ("Exact", "EXACT", "approximate", "", "lower-bound", " exact"):
    for _requested in ("exact", "lower_bound", "observed"):
        INVALID_COMPARED[f"total_method {_value!r}, requested {_requested}"] = (
            "pagination.total-method.value",
            exchange(
                "GET",
                "/v2/products",
                f"page[limit]=10&page[offset]=10&page[total_method]={_requested}",
                body=changed(list_read().response.body.value, "meta.results.total_method", _value),
            ),
        )
for _limit, _requested_limit in itertools.product((101, 150, 1000), (10, 100, 150)):
    INVALID_COMPARED[f"limit {_limit}, requested {_requested_limit}"] = (
        "pagination.page.limit-max",
        exchange(
            "GET",
            "/v2/products",
            f"page[limit]={_requested_limit}&page[offset]=0",
            body=changed(list_read(limit=10, offset=0).response.body.value, "meta.page.limit", _limit),
        ),
    )


def test_a_compared_value_its_own_rule_refuses_is_that_rules_finding_alone(tmp_path: Path) -> None:
    labels = list(INVALID_COMPARED)
    sent = [INVALID_COMPARED[label][1] for label in labels]
    found = findings_by_exchange(cassette(tmp_path / "compared.yaml", sent), code=1)
    comparing = {"pagination.total-method.differs", "pagination.page.limit-requested"}
    wrong = []
    for number, label in enumerate(labels):
        rules = [rule for rule, _ in found.get(number, [])]
        if INVALID_COMPARED[label][0] not in rules or not comparing.isdisjoint(rules):
            wrong.append(f"{label}: {rules}")
    assert wrong == []


SLUGS = ("reviews", "wishlists", "wish_lists", "blue-shirts", "Reviews2", "x" * 50, "a")
ENTRY = "5b0f6a52-3a8e-4f65-9d4c-0e6f1a2b3c4d"
# operation on a slug the documentation does not describe: (method, path after the slug, its name)
UNDOCUMENTED_UNDER_A_SLUG = (
    ("GET", "", "GET /v2/extensions/{custom_api_slug}"),
    ("POST", "", "POST /v2/extensions/{custom_api_slug}"),
    ("PUT", f"/{ENTRY}", "PUT /v2/extensions/{custom_api_slug}/{custom_api_entry_id}"),
    ("DELETE", "/42", "DELETE /v2/extensions/{custom_api_slug}/{custom_api_entry_id}"),
    (
        "GET",
        f"/{ENTRY}/relationships",
        "GET /v2/extensions/{custom_api_slug}/{custom_api_entry_id}/relationships",
    ),
)


def test_operations_under_a_documented_slug_parameter_are_named_by_it(tmp_path: Path) -> None:
    made = [
        exchange(method, f"/v2/extensions/{slug}{rest}", body={"data": []})
        for slug, (method, rest, _) in itertools.product(SLUGS, UNDOCUMENTED_UNDER_A_SLUG)
    ]
    made.append(exchange("GET", "/v2/flows/products/entries/7", body={"data": {}}))
    recorded = cassette(tmp_path / "slugs.yaml", made)
    document = json.loads(check(recorded, "json"))
    groups = {item["group"]: item["exchanges"] for item in document["unjudged"]["groups"]}
    expected = {name: len(SLUGS) for _, _, name in UNDOCUMENTED_UNDER_A_SLUG}
    assert groups == {**expected, "GET /v2/flows/{slug}/entries/{id}": 1}
    summary, tables = check(recorded, "markdown").split("### By rule", 1)
    tables = tables.split("### Findings", 1)[0]  # findings show each path as recorded
    for name in expected:
        assert f"`{name}`" in summary and f"`{name}`" in tables
    for slug in SLUGS:
        assert f"/{slug}" not in summary + tables
    html = check(recorded, "html")
    data = json.loads(html.split('id="report-data">', 1)[1].split("</script>", 1)[0])
    endpoints = {row["endpoint"]: row["exchanges"] for row in data["endpoints"]}
    assert endpoints == {**expected, "GET /v2/flows/{slug}/entries/{id}": 1}
