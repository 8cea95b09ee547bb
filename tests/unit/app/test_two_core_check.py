"""`check` on two cores gives exactly the findings of one, history-dependent ones included, and falls back
to one core whenever the child cannot help."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest

from proxy.app import two_core_check
from proxy.cli.main import main
from proxy.core.cassette.document import Cassette
from proxy.core.model.exchange import Exchange
from proxy.core.rules.engine import Checker
from proxy.core.rules.findings import Finding
from proxy.core.rules.ruleset import RuleSet
from proxy.store.cassette_reader import parse_cache
from proxy.store.cassette_reader.streaming import stream_cassette
from proxy.store.rule_files import load_rules
from proxy.store.saving import save_cassette
from proxy.store.shipped import shipped_dir
from proxy.workers import forked
from tests.unit.core.exchanges import (
    changed,
    entry_document,
    entry_read,
    feature_document,
    feature_update,
    list_page,
    list_read,
    sorted_walk,
    update_payload,
)

COUNT = 60
SPLIT = int(COUNT * two_core_check.SHARE)


@pytest.fixture(autouse=True)
def small_is_large(private_parse_cache: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """Cassettes of any size are cached (beside them, after the suite's own setting) and split."""
    monkeypatch.delenv("COMMERCE_PROXY_CACHE", raising=False)
    monkeypatch.setattr(parse_cache, "SMALLEST_CACHED", 0)
    monkeypatch.setattr(two_core_check, "SMALLEST_SPLIT", 0)


@pytest.fixture(scope="module")
def rules() -> RuleSet:
    return load_rules(shipped_dir("rules"))


def mixed_exchanges() -> list[Exchange]:
    """Entry reads whose representation changes under one ETag (each finding names the earlier exchange
    that had it, so it needs the history), list pages with a wrong current page (no history), and a
    sorted walk and a feature's updates whose second exchanges, in the child's part, are wrong only
    after their first ones, in this process's: each kind of history the observers keep."""
    query, body = list_page()
    made = []
    for number in range(COUNT):
        if number % 3 == 0:
            made.append(list_read(query=query, body=changed(body, "meta.page.current", 3)))
        else:
            made.append(entry_read(entry_document(name=f"Wishlist {number}", etag_id="a" * 64)))
    made[1], made[SPLIT + 1] = sorted_walk("gt")
    updated_later = changed(feature_document(), "data.meta.timestamps.updated_at", "2024-02-01T00:00:00.000Z")
    made[2], made[SPLIT + 2] = feature_update(), feature_update(sent=update_payload(), body=updated_later)
    return made


@pytest.fixture
def cassette(tmp_path: Path, small_is_large: None) -> Path:
    path = tmp_path / "mixed.yaml"
    save_cassette(path, Cassette(tuple(mixed_exchanges())))
    tuple(stream_cassette(path).exchanges)  # fills the parse cache: the warm case
    return path


def on_one_core(rules: RuleSet) -> list[Finding]:
    return Checker(rules).check_all(mixed_exchanges())


def on_two_cores(rules: RuleSet, path: Path) -> tuple[list[Finding], int]:
    checker = Checker(rules)
    done: list[int] = []
    found: list[Finding] = []
    two_core_check.check_stream(checker, path, stream_cassette(path).exchanges, done.append, found.extend)
    assert checker.checked == COUNT
    return found, len(done)


@pytest.fixture
def forks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The pids of the children forked."""
    pids: list[int] = []
    start = forked.Forked.start.__func__  # type: ignore[attr-defined]

    def recorded(cls: type[forked.Forked], work: object) -> forked.Forked | None:
        child = start(cls, work)
        if child is not None and child.pid is not None:
            pids.append(child.pid)
        return child

    monkeypatch.setattr(forked.Forked, "start", classmethod(recorded))
    return pids


def test_two_cores_find_what_one_finds_history_included(
    rules: RuleSet, cassette: Path, forks: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(two_core_check, "BATCH_FINDINGS", 7)  # the child's findings come in many batches
    expected = on_one_core(rules)
    found, _ = on_two_cores(rules, cassette)
    assert len(forks) == 1
    assert found == expected
    late = {f.rule for f in found if f.exchange >= SPLIT}
    assert {
        "entry.etag.changes-with-entry",
        "pagination.sort-filter.shared-timestamp-skipped",
        "feature.update.empty-unchanged",
    } <= late, "each kind of history-dependent finding in the child's part"
    assert {f.rule for f in found} >= {"pagination.page.current"}


def test_a_cassette_not_in_the_cache_is_checked_on_one_core(
    rules: RuleSet, tmp_path: Path, forks: list[int]
) -> None:
    path = tmp_path / "cold.yaml"
    save_cassette(path, Cassette(tuple(mixed_exchanges())))
    shutil.rmtree(tmp_path / ".commerce-proxy-cache")  # saving cached it
    checker = Checker(rules)
    found: list[Finding] = []
    two_core_check.check_stream(
        checker, path, stream_cassette(path).exchanges, lambda done: None, found.extend
    )
    assert forks == []
    assert found == on_one_core(rules)


def test_a_failing_child_leaves_the_rest_to_this_process(
    rules: RuleSet, cassette: Path, forks: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    def failing(*arguments: object) -> None:
        raise RuntimeError("the child breaks")

    monkeypatch.setattr(two_core_check, "_check_from", failing)
    found, _ = on_two_cores(rules, cassette)
    assert len(forks) == 1
    assert found == on_one_core(rules)


def test_a_child_that_never_finishes_is_killed_and_its_part_checked_here(
    rules: RuleSet, cassette: Path, forks: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(two_core_check, "PATIENCE_S", 0.3)
    monkeypatch.setattr(two_core_check, "_check_from", lambda *arguments: time.sleep(120))
    began = time.monotonic()
    found, _ = on_two_cores(rules, cassette)
    assert time.monotonic() - began < 30
    assert found == on_one_core(rules)
    with pytest.raises(ChildProcessError):  # killed and reaped: no zombie left
        os.waitpid(forks[0], os.WNOHANG)


def test_without_a_fork_one_core_does_it_all(
    rules: RuleSet, cassette: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_fork() -> int:
        raise OSError("no processes to spare")

    monkeypatch.setattr(os, "fork", no_fork)
    found, _ = on_two_cores(rules, cassette)
    assert found == on_one_core(rules)


def test_where_no_process_can_be_forked_the_in_process_runner_does_it_all(
    rules: RuleSet, cassette: Path, forks: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delattr(os, "fork")
    found, _ = on_two_cores(rules, cassette)
    assert forks == []
    assert found == on_one_core(rules)


def test_check_from_the_command_line_reports_the_same_on_two_cores(
    cassette: Path, forks: list[int], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(cassette.parent)
    assert main(["check", "--format", "json", cassette.name]) == 1
    two = json.loads(capsys.readouterr().out)
    assert len(forks) == 1
    monkeypatch.setattr(two_core_check, "SMALLEST_SPLIT", COUNT + 1)
    assert main(["check", "--format", "json", cassette.name]) == 1
    one = json.loads(capsys.readouterr().out)
    assert len(forks) == 1
    assert two == one
    assert two["exchanges"] == COUNT
    assert any(finding["exchange"] >= SPLIT for finding in two["findings"])


def test_the_secrets_of_the_childs_part_reach_this_process(
    rules: RuleSet, tmp_path: Path, forks: list[int]
) -> None:
    """A credential only the child reads (a bearer in the last part) joins this process's book, which
    scrubs the report written here: `check` learns every secret of the cassettes it reads."""
    from dataclasses import replace

    from proxy.core.redaction.book import KNOWN
    from proxy.core.redaction.policy import RedactionPolicy

    secret = "childPartBearerTOKEN0123456789"
    made = mixed_exchanges()
    late = made[SPLIT + 4]
    made[SPLIT + 4] = replace(
        late, request=replace(late.request, headers=(("Authorization", f"Bearer {secret}"),))
    )
    path = tmp_path / "secret.yaml"
    save_cassette(path, Cassette(tuple(made)))
    tuple(stream_cassette(path).exchanges)  # warm: split between the two processes
    checker = Checker(rules)
    exchanges = stream_cassette(path).exchanges
    two_core_check.check_stream(
        checker, path, exchanges, lambda done: None, lambda found: None, RedactionPolicy()
    )
    assert len(forks) == 1 and checker.checked == COUNT
    assert secret in KNOWN.values


def test_the_childs_part_counts_in_the_contracts_coverage(
    tmp_path: Path, forks: list[int], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`check --coverage` counts the exchanges the child checked too (the 500 is only in its part)."""
    from tests.unit.core.contract.plans import FIXTURES, JSON
    from tests.unit.core.contract.plans import exchange as plan_read

    shutil.copytree(FIXTURES, tmp_path / "specs")
    unknown = plan_read(path="/v2/settings", body={"data": {}}, headers=JSON)
    made = [plan_read() if number % 2 else unknown for number in range(COUNT)]
    made[-1] = plan_read(status=500, body={"errors": []}, headers=JSON)
    path = tmp_path / "plans.yaml"
    save_cassette(path, Cassette(tuple(made)))
    tuple(stream_cassette(path).exchanges)  # warm: split between the two processes
    monkeypatch.chdir(tmp_path)
    command = ["check", "--format", "json", "--spec", "specs", "--coverage", path.name]
    main(command)
    two = json.loads(capsys.readouterr().out)["coverage"]
    assert len(forks) == 1
    monkeypatch.setattr(two_core_check, "SMALLEST_SPLIT", COUNT + 1)
    main(command)
    assert json.loads(capsys.readouterr().out)["coverage"] == two
    assert two["by_operation"][1]["statuses"] == {"200": COUNT // 2 - 1, "500": 1}
    assert two["unknown"] == [{"operation": "GET /v2/settings", "exchanges": COUNT // 2}]
