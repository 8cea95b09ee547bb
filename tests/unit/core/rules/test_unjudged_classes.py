"""The classes of "not judged" the summary must get right, as generated tables through the Checker: an
exchange a rule about the answer reported on was judged (bodies that are not JSON x operations x
statuses); a 4xx refusal of a request a rule about the request found wrong was judged (request defects
x statuses); every spelling of a path is one group; values in paths (slugs, UUIDs, numbers, hex, tokens,
JWTs), up to 1,000 distinct, make one bounded group per shape."""

from __future__ import annotations

import itertools
import string
from collections.abc import Callable

import pytest

from proxy.core.model.exchange import Body, Exchange, Request, Response
from proxy.core.rules.config import RuleConfig
from proxy.core.rules.engine import Checker
from proxy.core.rules.path_shapes import path_shape
from proxy.core.rules.ruleset import RuleSet
from proxy.core.rules.unjudged import MAX_GROUPS, Unjudged, UnjudgedTally
from proxy.store.rule_files import load_rules
from proxy.store.shipped import shipped_dir
from tests.unit.core.exchanges import (
    entry_read,
    error_document,
    exchange,
    feature_update,
    list_read,
    update_payload,
)

BODIES: dict[str, tuple[Body, str | None, str]] = {  # body, Content-Type, what a finding says it found
    "html": (Body("text", "<html><body>Service unavailable</body></html>"), "text/html", "a text/html body"),
    "text": (Body("text", "ok"), "text/plain; charset=utf-8", "a text/plain body"),
    "empty": (Body(), None, "no body"),
    "binary": (Body("base64", "AAECAw=="), "application/octet-stream", "an application/octet-stream body"),
    "broken-json": (
        Body("text", '{"data": ['),
        "application/json",
        "an application/json body that is not valid JSON",
    ),
    "untyped": (Body("text", "hello"), None, "a text body"),
    "repeated-key": (
        Body("text", '{"data": [], "meta": {"results": {"total": 13, "total": 12}}}'),
        "application/json",
        "an application/json body that repeats the key 'total' in one object (parsers keep either)",
    ),
    "repeated-key-in-a-record": (
        Body("text", '{"data": [{"id": "a", "id": "b"}]}'),
        "application/json; charset=utf-8",
        "an application/json body that repeats the key 'id' in one object (parsers keep either)",
    ),
    "nan-json": (
        Body("text", '{"data": NaN}'),
        "application/json",
        "an application/json body that is not valid JSON",
    ),
}
OPERATIONS: dict[str, Callable[[], Exchange]] = {
    "products": list_read,
    "accounts": lambda: list_read(path="/v2/accounts"),
    "flow-entries": lambda: list_read(path="/v2/flows/wishlists/entries"),
    "entry": entry_read,
    "feature": feature_update,
}
SUCCESSES = (200, 201, 202, 204, 206)
SHAPE_RULES = {"pagination.envelope.present", "feature.envelope"}


@pytest.fixture(scope="module")
def rules() -> RuleSet:
    return load_rules(shipped_dir("rules"))


def answered(made: Exchange, status: int, body: Body, content_type: str | None) -> Exchange:
    headers = (("Content-Type", content_type),) if content_type else ()
    return Exchange(made.request, Response(status, headers, body))


@pytest.mark.parametrize(
    ("kind", "operation", "status"), list(itertools.product(BODIES, OPERATIONS, SUCCESSES))
)
def test_a_body_that_is_not_json_is_judged_by_the_rule_that_reports_it(
    rules: RuleSet, kind: str, operation: str, status: int
) -> None:
    body, content_type, said = BODIES[kind]
    checker = Checker(rules)
    findings = checker.check(answered(OPERATIONS[operation](), status, body, content_type), 0)
    assert findings, "a rule about the answer reports a success answer with no JSON body"
    assert checker.verdict is None
    assert not checker.unjudged
    for finding in findings:
        assert finding.found != "null"
        if finding.rule in SHAPE_RULES:
            assert finding.found == said


@pytest.mark.parametrize("operation", OPERATIONS)
def test_with_the_reporting_rules_off_a_body_that_is_not_json_is_not_judged(
    rules: RuleSet, operation: str
) -> None:
    body, content_type, _ = BODIES["html"]
    made = answered(OPERATIONS[operation](), 200, body, content_type)
    reporting = {finding.rule for finding in Checker(rules).check(made, 0)}
    config = RuleConfig.parse(
        {"severity": dict.fromkeys(reporting, "off")}, "test", [rule.id for rule in rules.rules]
    )
    checker = Checker(rules, config)
    assert checker.check(made, 0) == []
    assert checker.verdict is not None and checker.verdict.reason == "not-json"


def _without_token(made: Exchange) -> Exchange:
    request = made.request
    return Exchange(Request(request.method, request.path, request.query, (), request.body), made.response)


def _with_query(made: Exchange, query: str) -> Exchange:
    request = made.request
    return Exchange(
        Request(request.method, request.path, query, request.headers, request.body), made.response
    )


DEFECTS: dict[str, Callable[[], Exchange]] = {  # requests a rule about the request finds wrong
    "list-no-token": lambda: _without_token(list_read()),
    "accounts-no-token": lambda: _without_token(list_read(path="/v2/accounts")),
    "entry-no-token": lambda: _without_token(entry_read()),
    "feature-no-token": lambda: _without_token(feature_update()),
    "feature-short-name": lambda: feature_update(sent=update_payload(name="ab")),
    "feature-no-type": lambda: feature_update(sent={"data": {"attributes": {"name": "Gold"}}}),
    "list-limit-not-integer": lambda: _with_query(list_read(), "page[limit]=ten"),
    "list-offset-not-integer": lambda: _with_query(list_read(), "page[offset]=-x"),
}
REFUSALS = (400, 401, 403, 404, 409, 422, 429)
FAILURES = (500, 502, 503)


def _refused(made: Exchange, status: int) -> Exchange:
    return Exchange(made.request, Response(status, (), Body("json", error_document(status))))


@pytest.mark.parametrize(("defect", "status"), list(itertools.product(DEFECTS, REFUSALS + FAILURES)))
def test_a_refusal_of_a_request_found_wrong_is_judged_and_a_failure_is_not(
    rules: RuleSet, defect: str, status: int
) -> None:
    checker = Checker(rules)
    findings = checker.check(_refused(DEFECTS[defect](), status), 0)
    assert findings, "a rule about the request reports it"
    if status < 500:
        assert checker.verdict is None, "the refusal is the documented outcome"
    else:
        assert checker.verdict is not None and (checker.verdict.reason, checker.verdict.status) == (
            "error",
            status,
        )


@pytest.mark.parametrize("status", REFUSALS)
@pytest.mark.parametrize("operation", OPERATIONS)
def test_a_refusal_of_a_conformant_request_is_not_judged(rules: RuleSet, operation: str, status: int) -> None:
    checker = Checker(rules)
    checker.check(_refused(OPERATIONS[operation](), status), 0)
    assert checker.verdict is not None and (checker.verdict.reason, checker.verdict.status) == (
        "error",
        status,
    )


SPELLINGS: dict[str, Callable[[str], str]] = {
    "as-is": lambda path: path,
    "trailing": lambda path: path + "/",
    "leading-double": lambda path: "/" + path,
    "inner-double": lambda path: path.replace("/", "//", 2)[1:],
    "upper-version": lambda path: path.replace("/v2", "/V2", 1),
    "all": lambda path: "/" + path.replace("/v2", "/V2//", 1) + "//",
}
SHAPES = {
    "/v2/settings": "GET /v2/settings",
    "/v2/products/42": "GET /v2/products/{id}",
    "/v2/products/5b0f6a52-3a8e-4f65-9d4c-0e6f1a2b3c4d/relationships/files": (
        "GET /v2/products/{id}/relationships/files"
    ),
    "/v2/customers/cus_4eC39HqLyjWDarjtT1zdp7dc/addresses": "GET /v2/customers/{id}/addresses",
    "/oauth/access_token": "GET /oauth/access_token",
}


@pytest.mark.parametrize(("path", "shape"), SHAPES.items())
def test_every_spelling_of_a_path_is_one_group(rules: RuleSet, path: str, shape: str) -> None:
    checker = Checker(rules)
    for spelling in SPELLINGS.values():
        assert path_shape("GET", spelling(path)) == shape
        checker.check(exchange("GET", spelling(path), body={"data": []}), 0)
    assert list(checker.unjudged.groups) == [shape]
    assert checker.unjudged.groups[shape].exchanges == len(SPELLINGS)


def _letters(number: int) -> str:
    first, second = divmod(number, 26 * 26)
    return "".join(string.ascii_lowercase[digit] for digit in (first % 26, second // 26, second % 26))


SEGMENTS: dict[str, Callable[[int], str]] = {  # distinct values a path may hold where an id goes
    "number": str,
    "uuid": lambda n: f"5b0f6a52-3a8e-4f65-9d4c-{n:012x}",
    "hex": lambda n: f"{n:024x}",
    "slug": lambda n: f"shirt-{_letters(n)}",
    "long-slug": lambda n: f"blue-shirt-{_letters(n)}-large",
    "capitalised": lambda n: f"Shirt_{_letters(n).upper()}",
    "token": lambda n: f"sk_live_{n:04d}eC39HqLyjWDarjtT1zdp7dc",
    "jwt": lambda n: f"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ{n}In0.c2lnbmF0dXJl",
    "word": lambda n: f"shirt{_letters(n)}",  # lower-case words: the parent gathers too many children
}
COUNTS = (1, 9, 300, 1000)


@pytest.mark.parametrize("count", COUNTS)
@pytest.mark.parametrize("kind", SEGMENTS)
def test_distinct_values_in_a_path_make_one_group(rules: RuleSet, kind: str, count: int) -> None:
    checker = Checker(rules)
    for number in range(count):
        value = SEGMENTS[kind](number)
        checker.check(exchange("GET", f"/v2/products/{value}", body={"data": {}}), number)
        checker.check(exchange("GET", f"/v2/products/{value}/variations", body={"data": []}), number)
    expected = {"GET /v2/products/{id}", "GET /v2/products/{id}/variations"}
    if kind == "word" and count <= 8:  # a few words under one parent are words of the API
        expected = {f"GET /v2/products/{SEGMENTS[kind](n)}" for n in range(count)}
        expected |= {f"{name}/variations" for name in expected}
    assert set(checker.unjudged.groups) == expected
    assert checker.unjudged.exchanges == 2 * count and checker.unjudged.overflow == 0


def _unfolded(number: int) -> str:
    """Distinct path shapes that do not fold: 30 resources of at most 8 words each."""
    resource, word = divmod(number, 8)
    return f"GET /v2/{_letters(resource)}/{_letters(word)}"


def test_the_tally_keeps_exactly_its_bound_and_counts_the_groups_past_it() -> None:
    tally = UnjudgedTally()
    for number in range(MAX_GROUPS + 40):
        tally.add(Unjudged("undocumented", _unfolded(number), 200, False), count=2)
    tally.add(Unjudged("error", "update a feature (PUT ...)", 500, True))
    document = tally.to_json()
    assert len(document["groups"]) == MAX_GROUPS
    assert document["overflow"] == {"exchanges": 2 * 41, "groups": 41, "exact": True}
    assert document["exchanges"] == 2 * (MAX_GROUPS + 40) + 1
    again = UnjudgedTally.from_json(document)
    assert again.to_json() == document
    tally.add(Unjudged("undocumented", _unfolded(MAX_GROUPS + 1), 200, False))
    assert tally.overflow_groups == 41  # a group past the bound is counted once
