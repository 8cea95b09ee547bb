"""The ETag history of a custom API entry: one fact, one finding.

- A field one representation shows and another leaves out is no evidence of a change (the published read
  omits `meta.etag_id`; a list item carries fewer fields): a table drops each field of the entry, in each
  read of a sequence, and wants silence when nothing else changed and the finding when something did.
- Once a read was reported for showing a changed entry under a stale ETag, showing that representation
  again under that ETag (a client polling the entry) is the same fact: a table of polling lengths 2..6.
"""

from __future__ import annotations

from typing import Any

import pytest

from proxy.core.model.exchange import Exchange
from proxy.core.rules.engine import Checker
from proxy.core.rules.ruleset import RuleSet
from proxy.store.rule_files import load_rules
from proxy.store.shipped import shipped_dir
from tests.unit.core.exchanges import (
    ENTRY_PATH,
    JSON_TYPE,
    REMOVE,
    changed,
    entry_document,
    entry_read,
    exchange,
)

HISTORY = ("entry.etag.changes-with-entry", "entry.etag.identifies-version")
ETAG_A = 'W/"' + "a" * 64 + '"'
ETAG_B = 'W/"' + "b" * 64 + '"'

# every field of the entry's `data` but its links (addresses, never compared), objects and their fields
FIELDS = [
    "data.id",
    "data.type",
    "data.name",
    "data.items_count",
    "data.meta",
    "data.meta.timestamps",
    "data.meta.timestamps.created_at",
    "data.meta.timestamps.updated_at",
    "data.meta.data_size",
    "data.meta.resource_version",
    "data.meta.etag_id",
]


@pytest.fixture(scope="module")
def shipped() -> RuleSet:
    return load_rules(shipped_dir("rules"))


def read(document: dict[str, Any], etag: str = ETAG_A, method: str = "GET") -> Exchange:
    return exchange(method, ENTRY_PATH, body=document, response_headers=(*JSON_TYPE, ("ETag", etag)))


def entry(name: str = "My Wishlist") -> dict[str, Any]:
    """The entry whose etag_id is ETAG_A's hash (version 10 is "a" * 64), named `name`."""
    return entry_document(name=name, version=10)


def history(sequence: list[Exchange], ruleset: RuleSet) -> list[tuple[str, int, str]]:
    return [
        (finding.rule, finding.exchange, finding.expected)
        for finding in Checker(ruleset).check_all(sequence)
        if finding.rule in HISTORY
    ]


def test_the_outsiders_reads_one_without_etag_id_are_one_version(shipped: RuleSet) -> None:
    """Three reads, one ETag, one body, the first without `data.meta.etag_id` (as the published read):
    the absence is `entry.etag-id.absent`'s note, and no change of the entry."""
    without = changed(entry(), "data.meta.etag_id", REMOVE)
    sequence = [read(without), read(entry()), read(entry())]
    found = [
        (f.rule, f.exchange) for f in Checker(shipped).check_all(sequence) if f.rule.startswith("entry.")
    ]
    assert found == [("entry.etag-id.absent", 0)]


@pytest.mark.parametrize("place", FIELDS)
@pytest.mark.parametrize("dropped_in", [0, 1, 2])
@pytest.mark.parametrize("changes", [False, True])
def test_a_field_left_out_is_no_change_and_hides_no_change(
    place: str, dropped_in: int, changes: bool, shipped: RuleSet
) -> None:
    """Three reads under one ETag; read `dropped_in` leaves `place` out. Unchanged otherwise: silence.
    The last read renamed (when the name is not the field left out): one finding, on it."""
    documents = [entry(), entry(), entry("Renamed" if changes else "My Wishlist")]
    documents[dropped_in] = changed(documents[dropped_in], place, REMOVE)
    found = history([read(document) for document in documents], shipped)
    name_shown = [place != "data.name" or index != dropped_in for index in range(3)]
    if not changes or not name_shown[2] or not any(name_shown[:2]):
        assert found == []
        return
    shown_at = max(index for index in range(2) if name_shown[index])
    assert found == [
        (
            "entry.etag.changes-with-entry",
            2,
            f"a new ETag: the entry differs from exchange {shown_at} at data.name",
        )
    ]


@pytest.mark.parametrize("operation", ["PUT answer", "list item"])
@pytest.mark.parametrize("place", [place for place in FIELDS if place != "data.id"])
def test_a_read_with_more_fields_than_another_answer_is_no_change(
    operation: str, place: str, shipped: RuleSet
) -> None:
    """Another operation's answer under the same version, with `place` left out, then a read of the
    entry whole, then a read with `place` left out: one version throughout."""
    partial = changed(entry(), place, REMOVE)
    if operation == "PUT answer":
        shown = read(partial, method="PUT")
    else:
        shown = exchange("GET", "/v2/extensions/wishlists", body={"data": [partial["data"]], "links": {}})
    sequence = [shown, read(entry()), read(partial)]
    assert history(sequence, shipped) == []


@pytest.mark.parametrize(
    ("place", "other"),
    [
        ("data.meta.timestamps", "2024-01-01"),  # an object shown as a value
        ("data.items_count", {"count": 0}),  # a value shown as an object
        ("data.meta.timestamps.updated_at", "2024-02-01T00:00:00.000Z"),
        ("data.meta.resource_version", 11),  # the service's own count of changes
        ("data.items_count", None),
    ],
)
def test_a_field_both_show_otherwise_is_a_change(place: str, other: Any, shipped: RuleSet) -> None:
    sequence = [read(entry()), read(changed(entry(), place, other))]
    assert history(sequence, shipped) == [
        ("entry.etag.changes-with-entry", 1, f"a new ETag: the entry differs from exchange 0 at {place}")
    ]


def test_an_etag_id_that_disagrees_with_the_etag_is_one_finding(shipped: RuleSet) -> None:
    """The etag_id names the version: one that disagrees with its ETag is `entry.etag.matches-etag-id`'s
    finding, not also a change of the entry."""
    sequence = [read(entry()), read(changed(entry(), "data.meta.etag_id", "c" * 64))]
    found = [
        (f.rule, f.exchange) for f in Checker(shipped).check_all(sequence) if f.rule.startswith("entry.")
    ]
    assert found == [("entry.etag.matches-etag-id", 1)]


@pytest.mark.parametrize("polls", range(2, 7))
def test_a_changed_entry_polled_under_its_stale_etag_is_one_finding(polls: int, shipped: RuleSet) -> None:
    """Read "My Wishlist" under ETag a, then `polls - 1` reads of "Other" under ETag a: the entry changed
    once and its ETag did not, one finding; reading it back as it was is a representation that ETag was
    already seen on (no new fact), while a third one is a new finding."""
    sequence = [read(entry())] + [read(entry("Other")) for _ in range(polls - 1)]
    renamed = [
        ("entry.etag.changes-with-entry", 1, "a new ETag: the entry differs from exchange 0 at data.name")
    ]
    assert history(sequence, shipped) == renamed
    assert history([*sequence, read(entry())], shipped) == renamed
    third = history([*sequence, read(entry()), read(entry("Third"))], shipped)
    assert third[1:] == [
        (
            "entry.etag.changes-with-entry",
            polls + 1,
            f"a new ETag: the entry differs from exchange {polls} at data.name",
        )
    ]


@pytest.mark.parametrize("polls", range(2, 7))
@pytest.mark.parametrize("via", ["read", "PUT answer"])
def test_an_etag_back_on_a_new_version_polled_is_one_finding(polls: int, via: str, shipped: RuleSet) -> None:
    """ETag a on "My Wishlist", ETag b on "Other", then ETag a on "Third" (by a read, or by an update's
    answer and the read after it), read `polls` times: ETag a named another version, one finding."""
    start = [read(entry()), read(entry("Other"), ETAG_B)]
    if via == "PUT answer":
        start.append(read(entry("Third"), method="PUT"))
    sequence = start + [read(entry("Third")) for _ in range(polls)]
    assert history(sequence, shipped) == [
        (
            "entry.etag.identifies-version",
            2 if via == "read" else 3,
            "the representation of exchange 0, which had this ETag (differs at data.name)",
        )
    ]


def test_a_field_only_an_earlier_read_showed_is_still_remembered(shipped: RuleSet) -> None:
    """Read 0 shows the name, read 1 leaves it out, read 2 shows another name under the same ETag: the
    change is from exchange 0 (the read that showed the name)."""
    sequence = [read(entry()), read(changed(entry(), "data.name", REMOVE)), read(entry("Renamed"))]
    assert history(sequence, shipped) == [
        ("entry.etag.changes-with-entry", 2, "a new ETag: the entry differs from exchange 0 at data.name")
    ]


@pytest.mark.parametrize("reads_after", [1, 2, 4])
def test_a_stale_etag_after_an_update_is_one_finding_per_read(reads_after: int) -> None:
    """After an update, reads that send the pre-update ETag on the new body (whose etag_id is right):
    the ETag contradicts the body's etag_id, which is matches-etag-id's finding; the history rules do
    not report the same wrong value again."""
    old, new = "a" * 64, "b" * 64
    first = changed(entry_document(), "data.meta.etag_id", old)
    updated = changed(changed(first, "data.name", "Renamed"), "data.meta.etag_id", new)
    exchanges = [
        entry_read(first, etag=f'W/"{old}"'),
        exchange("PUT", ENTRY_PATH, body=updated, response_headers=(*JSON_TYPE, ("ETag", f'W/"{new}"'))),
        *(entry_read(updated, etag=f'W/"{old}"') for _ in range(reads_after)),
    ]
    found = [
        (f.exchange, f.rule)
        for f in Checker(load_rules(shipped_dir("rules"))).check_all(exchanges)
        if f.severity != "info"
    ]
    assert found == [(index, "entry.etag.matches-etag-id") for index in range(2, 2 + reads_after)]


@pytest.mark.parametrize("etag_id", [123, {"a": 1}, None, ["x"]])
def test_an_etag_id_that_is_no_hash_string_is_noted_and_never_compared(etag_id: object) -> None:
    document = changed(entry_document(), "data.meta.etag_id", etag_id)
    found = [
        (f.rule, f.found)
        for f in Checker(load_rules(shipped_dir("rules"))).check_all([entry_read(document, etag='W/"123"')])
    ]
    assert [rule for rule, _ in found] == ["entry.etag-id.absent"]
    assert "no hash string" in found[0][1]
