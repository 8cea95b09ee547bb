"""Every shipped rule has a hand-written exchange that breaks it and a conformant one that does not
(the catalog, catalog.py). The table must name every rule id the shipped rule files define: a rule
added without fixtures fails here.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import Any
from urllib.parse import unquote_plus

import pytest

from proxy.core.model.exchange import Exchange
from proxy.core.rules.checks import CHECKS
from proxy.core.rules.checks.context import CheckContext
from proxy.core.rules.checks.shaped import SHAPE_CHECK
from proxy.core.rules.config import RuleConfig
from proxy.core.rules.engine import Checker
from proxy.core.rules.findings import Violation
from proxy.core.rules.ruleset import RuleSet
from proxy.errors import RuleFileError
from proxy.store.rule_files import load_rules
from proxy.store.shipped import shipped_dir
from tests.unit.core.exchanges import (
    JSON_TYPE,
    changed,
    entry_read,
    exchange,
    feature_update,
    list_page,
    list_read,
)
from tests.unit.core.rules.catalog import (
    BASE_FEATURE,
    BASE_PAGE,
    CATALOG_CONFIG,
    FIXTURES,
    page_with,
)


@pytest.fixture(scope="module")
def shipped_rules() -> RuleSet:
    return load_rules(shipped_dir("rules"))


def rule_ids_found(exchanges: list[Exchange], ruleset: RuleSet) -> tuple[set[str], set[str]]:
    """(rules found on the last exchange, rules found anywhere in the sequence)."""
    findings = Checker(ruleset, CATALOG_CONFIG).check_all(exchanges)
    last = len(exchanges) - 1
    return {f.rule for f in findings if f.exchange == last}, {f.rule for f in findings}


def test_every_shipped_rule_has_fixtures(shipped_rules: RuleSet) -> None:
    """The fixture table names exactly the shipped rules: none without a violating and a conformant case."""
    assert sorted(FIXTURES) == sorted(rule.id for rule in shipped_rules.rules)


@pytest.mark.parametrize("rule_id", sorted(FIXTURES))
def test_violating_fixture_triggers_the_rule(rule_id: str, shipped_rules: RuleSet) -> None:
    """The violating exchange (after its history) yields a finding of the rule."""
    violating, _ = FIXTURES[rule_id]
    on_last, _ = rule_ids_found(violating, shipped_rules)
    assert rule_id in on_last


@pytest.mark.parametrize("rule_id", sorted(FIXTURES))
def test_conformant_fixture_does_not(rule_id: str, shipped_rules: RuleSet) -> None:
    """The conformant exchanges yield no finding of the rule at all."""
    _, conformant = FIXTURES[rule_id]
    _, anywhere = rule_ids_found(conformant, shipped_rules)
    assert rule_id not in anywhere


def test_conformant_base_exchanges_yield_no_finding(shipped_rules: RuleSet) -> None:
    """The builders' defaults are fully conformant: no finding of any severity."""
    base = [feature_update(), entry_read(), list_read(), list_read(offset=0), list_read(offset=30)]
    assert Checker(shipped_rules).check_all(base) == []


def test_message_names_place_expected_and_found(shipped_rules: RuleSet) -> None:
    """A finding's message fills the rule's template with where, what was expected and what was found."""
    findings = Checker(shipped_rules).check_all([page_with("meta.page.current", 3)])
    (finding,) = [f for f in findings if f.rule == "pagination.page.current"]
    assert finding.message == (
        "the current page follows from offset and limit: meta.page.current: "
        "expected 2 (floor(10 / 10) + 1), as meta.page.offset 10, links.current page[offset]=10, "
        "links.prev page[offset]=0, links.next page[offset]=20 show, found 3"
    )
    assert finding.section.startswith("List endpoints that support pagination, rule 2")
    assert (finding.method, finding.path, finding.exchange) == ("GET", "/v2/products", 0)


def test_feature_shape_reports_every_broken_field(shipped_rules: RuleSet) -> None:
    """A response breaking three fields yields three findings, each under its own rule."""
    body = changed(changed(BASE_FEATURE, "data.attributes.name", "ab"), "data.meta.owner", "me")
    body = changed(body, "data.attributes.configuration.tag", "")
    rules = {f.rule for f in Checker(shipped_rules).check_all([feature_update(body=body)])}
    assert {"feature.name.length", "feature.meta.owner", "feature.configuration.tag"} <= rules


def test_json_type_header_is_not_needed_for_rules(shipped_rules: RuleSet) -> None:
    """Rules read the stored JSON body, whatever headers say (a cassette keeps bodies decoded)."""
    plain = exchange(
        "GET",
        "/v2/products",
        "page[limit]=10&page[offset]=10",
        body=BASE_PAGE,
        response_headers=JSON_TYPE[:0],
    )
    assert Checker(shipped_rules).check_all([plain]) == []


def test_shape_rules_run_only_when_their_document_breaks_the_shape(
    shipped_rules: RuleSet, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A conformant page skips its shape rules (they could find nothing); a broken one runs them all, in
    rule order among the others, so findings come out as if every rule had run."""
    spec = CHECKS[SHAPE_CHECK]
    calls: list[str] = []

    def counted(context: CheckContext, params: Mapping[str, Any]) -> Iterator[Violation]:
        calls.append(params.get("part", ""))
        return spec.function(context, params)

    monkeypatch.setitem(CHECKS, SHAPE_CHECK, replace(spec, function=counted))
    assert Checker(shipped_rules).check_all([list_read(), list_read(offset=30)]) == []
    assert calls == []
    broken = page_with("meta.page.total", "two")
    findings = Checker(shipped_rules).check_all([broken])
    hit = shipped_rules.index.lookup("GET", "/v2/products")
    shape_rules = [rule for rule in shipped_rules.rules_for(hit) if rule.check == SHAPE_CHECK]
    assert len(calls) == len(shape_rules) > 1
    assert [f.rule for f in findings] == [
        rule.id for rule in shipped_rules.rules if rule.id in {f.rule for f in findings}
    ]
    assert "pagination.envelope.page" in {f.rule for f in findings}


def without_parameters(exchange_: Exchange, names: frozenset[str]) -> Exchange:
    """The exchange with the named query parameters (decoded names) taken out of its request."""
    request = exchange_.request
    kept = [pair for pair in request.query.split("&") if unquote_plus(pair.partition("=")[0]) not in names]
    return replace(exchange_, request=replace(request, query="&".join(kept)))


NEEDING_PARAMETERS = sorted(
    rule.id for rule in load_rules(shipped_dir("rules")).rules if CHECKS[rule.check].needs
)


@pytest.mark.parametrize("rule_id", NEEDING_PARAMETERS)
def test_a_check_needing_query_parameters_finds_nothing_without_them(
    rule_id: str, shipped_rules: RuleSet
) -> None:
    """What lets the engine leave such a check out when none of its parameters is sent: called directly
    on its violating exchange (after the history), it finds something, and nothing once they are gone."""
    (rule,) = [rule for rule in shipped_rules.rules if rule.id == rule_id]
    spec = CHECKS[rule.check]
    violating, _ = FIXTURES[rule_id]
    checker = Checker(shipped_rules)
    checker.check_all(violating[:-1])

    def found(last: Exchange) -> list[Violation]:
        hit = shipped_rules.index.lookup(last.request.method, last.request.path)
        context = CheckContext(last, len(violating) - 1, hit, checker.session, shipped_rules.shapes)
        return list(spec.function(context, rule.params))

    assert found(violating[-1])
    assert found(without_parameters(violating[-1], spec.needs)) == []


def test_checks_needing_parameters_run_only_when_one_is_sent(
    shipped_rules: RuleSet, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without `sort` the sort checks are left out; sent, even percent-encoded, they run."""
    calls: list[str] = []
    for name in ("sort_honoured", "page_within_one_timestamp"):
        spec = CHECKS[name]

        def counted(
            context: CheckContext, params: Mapping[str, Any], spec: Any = spec
        ) -> Iterator[Violation]:
            calls.append(spec.name)
            return spec.function(context, params)

        monkeypatch.setitem(CHECKS, name, replace(spec, function=counted))
    assert Checker(shipped_rules).check_all([list_read()]) == []
    assert calls == []
    for query in (
        "page[limit]=10&page[offset]=10&sort=created_at",
        "page[limit]=10&page[offset]=10&%73ort=name",
    ):
        Checker(shipped_rules).check_all([list_read(query=query)])
        assert sorted(calls) == ["page_within_one_timestamp", "sort_honoured"]
        calls.clear()


@pytest.mark.parametrize("path", ["/v2/inventory", "/v2/inventories"])
def test_the_inventory_list_is_checked_at_the_documented_and_the_real_path(
    shipped_rules: RuleSet, path: str
) -> None:
    """The documentation says "inventory"; the service lists it at /v2/inventories (inventories.yaml):
    150 records per page asked and given is caught at both."""
    query, body = list_page(path=path, limit=150, offset=0, total=200)
    found = {f.rule for f in Checker(shipped_rules).check_all([list_read(path=path, query=query, body=body)])}
    assert {"pagination.request.limit-max", "pagination.page.limit-max"} <= found


def test_a_stated_default_page_length_is_the_one_expected(shipped_rules: RuleSet) -> None:
    """`default_page_length = 25` in the project config: a lone unrequested page of 2 is an error."""
    config = RuleConfig.parse({"default_page_length": [25, 100]}, "pyproject.toml", ["x"])
    found = Checker(shipped_rules, config).check_all([list_read(query="", limit=2, offset=0, total=35)])
    [finding] = [f for f in found if f.rule == "pagination.page.limit-requested"]
    assert finding.expected == "25 or 100 (the config's default_page_length: no page[limit] sent)"


@pytest.mark.parametrize("value", [0, 101, "25", [], [25, True]])
def test_a_default_page_length_that_is_no_page_length_is_refused(value: object) -> None:
    with pytest.raises(RuleFileError, match="default_page_length: expected a page length 1 to 100"):
        RuleConfig.parse({"default_page_length": value}, "pyproject.toml", ["x"])


def _walk_steps() -> dict[str, tuple[list[Exchange], bool]]:
    """Sequences around a full page within one timestamp, and whether the walk rule should fire."""
    from tests.unit.core.rules.catalog import same_time_step, sorted_page

    page = sorted_page(same_time=True)
    other = sorted_page(same_time=False)
    return {
        "a sorted read alone (the newest three): no walk": ([page], False),
        "the page read twice, no filter": ([page, page], False),
        "next step ge, no offset": ([page, same_time_step(None)], True),
        "next step ge, offset 0": ([page, same_time_step(0)], True),
        "next step ge, offset past the page": ([page, same_time_step(3)], False),
        "a page of different times, then ge": ([other, same_time_step(None)], False),
    }


@pytest.mark.parametrize("case", list(_walk_steps()))
def test_a_page_within_one_timestamp_is_judged_on_the_walks_next_step(
    case: str, shipped_rules: RuleSet
) -> None:
    """A sorted read whose page shares one timestamp is no finding on its own (a client may read only
    the newest records); the walk's next step is, when it asks the same value again without paging."""
    exchanges, fires = _walk_steps()[case]
    _, anywhere = rule_ids_found(exchanges, shipped_rules)
    assert ("pagination.sort-filter.page-one-timestamp" in anywhere) == fires
