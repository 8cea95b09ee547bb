"""`commerce-proxy check` judges an update against the state any earlier answer showed: a feature read,
then an update that changes an attribute it did not send."""

from __future__ import annotations

import json
from pathlib import Path

from proxy.core.cassette.document import Cassette
from proxy.store.saving import save_cassette
from tests.running import run_commerce_proxy
from tests.unit.core.exchanges import FEATURE_PATH, exchange, feature_document, update_payload


def test_a_feature_read_then_an_update_that_changes_what_it_did_not_send(tmp_path: Path) -> None:
    read = exchange("GET", FEATURE_PATH, body=feature_document(external_ref="crm-7"))
    update = exchange(
        "PUT",
        FEATURE_PATH,
        sent=update_payload(name="Platinum"),
        body=feature_document(name="Platinum", external_ref="crm-2"),
    )
    cassette = tmp_path / "session.yaml"
    save_cassette(cassette, Cassette((read, update)))
    done = run_commerce_proxy("check", "--format", "json", str(cassette))
    assert done.returncode == 1, done.stderr
    kept = [f for f in json.loads(done.stdout)["findings"] if f["rule"] == "feature.update.others-kept"]
    assert [(f["exchange"], f["method"], f["where"], f["expected"], f["found"]) for f in kept] == [
        (
            1,
            "PUT",
            "data.attributes.external_ref",
            "'crm-7' (unchanged since exchange 0: not sent)",
            "'crm-2'",
        )
    ]
