"""The cassette filter takes a cassette as the list and the docs name it: the name rows give (the path
as opened), its file name, or that without its suffix; an unknown or ambiguous name is a one-line 400
naming it, like any bad filter. Failed before: `cassette=checkout` matched nothing, silently."""

from __future__ import annotations

from pathlib import Path

import pytest

from proxy.app.record_setup import shipped_rules_in_force
from proxy.app.traffic_view import offline_view
from proxy.core.cassette.document import Cassette, dump_cassette
from proxy.core.model.exchange import Body, Exchange, Request, Response
from proxy.core.redaction.book import KNOWN
from proxy.core.ui.query import Query, QueryError


def _cassette(path: Path, count: int) -> Path:
    exchanges = tuple(
        Exchange(
            Request("GET", f"/v2/{path.stem}/{n}"),
            Response(200, (), Body("text", "x")),
            "2026-01-02T03:04:05Z",
        )
        for n in range(count)
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dump_cassette(Cassette(exchanges, None)))
    return path


@pytest.fixture(autouse=True)
def no_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("COMMERCE_PROXY_CACHE", str(tmp_path / "cache"))
    KNOWN.forget()


def test_every_spelling_of_each_cassette_filters_to_it_and_others_are_refused(tmp_path: Path) -> None:
    folder = tmp_path / "cassettes"
    sizes = {"checkout": 3, "catalog": 2, "orders.v2": 1}
    for name, count in sizes.items():
        _cassette(folder / f"{name}.yaml", count)
    view = offline_view([folder], shipped_rules_in_force(), cache=False)
    try:
        rows = view.window(Query(), 0, 100)["exchanges"]
        assert {row["cassette"] for row in rows} == set(view.sources)
        for shown in view.sources:
            file_name = Path(shown).name
            expected = sum(1 for row in rows if row["cassette"] == shown)
            for spelling in {shown, file_name, Path(shown).stem, file_name.partition(".")[0]}:
                assert view.window(Query(cassette=spelling), 0, 100)["total"] == expected, spelling
                assert view.counts(Query(cassette=spelling))["total"] == expected, spelling
        for unknown in (
            "checkou",
            "checkout.yml",
            "CHECKOUT",
            "cassettes",
            "other",
            "orders.v3",
            "x/checkout",
        ):
            with pytest.raises(QueryError) as refused:
                view.window(Query(cassette=unknown), 0, 10)
            assert repr(unknown) in str(refused.value) and "\n" not in str(refused.value)
    finally:
        view.close()


def test_a_name_two_cassettes_share_is_refused_naming_both(tmp_path: Path) -> None:
    first = _cassette(tmp_path / "a" / "checkout.yaml", 1)
    second = _cassette(tmp_path / "b" / "checkout.yaml", 2)
    view = offline_view([first, second], shipped_rules_in_force(), cache=False)
    try:
        for spelling in ("checkout", "checkout.yaml"):
            with pytest.raises(QueryError, match="names 2 cassettes"):
                view.window(Query(cassette=spelling), 0, 10)
        assert view.window(Query(cassette=str(second)), 0, 10)["total"] == 2
    finally:
        view.close()


def test_a_rule_filter_names_a_rule_in_force_or_is_refused_with_the_closest(tmp_path: Path) -> None:
    """A typo (`pagination.page.curent`) listed nothing, as if no exchange broke the rule: a script
    asking "no findings of rule X?" passed on it. Every rule in force, and the contract's, is taken, with
    or without findings; anything else is a 400 naming it and the closest rules."""
    from proxy.core.contract.findings import IDS

    _cassette(tmp_path / "walk.yaml", 2)
    in_force = shipped_rules_in_force()
    view = offline_view([tmp_path / "walk.yaml"], in_force, cache=False)
    try:
        for rule in [*(rule.id for rule in in_force.ruleset.rules), *IDS]:
            assert view.window(Query(rule=rule), 0, 10)["exchanges"] is not None
            assert view.counts(Query(rule=rule)) is not None
        typos = {rule.id[:-1] for rule in in_force.ruleset.rules} | {
            rule.id.upper() for rule in in_force.ruleset.rules
        }
        for given in [
            *sorted(typos - {rule.id for rule in in_force.ruleset.rules})[:40],
            "x",
            "nonsense.rule",
        ]:
            for ask in (lambda q: view.window(q, 0, 10), view.counts):
                with pytest.raises(QueryError) as refused:
                    ask(Query(rule=given))
                line = str(refused.value)
                assert f"no rule {given!r} is in force" in line and "\n" not in line
        with pytest.raises(QueryError, match=r"did you mean pagination\.page\.current"):
            view.window(Query(rule="pagination.page.curent"), 0, 10)
    finally:
        view.close()


@pytest.mark.parametrize("mode", ["spy", "replay"])
def test_a_cassette_filter_on_a_view_whose_rows_name_none_says_why(mode: str) -> None:
    """replay's `api/info` lists the cassettes it loaded, yet its rows (answers) name none: the filter
    said "it has: none", which read as a broken list."""
    from proxy.app.live_traffic import live_view

    view = live_view(mode, None, shipped_rules_in_force(), sources=["cassettes/s.yaml"])
    try:
        for given in ("cassettes/s.yaml", "s.yaml", "s"):
            with pytest.raises(QueryError) as refused:
                view.window(Query(cassette=given), 0, 10)
            assert "no row of this view names a cassette" in str(refused.value)
    finally:
        view.close()
