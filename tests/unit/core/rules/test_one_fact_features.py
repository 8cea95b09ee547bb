"""One fact, one finding on a feature update: a value that breaks its field's own documented shape is
reported by that field's rule alone, not again by a rule that compares it with what was sent, with the
state before, or with the path; and a payload the service accepted is the service's error alone.

The table is drawn by loops over every attribute with a documented shape, several ways to break each,
and each way a value can come back (sent and answered otherwise, not sent and changed, sent invalid).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from proxy.core.model.exchange import Exchange
from proxy.core.rules.engine import Checker
from proxy.store.rule_files import load_rules
from proxy.store.shipped import shipped_dir
from tests.unit.core.exchanges import (
    FEATURE_ID,
    FEATURE_PATH,
    changed,
    error_document,
    exchange,
    feature_document,
    feature_update,
    update_payload,
)

RULES = load_rules(shipped_dir("rules"))
CONFIGURATION = {"type": "access", "tag": "gold_tier-1"}

# attribute (a dotted place under data.attributes), its shape rule, values that break it, a valid other
FIELDS: list[tuple[str, str, list[Any], Any]] = [
    ("name", "feature.name.length", ["ab", "", "x" * 1025, 42], "Platinum access"),
    ("description", "feature.description.length", ["x" * 1025, 7], "Platinum perks"),
    ("external_ref", "feature.external-ref.length", ["x" * 2049, ["crm"]], "crm-9"),
    ("configuration.tag", "feature.configuration.tag", ["a b", "", "x" * 65, "tag!"], "platinum"),
    ("configuration.type", "feature.configuration.type", ["gift", 3], "usage"),
]


def answered(place: str, value: Any) -> dict[str, Any]:
    return changed(feature_document(), f"data.attributes.{place}", value)


def sending(place: str, value: Any) -> dict[str, Any]:
    """An update payload that sends `place` (the whole configuration, for a configuration field)."""
    if place.startswith("configuration."):
        return update_payload(configuration={**CONFIGURATION, place.split(".")[1]: value})
    return update_payload(**{place: value})


def read_first() -> Exchange:
    """A read of the feature before the update: the state `others-kept` compares with."""
    return exchange("GET", FEATURE_PATH, body=feature_document())


def cases() -> Iterator[Any]:
    for place, rule, broken_values, other in FIELDS:
        sent_elsewhere = "description" if place != "description" else "name"
        for broken in broken_values:
            label = f"{place}={broken!r:.20}"
            yield pytest.param(
                [feature_update(sent=sending(place, other), body=answered(place, broken))],
                [(rule, f"data.attributes.{place}")],
                id=f"sent valid, answered broken: {label}",
            )
            yield pytest.param(
                [
                    read_first(),
                    feature_update(
                        sent=sending(sent_elsewhere, "Kept"), body=answered(sent_elsewhere, "Kept")
                    ),
                ],
                [],
                id=f"base of not sent: {label}",
            )
            body = changed(answered(sent_elsewhere, "Kept"), f"data.attributes.{place}", broken)
            yield pytest.param(
                [read_first(), feature_update(sent=sending(sent_elsewhere, "Kept"), body=body)],
                [(rule, f"data.attributes.{place}")],
                id=f"not sent, answered broken: {label}",
            )
            yield pytest.param(
                [feature_update(sent=sending(place, broken), body=feature_document())],
                [("feature.update.invalid-accepted", f"data.attributes.{place}")],
                id=f"sent broken, accepted: {label}",
            )
            yield pytest.param(
                [feature_update(sent=sending(place, broken), status=400, body=error_document(400))],
                [("feature.update.payload", f"data.attributes.{place}")],
                id=f"sent broken, refused: {label}",
            )
        yield pytest.param(
            [feature_update(sent=sending(place, other), body=feature_document())],
            [("feature.update.sent-applied", f"data.attributes.{place}")],
            id=f"sent valid, answered another valid value: {place}",
        )
        body = changed(answered(sent_elsewhere, "Kept"), f"data.attributes.{place}", other)
        yield pytest.param(
            [read_first(), feature_update(sent=sending(sent_elsewhere, "Kept"), body=body)],
            [("feature.update.others-kept", f"data.attributes.{place}")],
            id=f"not sent, changed to another valid value: {place}",
        )
    for broken_id in ("feature-1", "", "1234"):
        yield pytest.param(
            [feature_update(body=changed(feature_document(), "data.id", broken_id))],
            [("feature.id.uuid", "data.id")],
            id=f"an id that is no UUID: {broken_id!r}",
        )
    other_id = FEATURE_ID[:-1] + ("0" if FEATURE_ID[-1] != "0" else "1")
    yield pytest.param(
        [feature_update(body=changed(feature_document(), "data.id", other_id))],
        [("feature.id.matches-path", "data.id")],
        id="another feature's UUID",
    )


@pytest.mark.parametrize(("exchanges", "expected"), list(cases()))
def test_one_wrong_value_is_one_finding(exchanges: list[Exchange], expected: list[tuple[str, str]]) -> None:
    found = Checker(RULES).check_all(exchanges)
    last = len(exchanges) - 1
    assert [(f.rule, f.where) for f in found if f.exchange == last and f.severity != "info"] == expected
