"""What the contract used to miss: each gap is one finding, with its rule and its place in the spec, and
the conforming exchange of each operation gets none."""

from __future__ import annotations

from typing import Any

import pytest

from proxy.core.contract.documents import Spec
from proxy.core.contract.findings import IDS, ContractJudge
from proxy.core.contract.judge import Contract
from proxy.core.contract.proposals import proposed
from proxy.core.model.exchange import EMPTY_BODY, Body, Exchange, Headers, Request, Response
from proxy.core.reports.disagreements import disagreements
from proxy.core.rules.config import RuleConfig

# Modelled on cart_checkout.yaml: `POST /v2/carts` (a CartsRequest body, 201 with a CartEntityResponse)
# and `DELETE /v2/carts/{cartID}` (204); the requestBody marked `required: true` as OpenAPI allows.
CART = {"type": "object", "required": ["data"], "properties": {"data": {"type": "object"}}}
SPEC: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "carts", "version": "1"},
    "paths": {
        "/v2/carts": {
            "post": {
                "requestBody": {"required": True, "content": {"application/json": {"schema": CART}}},
                "responses": {
                    "201": {"description": "ok", "content": {"application/json": {"schema": CART}}},
                    "4XX": {"description": "error", "content": {"application/json": {"schema": CART}}},
                },
            }
        },
        "/v2/carts/{cartID}": {
            "get": {
                "responses": {
                    "200": {"description": "ok", "content": {"application/vnd.api+json": {"schema": CART}}},
                    "304": {"description": "not modified"},
                }
            },
            "head": {
                "responses": {
                    "200": {"description": "ok", "content": {"application/vnd.api+json": {"schema": CART}}}
                }
            },
            "delete": {"responses": {"204": {"description": "deleted"}}},
        },
    },
}
POST = "/paths/~1v2~1carts/post"
GET = "/paths/~1v2~1carts~1{cartID}/get"
JSON: Headers = (("Content-Type", "application/json"),)
API_JSON: Headers = (("Content-Type", "application/vnd.api+json"),)
TEXT: Headers = (("Content-Type", "text/plain"),)
CARTS = {"data": {"name": "mine"}}


def _exchange(
    method: str,
    path: str,
    status: int,
    answer: Body = EMPTY_BODY,
    answered: Headers = (),
    sent: Body = EMPTY_BODY,
    sent_headers: Headers = (),
) -> Exchange:
    return Exchange(
        Request(method, path, headers=sent_headers, body=sent), Response(status, answered, answer)
    )


def _findings(one: Exchange) -> list[tuple[str, str, str]]:
    judge = ContractJudge(Contract([Spec("carts.yaml", "3.1", SPEC, {})]))
    verdict = judge.verdict(one, 0, False, RuleConfig().severity, None)
    return [(finding.rule, finding.where, finding.section) for finding in verdict.findings]


def _created(sent: Body = EMPTY_BODY, sent_headers: Headers = ()) -> Exchange:
    """A create the service accepted (201, answering a conforming cart)."""
    return _exchange("POST", "/v2/carts", 201, Body("json", CARTS), JSON, sent, sent_headers)


CONFORMING = [
    _created(Body("json", CARTS), JSON),
    _exchange("GET", "/v2/carts/1", 200, Body("json", CARTS), API_JSON),
    _exchange("GET", "/v2/carts/1", 304),
    _exchange("DELETE", "/v2/carts/1", 204),
    _exchange("HEAD", "/v2/carts/1", 200, answered=API_JSON),  # a HEAD answer has no body
    # a refused write without its body is no finding: the service did right
    _exchange("POST", "/v2/carts", 400, Body("json", CARTS), JSON),
    # an error answer without its body is not the success's missing body
    _exchange("POST", "/v2/carts", 404),
]


@pytest.mark.parametrize("one", CONFORMING)
def test_a_conforming_exchange_gets_no_finding(one: Exchange) -> None:
    assert _findings(one) == []


GAPS = [
    (  # an empty 200 body where a JSON schema is documented
        _exchange("GET", "/v2/carts/1", 200, answered=API_JSON),
        (
            "contract.response.body-missing",
            "body",
            f"carts.yaml#{GET}/responses/200/content/application~1vnd.api+json",
        ),
    ),
    (  # an application/json body that does not parse (stored as text)
        _exchange("GET", "/v2/carts/1", 200, Body("text", '{"data": '), API_JSON),
        (
            "contract.response.body-not-json",
            "body",
            f"carts.yaml#{GET}/responses/200/content/application~1vnd.api+json",
        ),
    ),
    (  # the same, on an error answer the spec documents as JSON
        _exchange(
            "POST", "/v2/carts", 422, Body("text", "<html>oops</html>"), JSON, Body("json", CARTS), JSON
        ),
        (
            "contract.response.body-not-json",
            "body",
            f"carts.yaml#{POST}/responses/4XX/content/application~1json",
        ),
    ),
    (  # a write accepted with no body though `requestBody.required: true`
        _created(),
        ("contract.request.body-missing", "request.body", f"carts.yaml#{POST}/requestBody/required"),
    ),
    (  # a write accepted whose JSON body does not parse
        _created(Body("text", "{data"), JSON),
        (
            "contract.request.invalid-accepted",
            "request.body",
            f"carts.yaml#{POST}/requestBody/content/application~1json",
        ),
    ),
    (  # a 204 with a body
        _exchange("DELETE", "/v2/carts/1", 204, Body("json", CARTS), JSON),
        (
            "contract.response.body-unexpected",
            "body",
            "carts.yaml#/paths/~1v2~1carts~1{cartID}/delete/responses/204",
        ),
    ),
    (  # a 304 with a body
        _exchange("GET", "/v2/carts/1", 304, Body("text", "x"), TEXT),
        ("contract.response.body-unexpected", "body", f"carts.yaml#{GET}/responses/304"),
    ),
    (  # a request in a media type the requestBody does not list, accepted
        _created(Body("text", "name=mine"), TEXT),
        (
            "contract.request.content-type",
            "request.headers.Content-Type",
            f"carts.yaml#{POST}/requestBody/content",
        ),
    ),
]


@pytest.mark.parametrize(("one", "expected"), GAPS)
def test_each_gap_is_one_finding_with_its_rule_and_place(
    one: Exchange, expected: tuple[str, str, str]
) -> None:
    """Each of these exchanges got no finding before."""
    assert _findings(one) == [expected]


def test_the_gaps_rules_are_declared_with_the_others() -> None:
    caught = {expected[0] for _, expected in GAPS}
    assert caught <= set(IDS)


def test_an_accepted_write_without_its_required_body_proposes_it_optional() -> None:
    """The proposal for `contract.request.body-missing`: the requestBody's `required: false`."""
    judge = ContractJudge(Contract([Spec("carts.yaml", "3.1", SPEC, {})]))
    findings = judge.verdict(_created(), 0, False, RuleConfig().severity, None).findings
    proposal = proposed(disagreements(findings), judge.observations, judge.contract.specs, {"carts.yaml"})
    assert proposal.actions == {
        "carts.yaml": [
            {
                "target": "$['paths']['/v2/carts']['post']['requestBody']",
                "description": "contract.request.body-missing: 1 exchange(s) (#0) of POST /v2/carts: "
                "request.body: expected a body (the request body is required), found no body",
                "update": {"required": False},
            }
        ]
    }
