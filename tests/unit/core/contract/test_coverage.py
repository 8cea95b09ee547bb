"""The coverage tally: a split of the traffic counted apart and merged (as `check` does on two cores)
counts what one pass counts, wherever the split falls."""

from __future__ import annotations

from proxy.core.contract.coverage import Coverage
from tests.unit.core.contract.plans import PLAN_PATH, judge_of

TRAFFIC = [
    ("GET", PLAN_PATH, 200),
    ("GET", PLAN_PATH, 404),
    ("POST", "/v2/subscriptions/plans", 201),
    ("GET", "/v2/settings", 200),
    ("GET", PLAN_PATH, 500),
    ("DELETE", "/v2/carts/abc", 204),
    ("GET", "/v2/settings", 200),
]


def _count(coverage: Coverage, traffic: list[tuple[str, str, int]]) -> Coverage:
    judge = judge_of()
    for method, path, status in traffic:
        operation = judge.contract.operation(method, path)
        if operation is None:
            coverage.unknown_seen(method, path)
        else:
            coverage.seen(operation, status)
    return coverage


def _shown(coverage: Coverage) -> tuple[object, ...]:
    return (
        [one.to_json() for one in coverage.ordered()],
        dict(coverage.unknown),
        coverage.overflow,
        coverage.percent,
    )


def test_a_split_counted_apart_and_merged_counts_the_same() -> None:
    operations = judge_of().contract.index.operations()
    whole = _count(Coverage(operations), TRAFFIC)
    assert (whole.exercised, len(whole.operations)) == (2, 2)
    for split in range(len(TRAFFIC) + 1):
        first = _count(Coverage(operations), TRAFFIC[:split])
        first.merge(_count(first.emptied(), TRAFFIC[split:]))
        assert _shown(first) == _shown(whole)
