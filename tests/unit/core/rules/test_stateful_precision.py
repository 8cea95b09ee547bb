"""The stateful rules on material nobody here wrote: one fact, one finding; no fact lost to a partial or
stale answer; a number is its value however it is spelled.

Generated tables, through the Checker:
- polling one entry under one ETag over lengths 2..20 in several patterns of representations: each
  distinct representation the ETag is seen on is one finding, at its first read;
- a features list between two updates whose item leaves out each attribute, the item at each position:
  what the item does not show keeps the value an earlier answer showed;
- a stale state (an earlier `updated_at`, a lower `resource_version`) before or after the fresh one: it
  replaces nothing;
- each field of an entry and of a feature's configuration in several spellings of one number;
- a null sent inside a configuration, which the documentation gives no meaning, is not judged as sent.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from proxy.core.model.exchange import Exchange
from proxy.core.model.json_text import parse_json
from proxy.core.rules.engine import Checker
from proxy.core.rules.ruleset import RuleSet
from proxy.store.rule_files import load_rules
from proxy.store.shipped import shipped_dir
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

HISTORY = ("entry.etag.changes-with-entry", "entry.etag.identifies-version")
FEATURES = "/v2/subscriptions/features"
ENTRIES = "/v2/extensions/wishlists"
ETAG = 'W/"' + "a" * 64 + '"'  # entry_document(version=10)'s etag_id
OTHER_IDS = ("11111111-2222-4333-8444-555555555555", "66666666-7777-4888-9999-000000000000")


@pytest.fixture(scope="module")
def shipped() -> RuleSet:
    return load_rules(shipped_dir("rules"))


def found(sequence: list[Exchange], ruleset: RuleSet, *rules: str) -> list[tuple[str, int, str, str]]:
    return [
        (finding.rule, finding.exchange, finding.where, finding.expected)
        for finding in Checker(ruleset).check_all(sequence)
        if finding.rule in rules
    ]


# --- one fact: an entry polled under one ETag ---------------------------------------------------------


def read(document: Any, etag: str = ETAG) -> Exchange:
    return exchange("GET", ENTRY_PATH, body=document, response_headers=(*JSON_TYPE, ("ETag", etag)))


def named(name: str) -> dict[str, Any]:
    return entry_document(name=name, version=10)


PATTERNS = {
    "alternating": lambda length: ["AB"[n % 2] for n in range(length)],
    "changed once, back at the end": lambda length: ["A", *["B"] * (length - 2), "A"][:length],
    "cycle of three": lambda length: ["ABC"[n % 3] for n in range(length)],
    "runs of three": lambda length: ["ABC"[(n // 3) % 3] for n in range(length)],
    "one change": lambda length: ["A"] * (length // 2) + ["B"] * (length - length // 2),
}


@pytest.mark.parametrize("length", range(2, 21))
@pytest.mark.parametrize("pattern", PATTERNS)
def test_each_representation_an_etag_is_seen_on_is_one_finding(
    pattern: str, length: int, shipped: RuleSet
) -> None:
    """Reads of one entry, all under one ETag, named as the pattern says: one finding per distinct
    representation after the first, at the read that first shows it, naming the field that differs
    and the read before it that showed another one."""
    names = PATTERNS[pattern](length)
    sequence = [read(named(name)) for name in names]
    firsts = [n for n, name in enumerate(names) if name not in names[:n]][1:]
    assert found(sequence, shipped, *HISTORY) == [
        (
            "entry.etag.changes-with-entry",
            n,
            "headers.ETag",
            f"a new ETag: the entry differs from exchange {n - 1} at data.name",
        )
        for n in firsts
    ]


@pytest.mark.parametrize("length", range(2, 12))
def test_an_update_answer_showing_a_representation_again_is_no_new_fact(
    length: int, shipped: RuleSet
) -> None:
    """Read A, then `length` rounds of an update answered with B and a read of B, all under one ETag:
    the entry changed once under that ETag, one finding, at the first read after the update."""
    sequence = [read(named("A"))]
    for _ in range(length):
        sequence += [
            exchange("PUT", ENTRY_PATH, body=named("B"), response_headers=(*JSON_TYPE, ("ETag", ETAG)))
        ]
        sequence += [read(named("B"))]
    assert found(sequence, shipped, *HISTORY) == [
        (
            "entry.etag.changes-with-entry",
            2,
            "headers.ETag",
            "a new ETag: the entry differs from exchange 0 at data.name",
        )
    ]


# --- a list item shows fewer fields: it merges, never wipes -------------------------------------------

ATTRIBUTES = {"name": "Gold access", "description": "d0", "external_ref": "crm-1"}
SENT_INSTEAD = {"name": "description", "description": "name", "external_ref": "name"}


def features_list(item: dict[str, Any], position: int) -> Exchange:
    others = [changed(feature_document(name=f"Other {n}"), "data.id", OTHER_IDS[n])["data"] for n in range(2)]
    return exchange("GET", FEATURES, body={"data": [*others[:position], item, *others[position:]]})


@pytest.mark.parametrize("position", [0, 1, 2])
@pytest.mark.parametrize("dropped", ["name", "description", "external_ref", "configuration", "meta"])
@pytest.mark.parametrize("violating", [False, True])
def test_a_list_item_leaving_a_field_out_keeps_what_an_earlier_answer_showed(
    dropped: str, position: int, violating: bool, shipped: RuleSet
) -> None:
    """An update answered with the feature, the list whose item for it leaves `dropped` out (the item
    at `position`), then an update of another attribute: the attribute not sent must keep the value the
    last answer that showed it (a change of it is one finding, naming that exchange), and an empty update
    answered as before changes nothing."""
    first = exchange(
        "PUT", FEATURE_PATH, body=feature_document(**ATTRIBUTES), sent=update_payload(description="d0")
    )
    item = feature_document(**ATTRIBUTES)["data"]
    del (item if dropped == "meta" else item["attributes"])[dropped]
    watched = "description" if dropped in ("meta", "configuration") else dropped
    sent = SENT_INSTEAD[watched]
    answered = {**ATTRIBUTES, sent: "Sent value", watched: "CHANGED" if violating else ATTRIBUTES[watched]}
    update = exchange(
        "PUT", FEATURE_PATH, body=feature_document(**answered), sent=update_payload(**{sent: "Sent value"})
    )
    sequence = [first, features_list(item, position), update]
    expected = [
        (
            "feature.update.others-kept",
            2,
            f"data.attributes.{watched}",
            f"{ATTRIBUTES[watched]!r} (unchanged since exchange {0 if watched == dropped else 1}: not sent)",
        )
    ]
    assert found(sequence, shipped, "feature.update.others-kept") == (expected if violating else [])
    empty = exchange("PUT", FEATURE_PATH, body=feature_document(**ATTRIBUTES), sent=update_payload())
    assert (
        found([first, features_list(item, position), empty], shipped, "feature.update.empty-unchanged") == []
    )


# --- a stale state replaces nothing ---------------------------------------------------------------------


def stamped(document: dict[str, Any], updated_at: str) -> dict[str, Any]:
    return changed(document, "data.meta.timestamps.updated_at", updated_at)


FRESH_AT, STALE_AT = "2026-01-03T00:00:00.000Z", "2026-01-02T00:00:00.000Z"


def stale_feature(how: str) -> Exchange:
    document = stamped(feature_document(name="Old name"), STALE_AT)
    if how == "list item":
        return exchange("GET", FEATURES, body={"data": [document["data"]]})
    return exchange("GET", FEATURE_PATH, body=document)


@pytest.mark.parametrize("how", ["list item", "read"])
@pytest.mark.parametrize("order", ["fresh then stale", "stale then fresh"])
@pytest.mark.parametrize("violating", [False, True])
def test_a_stale_feature_state_replaces_no_fresher_one(
    how: str, order: str, violating: bool, shipped: RuleSet
) -> None:
    """A PUT answered with "New name" at 2026-01-03 and a state of the feature as it was (an earlier
    `updated_at`), in either order, then an empty update: answered as the PUT, no finding; answered
    renamed, one finding comparing with the PUT's answer."""
    fresh_document = stamped(feature_document(name="New name"), FRESH_AT)
    fresh = exchange("PUT", FEATURE_PATH, body=fresh_document, sent=update_payload(name="New name"))
    shown = [fresh, stale_feature(how)] if order == "fresh then stale" else [stale_feature(how), fresh]
    fresh_at = shown.index(fresh)
    answered = changed(fresh_document, "data.attributes.name", "Renamed") if violating else fresh_document
    sequence = [*shown, exchange("PUT", FEATURE_PATH, body=answered, sent=update_payload())]
    expected = [
        (
            "feature.update.empty-unchanged",
            2,
            "data.attributes.name",
            f"'New name' (as at exchange {fresh_at}: empty update)",
        )
    ]
    assert found(sequence, shipped, "feature.update.empty-unchanged") == (expected if violating else [])


def entry_at(name: str, version: int, updated_at: str) -> dict[str, Any]:
    return stamped(entry_document(name=name, version=version), updated_at)


@pytest.mark.parametrize("staleness", ["updated_at", "resource_version", "both"])
@pytest.mark.parametrize("order", ["fresh then stale", "stale then fresh"])
def test_a_stale_entry_list_item_breaks_no_run_of_its_etag(
    staleness: str, order: str, shipped: RuleSet
) -> None:
    """A read of the entry's version 11 and a list item of it as it was (version 10, or an earlier
    `updated_at`), in either order, then a read under version 11's ETag: as before, no finding; with a
    new name: the ETag did not follow a
    change (changes-with-entry), not an ETag that came back (the stale item names no later version)."""
    fresh = entry_at("Fresh", 11, FRESH_AT)
    old = entry_at(
        "Old",
        10 if staleness != "updated_at" else 11,
        STALE_AT if staleness != "resource_version" else FRESH_AT,
    )
    old = changed(old, "data.meta.etag_id", "c" * 64)
    fresh_etag = f'W/"{fresh["data"]["meta"]["etag_id"]}"'
    listed = exchange("GET", ENTRIES, body={"data": [old["data"]]})
    shown = (
        [read(fresh, fresh_etag), listed]
        if order == "fresh then stale"
        else [listed, read(fresh, fresh_etag)]
    )
    assert found([*shown, read(fresh, fresh_etag)], shipped, *HISTORY) == []
    renamed = read(changed(fresh, "data.name", "Renamed"), fresh_etag)
    last = found([*shown, renamed], shipped, *HISTORY)
    assert [(rule, where) for rule, _, where, _ in last] == [
        ("entry.etag.changes-with-entry", "headers.ETag")
    ]


# --- a number is its value, however spelled -------------------------------------------------------------

SPELLINGS = {
    0: ["0.0", "-0", "0E0", "0.00e1"],
    10: ["10.0", "1E1", "1.0E1", "100e-1"],
    6: ["6.0", "6E0", "60E-1"],
}
NUMBER_FIELDS = {"items_count": 0, "meta.resource_version": 10, "meta.data_size": 6}


def spelled(document: dict[str, Any], place: str, text: str) -> Any:
    """The document as the service's JSON text would spell `place`'s number (parsed as the store does)."""
    marker = "__NUMBER__"
    return parse_json(json.dumps(changed(document, f"data.{place}", marker)).replace(f'"{marker}"', text))


@pytest.mark.parametrize(
    ("place", "text"), [(place, text) for place, value in NUMBER_FIELDS.items() for text in SPELLINGS[value]]
)
@pytest.mark.parametrize("first_plain", [True, False])
def test_an_entry_number_spelled_otherwise_is_the_same_value(
    place: str, text: str, first_plain: bool, shipped: RuleSet
) -> None:
    """Two reads under one ETag, one field's number spelled another way: no change; a third read with
    another value there is one change, at that field."""
    plain, other = named("A"), spelled(named("A"), place, text)
    sequence = [read(plain), read(other)] if first_plain else [read(other), read(plain)]
    assert found(sequence, shipped, *HISTORY) == []
    bumped = changed(named("A"), f"data.{place}", NUMBER_FIELDS[place] + 1)
    assert found([*sequence, read(bumped)], shipped, *HISTORY) == [
        (
            "entry.etag.changes-with-entry",
            2,
            "headers.ETag",
            f"a new ETag: the entry differs from exchange 1 at data.{place}",
        )
    ]


CONFIGURATIONS = [
    ({"type": "usage", "tag": "api", "limit": 5}, {"type": "usage", "tag": "api", "limit": 5.0}),
    ({"type": "usage", "tag": "api", "limit": 100}, {"type": "usage", "tag": "api", "limit": 1e2}),
    (
        {"type": "usage", "tag": "api", "limits": [0, 1]},
        {"type": "usage", "tag": "api", "limits": [-0.0, 1.0]},
    ),
]


@pytest.mark.parametrize(("plain", "respelled"), CONFIGURATIONS)
def test_a_feature_number_spelled_otherwise_is_the_same_value(
    plain: dict[str, Any], respelled: dict[str, Any], shipped: RuleSet
) -> None:
    """A configuration sent with one spelling of its numbers and answered with another is applied; kept
    across an update of the name in another spelling, it is kept."""
    rules = ("feature.update.sent-applied", "feature.update.others-kept", "feature.update.empty-unchanged")
    sequence = [
        exchange(
            "PUT",
            FEATURE_PATH,
            body=feature_document(configuration=respelled),
            sent=update_payload(configuration=plain),
        ),
        exchange(
            "PUT",
            FEATURE_PATH,
            body=feature_document(name="N", configuration=plain),
            sent=update_payload(name="N"),
        ),
        exchange(
            "PUT",
            FEATURE_PATH,
            body=feature_document(name="N", configuration=respelled),
            sent=update_payload(),
        ),
    ]
    assert found(sequence, shipped, *rules) == []


def test_true_is_not_one(shipped: RuleSet) -> None:
    """A configuration value sent as `true` and answered `1` was not applied as sent."""
    sent = {"type": "usage", "tag": "api", "enabled": True}
    answered = {"type": "usage", "tag": "api", "enabled": 1}
    update = exchange(
        "PUT",
        FEATURE_PATH,
        body=feature_document(configuration=answered),
        sent=update_payload(configuration=sent),
    )
    assert found([update], shipped, "feature.update.sent-applied") == [
        ("feature.update.sent-applied", 0, "data.attributes.configuration.enabled", "true (as sent)")
    ]


# --- a null sent inside a configuration -------------------------------------------------------------------


@pytest.mark.parametrize("key", ["default_value", "limit", "promotions"])
@pytest.mark.parametrize("answered", ["a value", "null", "absent"])
def test_a_null_sent_inside_a_configuration_is_not_judged_as_sent(
    key: str, answered: str, shipped: RuleSet
) -> None:
    """A configuration key the documentation does not define sent as null may come back with a value,
    null or not at all; the keys sent with values are still judged."""
    sent = {"type": "access", "tag": "premium", key: None}
    back: dict[str, Any] = {"type": "access", "tag": "premium"}
    if answered != "absent":
        back[key] = "kept" if answered == "a value" else None
    update = exchange(
        "PUT",
        FEATURE_PATH,
        body=feature_document(configuration=back),
        sent=update_payload(configuration=sent),
    )
    assert found([update], shipped, "feature.update.sent-applied") == []
    wrong = exchange(
        "PUT",
        FEATURE_PATH,
        body=feature_document(configuration={**back, "tag": "other"}),
        sent=update_payload(configuration=sent),
    )
    assert [where for _, _, where, _ in found([wrong], shipped, "feature.update.sent-applied")] == [
        "data.attributes.configuration.tag"
    ]


def test_a_list_item_without_description_then_a_changed_description(shipped: RuleSet) -> None:
    """The outsider's case: PUT answered with description "d0", the list's item without `description`,
    then a PUT of the name alone answered with description "CHANGED": one finding."""
    item = changed(feature_document(description="d0"), "data.attributes.description", REMOVE)["data"]
    sequence = [
        exchange(
            "PUT",
            FEATURE_PATH,
            body=feature_document(description="d0"),
            sent=update_payload(description="d0"),
        ),
        exchange("GET", FEATURES, body={"data": [item]}),
        exchange(
            "PUT",
            FEATURE_PATH,
            body=feature_document(description="CHANGED"),
            sent=update_payload(name="Gold access"),
        ),
    ]
    assert [
        (rule, n, where) for rule, n, where, _ in found(sequence, shipped, "feature.update.others-kept")
    ] == [("feature.update.others-kept", 2, "data.attributes.description")]
