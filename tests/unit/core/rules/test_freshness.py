"""The project's max_age: how it is written, how old a recording is, and that it is off unless set."""

from __future__ import annotations

from dataclasses import replace

import pytest

from proxy.core.rules.config import RuleConfig
from proxy.core.rules.engine import Checker
from proxy.core.rules.freshness import MaxAge, age_text, epoch_seconds
from proxy.core.rules.ruleset import RuleSet
from proxy.errors import RuleFileError
from proxy.store.rule_files import load_rules
from proxy.store.shipped import shipped_dir
from tests.unit.core.exchanges import list_read

NOW = epoch_seconds("2026-11-24T00:00:00Z")


@pytest.fixture(scope="module")
def shipped() -> RuleSet:
    return load_rules(shipped_dir("rules"))


@pytest.mark.parametrize(
    ("written", "seconds"),
    [("90d", 90 * 86_400), ("12h", 43_200), ("2w", 1_209_600), ("1.5m", 90), (" 45s ", 45)],
)
def test_max_age_is_a_number_and_a_unit(written: str, seconds: float) -> None:
    assert MaxAge.parse(written, "c.yaml: max_age").seconds == seconds


@pytest.mark.parametrize("written", ["90", "90 days", "-3d", "0d", "d", 90, None, "9y"])
def test_any_other_max_age_is_refused_naming_the_setting(written: object) -> None:
    with pytest.raises(RuleFileError, match=r"^c.yaml: max_age: expected a positive number and a unit"):
        MaxAge.parse(written, "c.yaml: max_age")


def test_times_with_zones_and_fractions_are_read_as_the_same_instant() -> None:
    assert epoch_seconds("1970-01-01T00:00:00Z") == 0
    assert epoch_seconds("2026-11-24T02:00:00+02:00") == NOW
    assert epoch_seconds("2026-11-23T19:00:00.000000-05:00") == NOW
    assert epoch_seconds("2026-11-24T00:00:00.250Z") == NOW + 0.25  # type: ignore[operator]
    assert epoch_seconds("2026-11-24 00:00") == NOW  # no zone: UTC
    for other in ("yesterday", "2026-13-01T00:00:00Z", "", None, 17):
        assert epoch_seconds(other) is None


def test_ages_read_as_people_say_them() -> None:
    assert [age_text(s) for s in (5, 61, 7200, 86_400 * 327 + 5)] == [
        "5 seconds",
        "1 minute",
        "2 hours",
        "327 days",
    ]


def test_the_rule_is_off_unless_max_age_is_set_and_judges_only_known_times(shipped: RuleSet) -> None:
    old = replace(list_read(), recorded_at="2020-01-01T00:00:00.000000Z")
    assert Checker(shipped).check_all([old]) == []
    assert Checker(shipped, RuleConfig(now=NOW)).check_all([old]) == []
    config = RuleConfig.parse({"max_age": "90d"}, "c.yaml", [rule.id for rule in shipped.rules]).at(NOW)  # type: ignore[arg-type]
    (finding,) = Checker(shipped, config).check_all([old, replace(old, recorded_at="not a time")])
    assert (finding.rule, finding.severity, finding.exchange) == ("cassette.max-age", "warning", 0)
    assert finding.found == "2020-01-01T00:00:00.000000Z (2519 days old)"
