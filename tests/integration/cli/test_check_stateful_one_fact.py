"""`commerce-proxy check --format json` on the stateful rules' traffic: one fact, one finding, at its place.

One cassette: three reads of an entry under one ETag, the first without `etag_id` (as the published
read), then a changed entry polled under that ETag; a feature read, an update of its name alone that
changed the tag inside the configuration, and an empty update that changed the name.
"""

from __future__ import annotations

import json
from pathlib import Path

from proxy.core.cassette.document import Cassette
from proxy.core.model.exchange import Exchange
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
STATEFUL = ("entry.", "feature.update.")


def test_the_stateful_rules_report_each_fact_once_at_its_place(tmp_path: Path) -> None:
    def entry_read(name: str, without_etag_id: bool = False) -> Exchange:
        document = entry_document(name=name, version=10)  # etag_id "a" * 64
        if without_etag_id:
            document = changed(document, "data.meta.etag_id", REMOVE)
        return exchange("GET", ENTRY_PATH, body=document, response_headers=(*JSON_TYPE, ("ETag", ETAG)))

    premium = {"type": "access", "tag": "premium"}
    exchanges = [
        entry_read("My Wishlist", without_etag_id=True),
        entry_read("My Wishlist"),
        entry_read("My Wishlist"),
        entry_read("Other"),
        entry_read("Other"),
        entry_read("Other"),
        exchange("GET", FEATURE_PATH, body=feature_document(configuration=premium)),
        exchange(
            "PUT",
            FEATURE_PATH,
            sent=update_payload(name="New name"),
            body=feature_document(name="New name", configuration={"type": "access", "tag": "changed"}),
        ),
        exchange(
            "PUT",
            FEATURE_PATH,
            sent=update_payload(),
            body=changed(
                feature_document(name="Renamed", configuration={"type": "access", "tag": "changed"}),
                "data.meta.timestamps.updated_at",
                "2024-03-01T00:00:00.000Z",
            ),
        ),
    ]
    cassette = tmp_path / "session.yaml"
    save_cassette(cassette, Cassette(tuple(exchanges)))
    done = run_commerce_proxy("check", "--format", "json", str(cassette))
    assert done.returncode == 1, done.stderr
    findings = [
        (f["exchange"], f["rule"], f["where"], f["expected"], f["found"])
        for f in json.loads(done.stdout)["findings"]
        if f["rule"].startswith(STATEFUL)
    ]
    assert findings == [
        (0, "entry.etag-id.absent", "data.meta.etag_id", "the hash the ETag carries", "absent"),
        (
            3,
            "entry.etag.changes-with-entry",
            "headers.ETag",
            "a new ETag: the entry differs from exchange 2 at data.name",
            f"the same ETag {ETAG!r}",
        ),
        (
            7,
            "feature.update.others-kept",
            "data.attributes.configuration.tag",
            "'premium' (unchanged since exchange 6: not sent)",
            "'changed'",
        ),
        (
            8,
            "feature.update.empty-unchanged",
            "data.attributes.name, data.meta.timestamps.updated_at",
            "'New name'; '2024-01-02T10:00:00.123Z' (as at exchange 7: empty update)",
            "'Renamed'; '2024-03-01T00:00:00.000Z'",
        ),
    ]
