"""The relational feature update rules report at the deepest place that changed, with the values there,
and an empty update that changed the feature is one finding naming every place that changed.

The table loops over places inside the configuration (documented fields and the service's own nested
ones, inside objects and arrays) and the kinds of value a place can change to, for each rule that
compares an answer with what was sent or with the state before.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import pytest

from proxy.core.model.exchange import Exchange
from proxy.core.rules.engine import Checker
from proxy.core.rules.ruleset import RuleSet
from proxy.store.rule_files import load_rules
from proxy.store.shipped import shipped_dir
from tests.unit.core.exchanges import (
    FEATURE_PATH,
    REMOVE,
    changed,
    exchange,
    feature_document,
    update_payload,
)

RELATIONAL = (
    "feature.update.sent-applied",
    "feature.update.others-kept",
    "feature.update.null-removes",
    "feature.update.empty-unchanged",
)
CONFIGURATION = {
    "type": "usage",
    "tag": "premium",
    "limit": {"count": 5, "period": "day"},
    "promotions": [{"tag": "p1", "percent": 10}],
}
LATER = "2024-03-01T00:00:00.000Z"

# a documented field whose removal breaks the feature's shape: its shape rule reports it, the relational
# rules stay quiet (one fact, one finding)
SHAPE_RULES = {"tag": "feature.configuration.tag"}

# a place inside the configuration, its value in CONFIGURATION (or REMOVE: absent), values it may change to
PLACES: list[tuple[str, Any, list[Any]]] = [
    ("tag", "premium", ["changed", REMOVE]),
    ("type", "usage", ["access"]),
    ("limit.count", 5, [6, "5", None, True, {"n": 5}, [5], REMOVE]),
    ("limit.period", "day", ["week", REMOVE]),
    ("limit", CONFIGURATION["limit"], ["daily"]),  # an object shown as a value
    ("limit.extra", REMOVE, [1, "x"]),  # a field the state before did not have
    ("promotions.0.tag", "p1", ["p2"]),
    ("promotions.0.percent", 10, [15]),
]


@pytest.fixture(scope="module")
def shipped() -> RuleSet:
    return load_rules(shipped_dir("rules"))


def found(sequence: list[Exchange], ruleset: RuleSet) -> list[tuple[str, int, str, str, str]]:
    return [
        (finding.rule, finding.exchange, finding.where, finding.expected, finding.found)
        for finding in Checker(ruleset).check_all(sequence)
        if finding.rule in RELATIONAL
    ]


def feature(configuration: Any = None, **attributes: Any) -> dict[str, Any]:
    return feature_document(
        configuration=CONFIGURATION if configuration is None else configuration, **attributes
    )


def with_configuration(place: str, value: Any) -> dict[str, Any]:
    return changed(feature(), f"data.attributes.configuration.{place}", value)["data"]["attributes"][
        "configuration"
    ]


def shown(value: Any) -> str:
    """How a finding shows a value (shapes.shown, and "absent" for a missing key)."""
    if value is REMOVE:
        return "absent"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return f"an array of {len(value)}"
    if isinstance(value, str):
        return repr(value)
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    return str(value)


def cases() -> Iterator[Any]:
    for place, old, news in PLACES:
        for new in news:
            where = "data.attributes.configuration." + place.replace(".0.", "[0].")
            label = "absent" if new is REMOVE else repr(new)
            yield pytest.param(place, old, new, where, id=f"{place}={label}")


def shape_broken(sequence: list[Exchange], place: str, new: Any, ruleset: RuleSet) -> bool:
    """Whether the change removes a required field: then only its shape rule reports it."""
    if new is not REMOVE or place not in SHAPE_RULES:
        return False
    rules = [finding.rule for finding in Checker(ruleset).check_all(sequence)]
    assert SHAPE_RULES[place] in rules
    assert found(sequence, ruleset) == []
    return True


def read() -> Exchange:
    return exchange("GET", FEATURE_PATH, body=feature())


def put(sent: dict[str, Any], body: dict[str, Any]) -> Exchange:
    return exchange("PUT", FEATURE_PATH, body=body, sent=sent)


@pytest.mark.parametrize(("place", "old", "new", "where"), list(cases()))
def test_an_attribute_not_sent_that_changed_inside(
    place: str, old: Any, new: Any, where: str, shipped: RuleSet
) -> None:
    """The read shows CONFIGURATION; the update sends only a name and answers with one place inside
    the configuration changed."""
    answered = feature(with_configuration(place, new), name="New name")
    sequence = [read(), put(update_payload(name="New name"), answered)]
    if shape_broken(sequence, place, new, shipped):
        return
    assert found(sequence, shipped) == [
        (
            "feature.update.others-kept",
            1,
            where,
            f"{shown(old)} (unchanged since exchange 0: not sent)",
            shown(new),
        )
    ]


@pytest.mark.parametrize(("place", "old", "new", "where"), list(cases()))
def test_an_object_sent_that_came_back_otherwise_inside(
    place: str, old: Any, new: Any, where: str, shipped: RuleSet
) -> None:
    """The update sends CONFIGURATION and the answer has one place inside it changed: a field the
    service added of its own is allowed (api-notes), every other change is one finding at its place."""
    answered = feature(with_configuration(place, new))
    sequence = [put(update_payload(configuration=CONFIGURATION), answered)]
    if shape_broken(sequence, place, new, shipped):
        return
    if old is REMOVE:
        assert found(sequence, shipped) == []
        return
    assert found(sequence, shipped) == [
        ("feature.update.sent-applied", 0, where, f"{shown(old)} (as sent)", shown(new))
    ]


@pytest.mark.parametrize(("place", "old", "new", "where"), list(cases()))
def test_an_empty_update_that_changed_a_place_inside(
    place: str, old: Any, new: Any, where: str, shipped: RuleSet
) -> None:
    answered = feature(with_configuration(place, new))
    sequence = [read(), put(update_payload(), answered)]
    if shape_broken(sequence, place, new, shipped):
        return
    assert found(sequence, shipped) == [
        (
            "feature.update.empty-unchanged",
            1,
            where,
            f"{shown(old)} (as at exchange 0: empty update)",
            shown(new),
        )
    ]


# what an empty update's answer may change, in the order the finding names them, and the values shown
CHANGES: list[tuple[str, str, str, str]] = [
    ("data.attributes.configuration.tag", "changed", "'premium'", "'changed'"),
    ("data.attributes.description", "Other perks", "'Gold tier perks'", "'Other perks'"),
    ("data.attributes.name", "Other name", "'Gold access'", "'Other name'"),
    ("data.meta.timestamps.updated_at", LATER, "'2024-01-02T10:00:00.123Z'", repr(LATER)),
]


@pytest.mark.parametrize(
    "which",
    [combination for size in range(1, 5) for combination in itertools.combinations(range(4), size)],
    ids=lambda combination: "+".join(CHANGES[index][0].rsplit(".", 1)[1] for index in combination),
)
def test_an_empty_update_that_changed_the_feature_is_one_finding(
    which: tuple[int, ...], shipped: RuleSet
) -> None:
    answered = feature()
    for index in which:
        answered = changed(answered, CHANGES[index][0], CHANGES[index][1])
    sequence = [read(), put(update_payload(), answered)]
    assert found(sequence, shipped) == [
        (
            "feature.update.empty-unchanged",
            1,
            ", ".join(CHANGES[index][0] for index in which),
            "; ".join(CHANGES[index][2] for index in which) + " (as at exchange 0: empty update)",
            "; ".join(CHANGES[index][3] for index in which),
        )
    ]


def test_the_outsiders_update_of_a_name_that_changed_the_tag(shipped: RuleSet) -> None:
    """GET with configuration.tag "premium", then a PUT of only a name answering tag "changed"."""
    before = feature_document(configuration={"type": "access", "tag": "premium"})
    after = feature_document(name="New name", configuration={"type": "access", "tag": "changed"})
    sequence = [exchange("GET", FEATURE_PATH, body=before), put(update_payload(name="New name"), after)]
    assert found(sequence, shipped) == [
        (
            "feature.update.others-kept",
            1,
            "data.attributes.configuration.tag",
            "'premium' (unchanged since exchange 0: not sent)",
            "'changed'",
        )
    ]


def test_null_removes_is_one_finding_at_the_attribute(shipped: RuleSet) -> None:
    sequence = [read(), put(update_payload(description=None), feature())]
    assert found(sequence, shipped) == [
        (
            "feature.update.null-removes",
            1,
            "data.attributes.description",
            "absent or null (null was sent)",
            "'Gold tier perks'",
        )
    ]
    removed = feature(description=REMOVE)
    assert found([read(), put(update_payload(description=None), removed)], shipped) == []
