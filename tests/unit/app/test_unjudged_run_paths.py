"""The count of exchanges no rule about the answer judged is the same whichever path runs the rules: one
process, `check` on two cores (the child's count comes back with its findings), and the live check
worker of `record` and `spy` (each verdict crosses the pipe), a worker that dies included."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from proxy.app import two_core_check
from proxy.app.live_check_worker import CheckWorker
from proxy.core.cassette.document import Cassette
from proxy.core.model.exchange import Exchange
from proxy.core.rules.engine import Checker
from proxy.core.rules.ruleset import RuleSet
from proxy.store.cassette_reader import parse_cache
from proxy.store.cassette_reader.streaming import stream_cassette
from proxy.store.rule_files import RuleSource, load_rules
from proxy.store.saving import save_cassette
from proxy.store.shipped import shipped_dir
from proxy.workers import forked
from tests.unit.core.rules.test_unjudged import CASES

ROUNDS = 3  # the table's exchanges, this many times over: every reason on both sides of the split


def exchanges() -> list[Exchange]:
    return [case.exchange for case in CASES] * ROUNDS


@pytest.fixture(scope="module")
def rules() -> RuleSet:
    return load_rules(shipped_dir("rules"))


def in_one_process(rules: RuleSet) -> dict[str, Any]:
    checker = Checker(rules)
    checker.check_all(exchanges())
    expected = sum(1 for case in CASES if case.expected is not None) * ROUNDS
    assert checker.unjudged.exchanges == expected
    return checker.unjudged.to_json()


def test_two_cores_count_what_one_counts(
    rules: RuleSet, tmp_path: Path, private_parse_cache: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("COMMERCE_PROXY_CACHE", raising=False)
    monkeypatch.setattr(parse_cache, "SMALLEST_CACHED", 0)
    monkeypatch.setattr(two_core_check, "SMALLEST_SPLIT", 0)
    forks: list[int] = []
    start = forked.Forked.start.__func__  # type: ignore[attr-defined]

    def recorded(cls: type[forked.Forked], work: object) -> forked.Forked | None:
        child = start(cls, work)
        if child is not None:
            forks.append(1)
        return child

    monkeypatch.setattr(forked.Forked, "start", classmethod(recorded))
    path = tmp_path / "mixed.yaml"
    save_cassette(path, Cassette(tuple(exchanges())))
    tuple(stream_cassette(path).exchanges)  # the parse cache is warm: the cassette is split
    checker = Checker(rules)
    two_core_check.check_stream(checker, path, stream_cassette(path).exchanges, lambda done: None, list)
    assert forks == [1]
    assert checker.checked == len(exchanges())
    assert checker.unjudged.to_json() == in_one_process(rules)


def test_the_live_check_worker_counts_what_one_process_counts(rules: RuleSet, tmp_path: Path) -> None:
    source = RuleSource(None, shipped_dir("rules"), tmp_path)
    worker = CheckWorker(source, lambda: Checker(rules))
    try:
        for sequence, made in enumerate(exchanges()):
            worker.check(made, sequence)
    finally:
        worker.close()
    assert worker.unjudged.to_json() == in_one_process(rules)


def test_when_the_worker_dies_the_proxy_counts_the_rest_into_the_same_tally(
    rules: RuleSet, tmp_path: Path
) -> None:
    source = RuleSource(None, shipped_dir("rules"), tmp_path)
    worker = CheckWorker(source, lambda: Checker(rules))
    made = exchanges()
    half = len(made) // 2
    try:
        for sequence, one in enumerate(made[:half]):
            worker.check(one, sequence)
        worker.process.kill()
        worker.process.wait()
        for sequence, one in enumerate(made[half:], start=half):
            worker.check(one, sequence)
    finally:
        worker.close()
    assert worker.unjudged.to_json() == in_one_process(rules)
