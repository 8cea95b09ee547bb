"""readOnly properties are not required in a request, nor writeOnly ones in a response, in every shape
the published specs write them (tests/fixtures/contract/one_way/api.yaml): a conforming exchange gets no
finding, a property the direction does carry is still required, and the one-way property is still
required the other way."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from proxy.core.contract.findings import ContractJudge
from proxy.core.model.exchange import Body, Exchange, Request, Response
from proxy.store.contract_files import source_name
from tests.unit.core.contract.plans import FIXTURES, JSON, judge_of

SPEC = FIXTURES / "one_way" / "api.yaml"
NAME = source_name(SPEC)
ID = "3f8e2a4c-9b1d-4c6e-8f0a-1b2c3d4e5f60"
API = {"type": "custom_api", "name": "Wishlists"}
FIELD = {"type": "custom_field", "name": "size"}
MEMBER = {"username": "ron", "name": "Ron Swanson"}

# (what, method, path, request body or None, status, response body or None); each conforms.
CONFORMING: list[tuple[str, str, str, Any, int, Any]] = [
    (
        "required beside a $ref, a readOnly property and a readOnly $ref",
        "POST",
        "/v2/settings/custom-apis",
        {"data": API},
        201,
        {"data": {**API, "id": ID, "links": {"self": f"/v2/settings/custom-apis/{ID}"}}},
    ),
    (
        "required in an allOf branch, the readOnly property in another",
        "POST",
        "/v2/settings/custom-fields",
        {"data": FIELD},
        201,
        None,
    ),
    (
        "a property allOf [$ref] to a readOnly schema, required beside allOf",
        "PUT",
        f"/v2/settings/custom-fields/{ID}",
        {"data": {"name": "size"}},
        200,
        None,
    ),
    (
        "a writeOnly password required through allOf",
        "GET",
        f"/v2/account-members/{ID}",
        None,
        200,
        {"data": MEMBER},
    ),
]


@pytest.fixture(scope="module")
def judge() -> ContractJudge:
    return judge_of(SPEC)


def _exchange(method: str, path: str, sent: Any, status: int, answered: Any) -> Exchange:
    request = Request(method, path, headers=JSON, body=Body("json", sent) if sent is not None else Body())
    response = Response(status, JSON, Body("json", answered) if answered is not None else Body())
    return Exchange(request, response)


def _findings(judge: ContractJudge, one: Exchange) -> list[tuple[str, str, str]]:
    verdict = judge.verdict(one, 0, False, lambda rule, severity, method, path: severity, None)
    assert verdict.known
    return [(finding.rule, finding.where, finding.section.partition("#")[2]) for finding in verdict.findings]


@pytest.mark.parametrize(("what", "method", "path", "sent", "status", "answered"), CONFORMING)
def test_a_conforming_exchange_gets_no_finding(
    judge: ContractJudge, what: str, method: str, path: str, sent: Any, status: int, answered: Any
) -> None:
    assert _findings(judge, _exchange(method, path, sent, status, answered)) == [], what


@pytest.mark.parametrize(("what", "method", "path", "sent", "status", "answered"), CONFORMING)
def test_a_property_the_direction_carries_is_still_required(
    judge: ContractJudge, what: str, method: str, path: str, sent: Any, status: int, answered: Any
) -> None:
    body = copy.deepcopy(sent if sent is not None else answered)
    del body["data"]["name"]
    one = (
        _exchange(method, path, body, status, answered)
        if sent is not None
        else _exchange(method, path, None, status, body)
    )
    found = _findings(judge, one)
    assert [(rule, where) for rule, where, _ in found] == [
        (
            "contract.request.invalid-accepted" if sent is not None else "contract.response.schema",
            "request.body.data" if sent is not None else "body.data",
        )
    ], what
    assert found[0][2].endswith("/required"), what


@pytest.mark.parametrize(
    ("path", "answered", "missing"),
    [
        ("/v2/settings/custom-apis", {"data": {**API, "links": {}}}, "id"),
        ("/v2/settings/custom-apis", {"data": {**API, "id": ID}}, "links"),
    ],
)
def test_a_read_only_property_is_still_required_in_a_response(
    judge: ContractJudge, path: str, answered: Any, missing: str
) -> None:
    found = _findings(judge, _exchange("POST", path, {"data": API}, 201, answered))
    assert [(rule, where) for rule, where, _ in found] == [("contract.response.schema", "body.data")], missing


def test_a_write_only_property_is_still_required_in_a_request() -> None:
    """The same object as a request schema: `password` is asked for (the response's judge dropped it)."""
    judge = judge_of(SPEC)
    schema = judge.contract.schemas.compiled((NAME, "/components/schemas/AccountMember"), "request")
    problems = compiled_keywords(schema.problems(MEMBER, judge.contract.specs))
    assert problems == ["required"]
    assert compiled_keywords(schema.problems({**MEMBER, "password": "pa$$word"}, judge.contract.specs)) == []


def compiled_keywords(problems: list[Any]) -> list[str]:
    return [problem.keyword for problem in problems]
