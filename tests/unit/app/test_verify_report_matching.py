"""A verify report is matched to one cassette of the view or refused, and its list and counts are of
the same entries (class: a verify report matched to the wrong cassette).

A table over naming layouts (the view's cassettes x the names the report holds x the cassette asked),
then through `UiActions.cassette_diff` over a real offline view: `ui d1 d2 v2.json` with d1/a.yaml and
d2/a.yaml and a report of `other/a.yaml`. Failed before: that was a 200 with "changes": [] and counts
from the report's summary (breaking 1, volatile 2); a report naming `x/a.yaml` matched whichever
`a.yaml` was asked; an entry at index 99 of a 1-exchange cassette was shown."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from proxy.app.record_setup import shipped_rules_in_force
from proxy.app.traffic_view import offline_view
from proxy.app.ui_action_cases import ActionSetting, Conflict, UiActions
from proxy.app.verify_results import verify_diff_document
from proxy.core.cassette.document import Cassette, dump_cassette
from proxy.core.drift.compare import TIERS
from proxy.core.model.exchange import Body, Exchange, Request, Response
from proxy.core.redaction.book import KNOWN
from proxy.errors import CommerceProxyError


def report(names: list[str], index: int = 0, summary: dict[str, int] | None = None) -> dict[str, object]:
    """A report with one breaking difference per name at `index`; its summary counts `summary`."""
    drift = [
        {"cassette": name, "index": index, "request": "GET /v2/x", "tier": "breaking", "where": "status"}
        for name in names
    ]
    counts = summary or {"breaking": 1}
    cassettes = [{"cassette": name, "sent": 1, "skipped": 0, "counts": counts} for name in names]
    return {"exchanges": len(names), "drift": drift, "counts": {}, "skipped": [], "cassettes": cassettes}


# (the view's cassettes, the names in the report, the cassette asked, the report name it must match or
# the words of its refusal)
LAYOUTS: list[tuple[list[str], list[str], str, str]] = [
    (["d1/a.yaml"], ["d1/a.yaml"], "d1/a.yaml", "d1/a.yaml"),
    (["d1/a.yaml"], ["other/a.yaml"], "d1/a.yaml", "other/a.yaml"),
    (["d1/a.yaml", "d2/a.yaml"], ["other/a.yaml"], "d1/a.yaml", "could be d1/a.yaml or d2/a.yaml"),
    (["d1/a.yaml", "d2/a.yaml"], ["other/a.yaml"], "d2/a.yaml", "could be d2/a.yaml or d1/a.yaml"),
    (["d1/a.yaml", "d2/a.yaml"], ["d1/a.yaml"], "d1/a.yaml", "d1/a.yaml"),
    (["d1/a.yaml", "d2/a.yaml"], ["d1/a.yaml", "d2/a.yaml"], "d2/a.yaml", "d2/a.yaml"),
    (["d1/a.yaml"], ["x/a.yaml", "y/a.yaml"], "d1/a.yaml", "x/a.yaml and y/a.yaml"),
    (["d1/a.yaml", "d1/b.yaml"], ["other/a.yaml"], "d1/a.yaml", "other/a.yaml"),
    (["d1/a.yaml", "d1/b.yaml"], ["other/a.yaml"], "d1/b.yaml", "holds no result"),
    (["d1/a.yaml", "d2/a.yaml.yaml"], ["other/a.yaml"], "d1/a.yaml", "other/a.yaml"),
    (["d1/a.yaml"], [], "d1/a.yaml", "holds no result"),
]


@pytest.mark.parametrize(("view", "names", "asked", "outcome"), LAYOUTS)
def test_a_report_name_matches_one_cassette_or_is_refused_naming_the_candidates(
    view: list[str], names: list[str], asked: str, outcome: str
) -> None:
    others = [name for name in view if name != asked]
    if outcome in names:
        document = verify_diff_document(report(names), "v2.json", asked, exchanges=1, others=others)
        assert document["verify"]["cassette"] == outcome
        assert document["counts"] == {tier: int(tier == "breaking") for tier in TIERS}
        assert len(document["changes"]) == 1
    else:
        with pytest.raises(CommerceProxyError) as refused:
            verify_diff_document(report(names), "v2.json", asked, exchanges=1, others=others)
        assert outcome in str(refused.value) and "\n" not in str(refused.value)


def test_the_counts_are_those_of_the_entries_listed_whatever_the_summary_says() -> None:
    for summary in ({"breaking": 1, "volatile": 2}, {"data": 5}, {}):
        document = verify_diff_document(
            report(["a.yaml"], summary=summary), "v2.json", "a.yaml", verbose=True
        )
        shown = [change["tier"] for change in document["changes"]]
        assert document["counts"] == {tier: shown.count(tier) for tier in TIERS}


def test_an_entry_past_the_cassettes_exchanges_is_refused() -> None:
    for index, exchanges in ((99, 1), (1, 1), (-1, 5), (3, 3)):
        with pytest.raises(CommerceProxyError, match="not shown"):
            verify_diff_document(report(["a.yaml"], index=index), "v2.json", "a.yaml", exchanges=exchanges)
    assert verify_diff_document(report(["a.yaml"], index=2), "v2.json", "a.yaml", exchanges=3)["changes"]


def test_the_reported_view_refuses_with_409_naming_both(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COMMERCE_PROXY_CACHE", str(tmp_path / "cache"))
    KNOWN.forget()
    exchange = Exchange(Request("GET", "/v2/x"), Response(200, (), Body("text", "x")), "2026-01-02T03:04:05Z")
    for folder in ("d1", "d2"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "a.yaml").write_text(dump_cassette(Cassette((exchange,), None)))
    verified = report(["other/a.yaml"], summary={"breaking": 1, "volatile": 2})
    (tmp_path / "v2.json").write_text(json.dumps(verified))
    paths = [tmp_path / "d1", tmp_path / "d2", tmp_path / "v2.json"]
    view = offline_view(paths, shipped_rules_in_force(), cache=False)
    try:
        actions = UiActions(view, ActionSetting("offline", None))
        first, second = (str(tmp_path / folder / "a.yaml") for folder in ("d1", "d2"))
        with pytest.raises(Conflict) as refused:
            actions.cassette_diff(first, str(tmp_path / "v2.json"))
        assert first in str(refused.value) and second in str(refused.value)
    finally:
        view.close()
