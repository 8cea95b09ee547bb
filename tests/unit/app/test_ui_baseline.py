"""The UI shows the findings `check` reports: none the project's baseline accepts (they are counted by
`check`, not reported). Drawn subsets of a cassette's findings accepted in the config's baseline: the
offline view (built, then from its cache), the checker child's entries and the live indexer's list
exactly the findings left; an accept from the UI takes its findings out of an offline view at once."""

from __future__ import annotations

import json
import random
import shutil
from collections import Counter
from pathlib import Path

from proxy.app.project_rules import project_rules
from proxy.app.traffic_view import Endpoints, _entry, offline_view
from proxy.app.ui_action_cases import ActionSetting, UiActions
from proxy.core.rules.config import Baseline
from proxy.core.rules.engine import Checker
from proxy.core.ui.query import Query
from proxy.store.cassette_reader.loading import read_cassette_file
from proxy.store.shipped import shipped_dir

WALK = shipped_dir("cassettes") / "demo-session.yaml"


def _found(view: object) -> Counter[tuple[str, str]]:
    """(rule, where) of every finding the view lists, as often as it lists it."""
    found: Counter[tuple[str, str]] = Counter()
    rows = view.window(Query(), 0, 500)["exchanges"]  # type: ignore[attr-defined]
    for row in rows:
        detail = view.exchange(row["id"])  # type: ignore[attr-defined]
        found.update((finding["rule"], finding["where"]) for finding in detail["findings"])
    return found


def _checked(path: Path, folder: Path) -> list[tuple[object, Counter[tuple[str, str]]]]:
    in_force = project_rules(folder)
    checker = Checker(in_force.ruleset, in_force.project.config, cassette=str(path))
    exchanges = read_cassette_file(path).exchanges
    return [(exchange, checker.check(exchange, number)) for number, exchange in enumerate(exchanges)]


def test_the_view_lists_what_check_reports_not_what_the_baseline_accepts(tmp_path: Path) -> None:
    chance = random.Random(44)
    for round_number in range(6):
        folder = tmp_path / str(round_number)
        folder.mkdir()
        path = folder / "shop.yaml"
        shutil.copyfile(WALK, path)
        every = [finding for _, findings in _checked(path, folder) for finding in findings]
        assert len(every) > 3
        keys = sorted({finding.baseline_key for finding in every})
        accepted = set(chance.sample(keys, chance.randrange(1, len(keys))))
        (folder / "commerce-proxy.yaml").write_text("baseline: accepted.json\n")
        (folder / "accepted.json").write_text(json.dumps(Baseline.document(accepted)))
        left = Counter((f.rule, f.where) for f in every if f.baseline_key not in accepted)
        in_force = project_rules(folder)
        for cache in (False, True, True):  # built; built and cached; from the cache
            view = offline_view([path], in_force, cache=cache)
            assert _found(view) == left, (round_number, cache)
            view.close()
        # the live paths make entries through the same `_entry`, given the baseline
        endpoints = Endpoints(in_force.ruleset)
        made: Counter[tuple[str, str]] = Counter()
        for number, (exchange, findings) in enumerate(_checked(path, folder)):
            entry = _entry(
                exchange, findings, None, endpoints, str(path), number, accepted=Baseline(frozenset(accepted))
            )
            made.update((f["rule"], f["where"]) for f in entry.detail["findings"])
        assert made == left


def test_an_accept_from_the_ui_takes_its_findings_out_of_an_offline_view(tmp_path: Path) -> None:
    path = tmp_path / "shop.yaml"
    shutil.copyfile(WALK, path)
    (tmp_path / "commerce-proxy.yaml").write_text("baseline: accepted.json\n")
    in_force = project_rules(tmp_path)
    view = offline_view([path], in_force)
    actions = UiActions(view, ActionSetting("offline", in_force, policy=in_force.project.redaction))
    before = _found(view)
    row = next(r for r in view.window(Query(), 0, 500)["exchanges"] if view.exchange(r["id"])["findings"])
    rule = view.exchange(row["id"])["findings"][0]["rule"]
    actions.accept(row["id"], rule)
    after = _found(view)
    assert sum(after.values()) < sum(before.values())
    assert all(key in before for key in after)
    again = offline_view([path], project_rules(tmp_path))  # a new start: its cache holds the old findings
    assert _found(again) == after
    again.close()
    view.close()
