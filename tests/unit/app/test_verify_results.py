"""A `verify --format json` report opened by the UI: told apart from other files, and one cassette's
results given in the cassette-diff document's shape, for every tier, both sides and either -v."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from proxy.app.traffic_sources import sources_of
from proxy.app.verify_results import is_verify_report, read_verify_report, verify_diff_document
from proxy.core.drift.compare import ABSENT, TIERS, Difference, Tier
from proxy.core.drift.verification import Verification, Verified
from proxy.core.reports.verification import refused_report, verify_json
from proxy.errors import CommerceProxyError
from proxy.store.shipped import shipped_dir

WALK = shipped_dir("cassettes") / "pagination-walk.yaml"
PLACES: list[tuple[Tier, str, object, object]] = [
    ("breaking", "json.data[0].id", "p-1", ABSENT),
    ("additive", "json.meta.new", ABSENT, 3),
    ("data", "json.meta.results.total", 40, 41),
    ("volatile", "headers.Date", "Mon", "Tue"),
]


def verification(cassettes: list[str], tiers: tuple[Tier, ...]) -> Verification:
    """Two exchanges of each cassette: the first differs at each place of `tiers`, the second not at
    all; a third was not sent."""
    results = []
    for name in cassettes:
        differences = [Difference(*place, kind="changed") for place in PLACES if place[0] in tiers]
        results.append(Verified(name, 0, "GET /v2/products", differences))
        results.append(Verified(name, 1, "GET /v2/products?page=2"))
        results.append(Verified(name, 2, "POST /v2/carts", skipped="a write: re-sent only with --writes"))
    return Verification(results, [])


def written(folder: Path, report: str) -> Path:
    path = folder / "verified.json"
    path.write_text(report)
    return path


TIER_SETS = [combo for size in range(5) for combo in itertools.combinations(TIERS, size)]


@pytest.mark.parametrize("tiers", TIER_SETS, ids=lambda tiers: "+".join(tiers) or "none")
@pytest.mark.parametrize(("kept", "asked"), [(False, False), (False, True), (True, False), (True, True)])
@pytest.mark.parametrize("live_is_b", [True, False])
def test_a_cassettes_results_are_its_differences_in_tiers_on_the_live_side(
    tmp_path: Path, tiers: tuple[Tier, ...], kept: bool, asked: bool, live_is_b: bool
) -> None:
    """Every tier's difference at its place, the recorded value on the cassette's side, the live one on
    the report's; volatile listed only when the report kept them (-v) and the page asked, counted when the
    report kept them (the counts are of the entries the list is made of; a note names those not kept)."""
    path = written(tmp_path, verify_json(verification(["a.yaml", "b.yaml"], tiers), kept))
    document = verify_diff_document(
        read_verify_report(path), str(path), "b.yaml", live_is_b=live_is_b, verbose=asked
    )
    live, recorded = ("b", "a") if live_is_b else ("a", "b")
    expected = []
    for tier, where, old, new in PLACES:
        if tier not in tiers or (tier == "volatile" and not (kept and asked)):
            continue
        change = {"index_a": 0, "index_b": 0, "request": "GET /v2/products", "tier": tier, "where": where}
        change.update({side: value for side, value in ((recorded, old), (live, new)) if value is not ABSENT})
        expected.append(change)
    assert document["changes"] == expected
    listed = {tier for tier in tiers if tier != "volatile" or kept}  # counted from the entries listed
    assert document["counts"] == {tier: int(tier in listed) for tier in TIERS}
    assert (document["added"], document["removed"]) == ([], [])
    assert document["verify"]["skipped"] == [
        {"index": 2, "request": "POST /v2/carts", "reason": "a write: re-sent only with --writes"}
    ]
    assert document["verify"]["live"] == live
    hidden = asked and not kept and "volatile" in tiers
    assert bool(document["verify"]["notes"]) == hidden


def test_a_cassette_is_found_by_its_path_its_file_or_its_only_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "cassettes").mkdir()
    report = json.loads(verify_json(verification(["cassettes/walk.yaml", "other/x.yaml"], ("data",))))
    for asked in ("cassettes/walk.yaml", str(tmp_path / "cassettes" / "walk.yaml"), "/elsewhere/walk.yaml"):
        assert verify_diff_document(report, "r.json", asked)["verify"]["cassette"] == "cassettes/walk.yaml"
    twice = json.loads(verify_json(verification(["a/walk.yaml", "b/walk.yaml"], ("data",))))
    for unknown, given in (("nowhere.yaml", report), ("/elsewhere/walk.yaml", twice)):
        with pytest.raises(CommerceProxyError, match=r"holds no result for|cannot be told") as raised:
            verify_diff_document(given, "r.json", unknown)
        assert "\n" not in str(raised.value)


def test_an_unchanged_cassette_is_told_from_one_not_verified(tmp_path: Path) -> None:
    report = json.loads(verify_json(verification(["same.yaml"], ())))
    assert verify_diff_document(report, "r.json", "same.yaml")["changes"] == []
    with pytest.raises(CommerceProxyError):
        verify_diff_document(report, "r.json", "not-verified.yaml")


def test_a_refused_run_says_so() -> None:
    report = json.loads(refused_report("json", "the token endpoint refused the client id"))
    with pytest.raises(CommerceProxyError, match="holds no result"):
        verify_diff_document(report, "r.json", "walk.yaml")


def test_only_a_verify_report_is_a_verify_source(tmp_path: Path) -> None:
    report = written(tmp_path, verify_json(verification(["a.yaml"], ("data",))))
    others = {
        "har.json": json.dumps({"log": {"version": "1.2", "entries": []}}),
        "list.json": "[1, 2]",
        "broken.json": "{",
        "cassette.json": json.dumps({"drift": [], "exchanges": []}),  # two of the report's keys only
    }
    for name, text in others.items():
        (tmp_path / name).write_text(text)
        assert not is_verify_report(tmp_path / name), name
    assert is_verify_report(report)
    assert [source.kind for source in sources_of([WALK, report])] == ["cassette", "verify"]
    assert list(sources_of([report])[0].exchanges()) == []
    with pytest.raises(CommerceProxyError, match="not a verify report"):
        read_verify_report(tmp_path / "list.json")
