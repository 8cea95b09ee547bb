"""Every stateful rule learns from every answer that shows the resource, whatever the operation or the
path's spelling: a table of (the operation that shows the state, in each spelling) x (the rule that
judges later) x (conformant: no finding; violating: the finding, naming the exchange the state came from).

Each sequence starts with a stale state (exchange 0), then the answer that shows the current one
(exchange 1), so a rule that missed the showing answer is wrong both ways: a false alarm on the
conformant case, silence on the violating one.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from proxy.core.model.exchange import Exchange
from proxy.core.rules.engine import Checker
from proxy.core.rules.findings import Finding
from proxy.core.rules.ruleset import RuleSet
from proxy.store.rule_files import load_rules
from proxy.store.shipped import shipped_dir
from tests.unit.core.exchanges import (
    ENTRY_PATH,
    FEATURE_ID,
    FEATURE_PATH,
    JSON_TYPE,
    REMOVE,
    changed,
    entry_document,
    exchange,
    feature_document,
    list_page,
    list_read,
    records,
    update_payload,
)

SPELLINGS: dict[str, Callable[[str], str]] = {
    "as documented": lambda path: path,
    "trailing slash": lambda path: path + "/",
    "repeated slashes": lambda path: path.replace("/v2/", "//v2//", 1),
    "upper-case version": lambda path: path.replace("/v2/", "/V2/", 1),
}
FEATURES = "/v2/subscriptions/features"
ENTRIES = "/v2/extensions/wishlists"


@pytest.fixture(scope="module")
def shipped() -> RuleSet:
    return load_rules(shipped_dir("rules"))


def findings_of(rule: str, exchanges: list[Exchange], ruleset: RuleSet) -> list[Finding]:
    return [finding for finding in Checker(ruleset).check_all(exchanges) if finding.rule == rule]


# --- features ---------------------------------------------------------------------------------------------

SHOWN_FEATURE = feature_document(external_ref="crm-7", description="Shown later")


def feature_shown_by(operation: str, path: Callable[[str], str]) -> Exchange:
    """An answer showing SHOWN_FEATURE, by one operation, its path spelled one way."""
    if operation == "GET read":
        return exchange("GET", path(FEATURE_PATH), body=SHOWN_FEATURE)
    if operation == "PUT answer":
        sent = update_payload(external_ref="crm-7", description="Shown later")
        return exchange("PUT", path(FEATURE_PATH), body=SHOWN_FEATURE, sent=sent)
    if operation == "POST create":
        return exchange("POST", path(FEATURES), status=201, body=SHOWN_FEATURE)
    other = changed(feature_document(name="Other feature"), "data.id", "11111111-2222-4333-8444-555555555555")
    listed = {"data": [other["data"], SHOWN_FEATURE["data"]], "links": {}, "meta": {}}
    return exchange("GET", path(FEATURES), body=listed)


def feature_judged(rule: str, violating: bool) -> Exchange:
    """The PUT a feature rule judges, after SHOWN_FEATURE was shown (at exchange 1)."""
    if rule == "feature.update.others-kept":  # name sent; external_ref must stay crm-7
        answered = feature_document(name="Platinum", external_ref="crm-7", description="Shown later")
        if violating:
            answered = changed(answered, "data.attributes.external_ref", "crm-1")
        sent = update_payload(name="Platinum")
    else:  # empty-unchanged: nothing sent, nothing changes
        answered = (
            changed(SHOWN_FEATURE, "data.attributes.description", "Gold tier perks")
            if violating
            else SHOWN_FEATURE
        )
        sent = update_payload()
    return exchange("PUT", FEATURE_PATH, body=answered, sent=sent)


FEATURE_CASES = [
    (operation, spelling, rule, violating)
    for operation in ("GET read", "PUT answer", "POST create", "list item")
    for spelling in SPELLINGS
    for rule in ("feature.update.others-kept", "feature.update.empty-unchanged")
    for violating in (False, True)
]


@pytest.mark.parametrize(("operation", "spelling", "rule", "violating"), FEATURE_CASES)
def test_a_feature_rule_judges_against_the_state_any_answer_showed(
    operation: str, spelling: str, rule: str, violating: bool, shipped: RuleSet
) -> None:
    stale = exchange("PUT", FEATURE_PATH, body=feature_document(), sent=update_payload(external_ref="crm-1"))
    found = findings_of(
        rule,
        [stale, feature_shown_by(operation, SPELLINGS[spelling]), feature_judged(rule, violating)],
        shipped,
    )
    if not violating:
        assert found == []
        return
    assert [(finding.exchange, finding.where) for finding in found] == [
        (2, "data.attributes.external_ref" if rule.endswith("others-kept") else "data.attributes.description")
    ]
    assert "exchange 1" in found[0].expected


def test_a_list_item_with_fewer_attributes_is_no_false_alarm(shipped: RuleSet) -> None:
    """A list item that leaves `description` and `meta` out says nothing of them: the update after it is
    judged only on what the item showed."""
    item = copy.deepcopy(SHOWN_FEATURE["data"])
    del item["attributes"]["description"], item["meta"]
    listed = exchange("GET", FEATURES, body={"data": [item]})
    kept = feature_document(name="Platinum", external_ref="crm-7", description="Anything")
    judged = exchange("PUT", FEATURE_PATH, body=kept, sent=update_payload(name="Platinum"))
    same = feature_document(external_ref="crm-7", description="Anything")
    empty = exchange("PUT", FEATURE_PATH, body=same, sent=update_payload())
    assert findings_of("feature.update.others-kept", [listed, judged], shipped) == []
    assert findings_of("feature.update.empty-unchanged", [listed, empty], shipped) == []


def test_a_features_own_answer_shows_every_attribute(shipped: RuleSet) -> None:
    """A read shows the feature whole: an attribute it had that the update's answer lacks (not sent) is
    a change."""
    dropped = feature_document(name="Platinum", external_ref="crm-7", description=REMOVE)
    shown = exchange("GET", FEATURE_PATH, body=SHOWN_FEATURE)
    judged = exchange("PUT", FEATURE_PATH, body=dropped, sent=update_payload(name="Platinum"))
    found = findings_of("feature.update.others-kept", [shown, judged], shipped)
    assert [(finding.where, finding.found) for finding in found] == [
        ("data.attributes.description", "absent")
    ]


# --- custom API entries -----------------------------------------------------------------------------------

ENTRY_ID = ENTRY_PATH.rsplit("/", 1)[1]


def weak(document: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    return (*JSON_TYPE, ("ETag", f'W/"{document["data"]["meta"]["etag_id"]}"'))


def entry_shown_by(operation: str, path: Callable[[str], str], document: dict[str, Any]) -> Exchange:
    """An answer showing `document`, by one operation, its path spelled one way."""
    if operation == "GET read":
        return exchange("GET", path(ENTRY_PATH), body=document, response_headers=weak(document))
    if operation == "PUT answer with ETag":
        return exchange("PUT", path(ENTRY_PATH), body=document, response_headers=weak(document))
    if operation == "PUT answer without ETag":
        return exchange("PUT", path(ENTRY_PATH), body=document)
    if operation == "POST create":
        return exchange("POST", path(ENTRIES), status=201, body=document, response_headers=weak(document))
    item = copy.deepcopy(document["data"])  # a list item with fewer fields
    del item["items_count"], item["meta"]["data_size"], item["links"]
    other = changed(entry_document(name="Other"), "data.id", "00000000-0000-4000-8000-000000000009")["data"]
    query, envelope = list_page(path=ENTRIES, limit=100, offset=0, total=2, data=[other, item])
    return exchange("GET", path(ENTRIES), query, body=envelope)


def read(document: dict[str, Any], etag_of: dict[str, Any] | None = None) -> Exchange:
    return exchange("GET", ENTRY_PATH, body=document, response_headers=weak(etag_of or document))


ENTRY_CASES = [
    (operation, spelling, rule, violating)
    for operation in (
        "GET read",
        "PUT answer with ETag",
        "PUT answer without ETag",
        "POST create",
        "list item",
    )
    for spelling in SPELLINGS
    for rule in ("entry.etag.changes-with-entry", "entry.etag.identifies-version")
    for violating in (False, True)
]


@pytest.mark.parametrize(("operation", "spelling", "rule", "violating"), ENTRY_CASES)
def test_an_etag_rule_judges_against_the_state_any_answer_showed(
    operation: str, spelling: str, rule: str, violating: bool, shipped: RuleSet
) -> None:
    """Version 1 is shown at exchange 1 (after version 0 was read); the read judged shows version 1's
    ETag with its content (conformant) or with another name (violating)."""
    shown = entry_document(version=1)
    sequence = [read(entry_document(version=0)), entry_shown_by(operation, SPELLINGS[spelling], shown)]
    if rule == "entry.etag.identifies-version":
        sequence.append(read(entry_document(name="Third", version=2)))  # the last state: another version
    judged = entry_document(name="Renamed", version=1) if violating else shown
    sequence.append(read(judged, etag_of=shown))
    found = findings_of(rule, sequence, shipped)
    other = (
        "entry.etag.identifies-version"
        if rule.endswith("changes-with-entry")
        else "entry.etag.changes-with-entry"
    )
    assert findings_of(other, sequence, shipped) == []  # one fact, one finding
    if not violating:
        assert found == []
        return
    assert [finding.exchange for finding in found] == [len(sequence) - 1]
    assert "exchange 1" in found[0].expected


def with_etag(document: dict[str, Any], etag_of: dict[str, Any]) -> Exchange:
    return exchange("PUT", ENTRY_PATH, body=document, response_headers=weak(etag_of))


def stale(document: dict[str, Any], earlier: dict[str, Any]) -> dict[str, Any]:
    """The document with the earlier one's etag_id: a service that kept both its ETag and etag_id."""
    kept = copy.deepcopy(document)
    kept["data"]["meta"]["etag_id"] = earlier["data"]["meta"]["etag_id"]
    return kept


def etag_history_findings(sequence: list[Exchange], ruleset: RuleSet) -> list[tuple[str, int, str]]:
    return [
        (finding.rule, finding.exchange, finding.expected)
        for finding in Checker(ruleset).check_all(sequence)
        if finding.rule in ("entry.etag.changes-with-entry", "entry.etag.identifies-version")
    ]


def test_an_etag_that_did_not_change_when_an_update_changed_the_entry(shipped: RuleSet) -> None:
    """The update's answer shows the new version under the old ETag; the read after it shows the same:
    the entry changed since exchange 0 and its ETag did not (one finding, on the read)."""
    old, renamed = entry_document(version=0), entry_document(name="Renamed", version=1)
    renamed = stale(renamed, old)  # the service kept its etag_id too (else the ETag is matches-etag-id's)
    sequence = [read(old), with_etag(renamed, old), read(renamed, etag_of=old)]
    assert etag_history_findings(sequence, shipped) == [
        (
            "entry.etag.changes-with-entry",
            2,
            "a new ETag: the entry differs from exchange 0 at data.meta.resource_version, data.name",
        )
    ]


def test_an_etag_that_comes_back_for_another_version_after_updates(shipped: RuleSet) -> None:
    """Version 0's ETag, then version 1's, then version 2 shown by its update under version 0's ETag
    and read so: that ETag named another version at exchange 0."""
    first, two = entry_document(version=0), entry_document(name="Two", version=2)
    two = stale(two, first)
    sequence = [
        read(first),
        with_etag(entry_document(name="One", version=1), entry_document(version=1)),
        with_etag(two, first),
        read(two, etag_of=first),
    ]
    assert etag_history_findings(sequence, shipped) == [
        (
            "entry.etag.identifies-version",
            3,
            "the representation of exchange 0, which had this ETag"
            " (differs at data.meta.resource_version, data.name)",
        )
    ]


def test_an_entry_read_by_another_id_shares_the_memory(shipped: RuleSet) -> None:
    """A path may name an entry by another field's value (api-notes): the read answering `data.id`
    learns under both, so the read by the uuid is judged against it."""
    shown = entry_document(version=1)
    by_slug = exchange("GET", f"{ENTRIES}/holiday-list", body=shown, response_headers=weak(shown))
    renamed = read(entry_document(name="Renamed", version=1), etag_of=shown)
    found = findings_of("entry.etag.changes-with-entry", [by_slug, renamed], shipped)
    assert [finding.exchange for finding in found] == [1]


def test_an_entry_of_another_custom_api_is_another_memory(shipped: RuleSet) -> None:
    shown = entry_document(version=1)
    elsewhere = exchange("GET", f"/v2/extensions/carts/{ENTRY_ID}", body=shown, response_headers=weak(shown))
    renamed = read(entry_document(name="Renamed", version=1), etag_of=shown)
    assert findings_of("entry.etag.changes-with-entry", [elsewhere, renamed], shipped) == []


# --- walks and the default page length ----------------------------------------------------------------------


def test_a_sorted_walk_is_one_memory_whatever_the_path_spelling(shipped: RuleSet) -> None:
    first = records(3)
    first[2]["meta"]["timestamps"]["created_at"] = first[1]["meta"]["timestamps"]["created_at"]
    shared = first[1]["meta"]["timestamps"]["created_at"]
    query, body = list_page(limit=3, offset=0, total=9, data=first, extra="&sort=created_at")
    follow = f"page[limit]=3&sort=created_at&filter=gt(created_at,{shared})"
    _, next_body = list_page(limit=3, offset=0, total=6, data=records(3, start=3))
    for spelled in SPELLINGS.values():
        walk = [
            list_read(path=spelled("/v2/products"), query=query, body=body),
            list_read(query=follow, body=next_body),
        ]
        found = findings_of("pagination.sort-filter.shared-timestamp-skipped", walk, shipped)
        assert [(finding.exchange, "exchange 0" in finding.expected) for finding in found] == [(1, True)]


def test_the_default_page_length_is_learned_from_a_list_whose_filter_says_limit(shipped: RuleSet) -> None:
    """No `page[limit]` was sent, though the query holds the word: the answer shows the default."""
    _, body = list_page(limit=25, offset=0, total=5)
    learned = list_read(query="filter=eq(name,unlimited)", body=body)
    _, other = list_page(path="/v2/brands", limit=10, offset=0, total=5)
    found = findings_of(
        "pagination.page.limit-requested",
        [learned, list_read(path="/v2/brands", query="", body=other)],
        shipped,
    )
    assert [(finding.exchange, "exchange 0" in finding.expected) for finding in found] == [(1, True)]


def test_the_feature_id_in_the_path_is_the_key_in_any_case(shipped: RuleSet) -> None:
    shown = exchange("GET", FEATURE_PATH.replace(FEATURE_ID, FEATURE_ID.upper()), body=SHOWN_FEATURE)
    assert [
        f.exchange
        for f in findings_of(
            "feature.update.others-kept", [shown, feature_judged("feature.update.others-kept", True)], shipped
        )
    ] == [1]
