"""`commerce-proxy check --format json` on traffic that once misled the stateful rules: one finding per fact.

One cassette: 20 reads of an entry under one ETag alternating between two names (one fact: the ETag
names two representations), two reads spelling `resource_version` and `items_count` otherwise (no
change); a feature updated with description "d0", the features list whose item leaves the description
out, an update of the name answered with description "CHANGED" (a missed violation before); an update
to "New name", a stale list item, an empty update answered as before (a false alarm before); and an
update sending a configuration key as null that comes back with a value (not judged).
"""

from __future__ import annotations

import json
from pathlib import Path

from proxy.core.cassette.document import Cassette
from proxy.core.model.exchange import Exchange
from proxy.core.model.json_text import parse_json
from proxy.store.saving import save_cassette
from tests.running import run_commerce_proxy
from tests.unit.core.exchanges import (
    ENTRY_PATH,
    FEATURE_PATH,
    JSON_TYPE,
    REMOVE,
    changed,
    entry_document,
    exchange,
    feature_document,
    update_payload,
)

ETAG = 'W/"' + "a" * 64 + '"'
FEATURES = "/v2/subscriptions/features"
STATEFUL = ("entry.etag.", "feature.update.")


def entry_read(document: object) -> Exchange:
    return exchange("GET", ENTRY_PATH, body=document, response_headers=(*JSON_TYPE, ("ETag", ETAG)))


def test_the_stateful_rules_report_each_fact_once_on_unseen_traffic(tmp_path: Path) -> None:
    polled = [entry_read(entry_document(name="AB"[n % 2], version=10)) for n in range(20)]
    text = json.dumps(entry_document(name="A", version=10))
    respelled = parse_json(
        text.replace('"resource_version": 10', '"resource_version": 1E1').replace(
            '"items_count": 0', '"items_count": 0.0'
        )
    )
    at = "data.meta.timestamps.updated_at"
    new = changed(feature_document(name="New name", description="CHANGED"), at, "2026-01-03T00:00:00.000Z")
    stale_item = changed(
        feature_document(name="Old name", description="CHANGED"), at, "2026-01-02T00:00:00.000Z"
    )["data"]
    no_description = changed(feature_document(description="d0"), "data.attributes.description", REMOVE)[
        "data"
    ]
    configuration = {"type": "access", "tag": "premium"}
    features = [
        exchange(
            "PUT",
            FEATURE_PATH,
            body=feature_document(description="d0"),
            sent=update_payload(description="d0"),
        ),
        exchange("GET", FEATURES, body={"data": [no_description]}),
        exchange(
            "PUT",
            FEATURE_PATH,
            body=feature_document(description="CHANGED"),
            sent=update_payload(name="Gold access"),
        ),
        exchange("PUT", FEATURE_PATH, body=new, sent=update_payload(name="New name")),
        exchange("GET", FEATURES, body={"data": [stale_item]}),
        exchange("PUT", FEATURE_PATH, body=new, sent=update_payload()),
        exchange(
            "PUT",
            FEATURE_PATH,
            body=feature_document(
                name="New name", description="CHANGED", configuration={**configuration, "default_value": "on"}
            ),
            sent=update_payload(configuration={**configuration, "default_value": None}),
        ),
    ]
    exchanges = [*polled, entry_read(entry_document(name="A", version=10)), entry_read(respelled), *features]
    cassette = tmp_path / "unseen.yaml"
    save_cassette(cassette, Cassette(tuple(exchanges)))
    assert "1E1" in cassette.read_text(encoding="utf-8")  # the spelling reaches the check as recorded
    done = run_commerce_proxy("check", "--format", "json", str(cassette))
    assert done.returncode == 1, done.stderr
    findings = [
        (f["exchange"], f["rule"], f["where"], f["expected"])
        for f in json.loads(done.stdout)["findings"]
        if f["rule"].startswith(STATEFUL)
    ]
    assert findings == [
        (
            1,
            "entry.etag.changes-with-entry",
            "headers.ETag",
            "a new ETag: the entry differs from exchange 0 at data.name",
        ),
        (
            24,
            "feature.update.others-kept",
            "data.attributes.description",
            "'d0' (unchanged since exchange 22: not sent)",
        ),
    ]
