"""Which exchanges no rule about the answer judged, and why: a generated table over the reasons (status
classes, undocumented paths of several shapes, the token endpoint, bodies that are not JSON), the tally's
bound, and its JSON and wire forms read back."""

from __future__ import annotations

import itertools
from collections import Counter
from typing import Any, NamedTuple

import pytest

from proxy.app.live_check_worker import answer_frame, read_answer
from proxy.core.model.exchange import Body, Exchange, Request, Response
from proxy.core.rules.config import RuleConfig
from proxy.core.rules.engine import Checker
from proxy.core.rules.findings import Finding
from proxy.core.rules.path_shapes import path_shape
from proxy.core.rules.ruleset import RuleSet
from proxy.core.rules.unjudged import Unjudged, UnjudgedTally
from proxy.store.rule_files import load_rules
from proxy.store.shipped import shipped_dir
from tests.unit.core.exchanges import (
    BEARER,
    FEATURE_PATH,
    entry_read,
    error_document,
    exchange,
    feature_update,
    list_read,
)

FEATURE = "update a feature (PUT /v2/subscriptions/features/{feature_uuid})"
ENTRY = "get a custom API entry (GET /v2/extensions/{custom_api_slug}/{custom_api_entry_id})"
UUID = "5b0f6a52-3a8e-4f65-9d4c-0e6f1a2b3c4d"
ERRORS = (400, 401, 403, 404, 409, 422, 429, 500, 502, 503)
OTHERS = (301, 302, 304)
LISTS = {  # a list endpoint is named by its pattern
    "/v2/products": "GET /v2/products",
    "/v2/accounts": "GET /v2/accounts",
    "/v2/orders": "GET /v2/orders",
    "/v2/flows/wishlists/entries": "GET /v2/flows/{slug}/entries",
}


class Case(NamedTuple):
    name: str
    exchange: Exchange
    expected: tuple[str, str, int] | None  # (reason, group, status), or None: judged


def html(status: int = 200) -> Body:
    return Body("text", "<html><body>Service unavailable</body></html>")


def _with_body(made: Exchange, body: Body, content_type: str = "text/html") -> Exchange:
    return Exchange(made.request, Response(made.response.status, (("Content-Type", content_type),), body))


def _cases() -> list[Case]:
    cases = [
        Case("list-conformant", list_read(), None),
        Case("entry-conformant", entry_read(), None),
        Case("feature-conformant", feature_update(), None),
    ]
    for status in ERRORS:
        for path, name in LISTS.items():
            made = list_read(path=path, status=status, body=error_document(status))
            cases.append(Case(f"list-{path}-{status}", made, ("error", name, status)))
        made = feature_update(status=status, body=error_document(status))
        cases.append(Case(f"feature-{status}", made, ("error", FEATURE, status)))
    for status in OTHERS:
        made = exchange("GET", entry_read().request.path, status=status)
        cases.append(Case(f"entry-{status}", made, ("status", ENTRY, status)))
        made = list_read(status=status, body={})
        cases.append(Case(f"list-{status}", made, ("status", "GET /v2/products", status)))
    undocumented = {
        "/v2/products/42": "GET /v2/products/{id}",
        f"/v2/products/{UUID}": "GET /v2/products/{id}",
        f"/v2/products/{UUID.upper()}/relationships/files": "GET /v2/products/{id}/relationships/files",
        "/v2/orders/0123456789abcdef0123": "GET /v2/orders/{id}",
        "/v2/settings": "GET /v2/settings",
        "/v2/customers/cus_4eC39HqLyjWDarjtT1zdp7dc/addresses": "GET /v2/customers/{id}/addresses",
    }
    for (path, group), status in itertools.product(undocumented.items(), (200, 404, 500)):
        made = exchange("GET", path, status=status, body={"data": []})
        cases.append(Case(f"undocumented-{path}-{status}", made, ("undocumented", group, status)))
    for method in ("DELETE", "POST"):
        made = exchange(method, f"{FEATURE_PATH}", status=204)
        shape = f"{method} /v2/subscriptions/features/{{feature_uuid}}"  # the documented PUT's name
        cases.append(Case(f"undocumented-{method}-feature", made, ("undocumented", shape, 204)))
    for status in (200, 401):
        made = exchange("POST", "/oauth/access_token", status=status, body={"access_token": "<redacted>"})
        cases.append(Case(f"token-{status}", made, ("not-documented", "POST /oauth/access_token", status)))
    # A success answer that is not JSON is judged: the envelope rules report on it (see
    # test_unjudged_classes); with them turned off, nothing could look at its body.
    cases += [
        Case("list-html", _with_body(list_read(), html()), None),
        Case("feature-204", _with_body(feature_update(status=204), Body()), None),
    ]
    return cases


CASES = _cases()


@pytest.fixture(scope="module")
def rules() -> RuleSet:
    return load_rules(shipped_dir("rules"))


def verdicts(rules: RuleSet, exchanges: list[Exchange], config: RuleConfig | None = None) -> list[Any]:
    checker = Checker(rules, config)
    found = []
    for index, made in enumerate(exchanges):
        checker.check(made, index)
        verdict = checker.verdict
        found.append(None if verdict is None else (verdict.reason, verdict.group, verdict.status))
    return found


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_each_exchange_is_judged_or_says_why_not(rules: RuleSet, case: Case) -> None:
    assert verdicts(rules, [case.exchange]) == [case.expected]


def test_the_tally_counts_every_case_by_group_and_reason(rules: RuleSet) -> None:
    checker = Checker(rules)
    checker.check_all(case.exchange for case in CASES)
    expected = [case.expected for case in CASES if case.expected is not None]
    tally = checker.unjudged
    assert tally.exchanges == len(expected)
    assert {name: group.exchanges for name, group in tally.groups.items()} == Counter(
        group for _, group, _ in expected
    )
    feature = tally.groups[FEATURE]
    assert feature.statuses == Counter(ERRORS)
    assert feature.reasons == Counter({"error": len(ERRORS)})


def test_rules_turned_off_for_an_endpoint_leave_it_unjudged(rules: RuleSet) -> None:
    config = RuleConfig.parse(
        {"endpoints": {"GET /v2/accounts": {"pagination.*": "off"}}},
        "test",
        [rule.id for rule in rules.rules],
    )
    found = verdicts(rules, [list_read(path="/v2/accounts"), list_read()], config)
    assert found == [("rules-off", "GET /v2/accounts", 200), None]
    everywhere = RuleConfig.parse({"severity": {"pagination.*": "off"}}, "test", [r.id for r in rules.rules])
    assert verdicts(rules, [list_read()], everywhere) == [("rules-off", "GET /v2/products", 200)]


@pytest.mark.parametrize(
    ("path", "shape"),
    [
        ("/v2/products/12345", "GET /v2/products/{id}"),
        ("/v2/keys/sk_live_4eC39HqLyjWDarjtT1zdp7dc", "GET /v2/keys/{id}"),
        ("/v2/files/DEADBEEFcafe0001", "GET /v2/files/{id}"),
        ("/v2/x/" + "a" * 80, "GET /v2/x/{id}"),
        ("/v2/custom_api_entries", "GET /v2/custom_api_entries"),
        ("//v2//products", "GET /v2/products"),
        ("/V2/products/", "GET /v2/products"),
        ("/v2/products/shirt-aa", "GET /v2/products/{id}"),
        ("/v2/products/Blue_Shirt", "GET /v2/products/{id}"),
    ],
)
def test_path_shapes_keep_words_and_replace_values(path: str, shape: str) -> None:
    assert path_shape("GET", path) == shape


def test_the_tally_keeps_a_bounded_number_of_groups_and_counts_the_rest() -> None:
    tally = UnjudgedTally(bound=5)
    for number in range(12):
        tally.add(Unjudged("undocumented", f"GET /v2/thing{chr(97 + number)}", 200, False), count=2)
    tally.add(Unjudged("error", FEATURE, 409, True))  # a documented operation is always kept
    assert len(tally.groups) == 5 and tally.overflow == 16 and tally.overflow_groups == 8
    assert tally.overflow_exact and FEATURE in tally.groups
    assert tally.exchanges == 25


def test_the_tally_reads_back_from_json_and_merges() -> None:
    tally = UnjudgedTally()
    tally.add(Unjudged("error", FEATURE, 409, True), count=2)
    tally.add(Unjudged("error", FEATURE, 500, True))
    tally.add(Unjudged("not-json", FEATURE, 200, True))
    tally.add(Unjudged("undocumented", "GET /v2/products/{id}", 200, False), count=4)
    tally.overflow, tally.dropped_unnamed = 3, 2
    again = UnjudgedTally.from_json(tally.to_json())
    assert again.to_json() == tally.to_json()
    again.merge(tally)
    assert again.exchanges == 2 * tally.exchanges
    assert again.groups[FEATURE].statuses == Counter({409: 4, 500: 2})
    with pytest.raises(ValueError, match="unknown reason"):
        UnjudgedTally.from_json(
            {
                "groups": [{"group": "x", "documented": True, "reasons": {"bad": 1}, "statuses": {}}],
                "overflow": {"exchanges": 0, "groups": 0, "exact": True},
            }
        )


@pytest.mark.parametrize("case", [case for case in CASES if case.expected] + [CASES[0]], ids=lambda c: c.name)
def test_the_check_worker_answer_carries_the_verdict_both_ways(rules: RuleSet, case: Case) -> None:
    """The live worker's wire format: `read_answer(answer_frame(...))` gives back what was sent."""
    checker = Checker(rules)
    findings = checker.check(case.exchange, 7)
    sequence, back, verdict, entry = read_answer(answer_frame(7, findings, checker.verdict))
    assert (sequence, [item.to_json() for item in back]) == (7, [item.to_json() for item in findings])
    assert verdict == checker.verdict and entry is None
    assert all(isinstance(item, Finding) for item in back)


@pytest.mark.parametrize(
    "bad", [["error", "x", "409", True], ["nonsense", "x", 409, True], ["error", "x", 409]]
)
def test_a_verdict_that_is_not_one_is_refused(bad: list[Any]) -> None:
    with pytest.raises(ValueError):
        Unjudged.from_json(bad)


def test_a_refusal_of_a_request_a_request_rule_found_wrong_is_judged(rules: RuleSet) -> None:
    """No bearer token, answered 400: auth.bearer.missing found it, the refusal is documented; the
    same request answered 500 is an error answer no rule judged."""
    made = feature_update(status=400, body=error_document(400), headers=())
    request = made.request
    unauthenticated = Exchange(Request(request.method, request.path, "", (), request.body), made.response)
    checker = Checker(rules)
    findings = checker.check(unauthenticated, 0)
    assert {finding.rule for finding in findings} >= {"auth.bearer.missing"}
    assert checker.verdict is None
    failed = Exchange(unauthenticated.request, Response(500, (), Body("json", error_document(500))))
    checker.check(failed, 1)
    assert checker.verdict == Unjudged("error", FEATURE, 500, True)
    assert BEARER  # the conformant exchanges carry one


def test_group_names_pass_the_redaction_book_in_every_format() -> None:
    """A secret seen in traffic that looks like a word of a path is still never shown."""
    from proxy.core.redaction.book import KNOWN
    from proxy.core.reports.unjudged import group_lines, unjudged_json

    secret = "averyprivatewordsecret"
    KNOWN.add([secret])
    tally = UnjudgedTally()
    tally.add(Unjudged("undocumented", path_shape("GET", f"/v2/share/{secret}"), 200, False))
    assert tally.groups  # the word was kept by the shape: the book must catch it
    shown = " ".join(group_lines(tally)) + str(unjudged_json(tally))
    assert secret not in shown and "/v2/share/" in shown
