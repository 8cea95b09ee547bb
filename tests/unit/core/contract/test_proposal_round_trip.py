"""`check --propose-overlay`'s invariant, over a table built by a loop: for every kind of disagreement the
contract can report (each keyword the proposal knows, a discriminator's value, `oneOf`...), in OpenAPI
3.0 and 3.1, broken alone or all at once, at a schema two operations share: the proposal, read back by
the overlay reader and applied, raises no error and no warning, has one action per target, and leaves
no finding but those it names as comments (no change fixes them surely); a kind it can fix leaves none.

The spec is modelled on the published catalog_view.yaml (a shared `product-attributes` schema with
dates, a `formatted-price`), account_management.yaml (`POST /v2/account-members/tokens`: a `oneOf` with a
discriminator) and commerce-extensions.yaml (`additionalProperties: false`, a `pattern`).
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Callable
from typing import Any

import pytest

from proxy.core.contract.documents import Spec
from proxy.core.contract.findings import IDS, ContractJudge
from proxy.core.contract.judge import Contract
from proxy.core.contract.overlays import overlaid, overlay_of
from proxy.core.contract.proposals import Proposal, overlay_document, proposed
from proxy.core.model.exchange import Body, Exchange, Headers, Request, Response
from proxy.core.reports.disagreements import disagreements
from proxy.core.rules.config import RuleConfig
from proxy.core.rules.findings import Finding

JSON: Headers = (("Content-Type", "application/json"),)
TAGGED: Headers = (*JSON, ("ETag", 'W/"1"'))
NAME = "things.yaml"
ID = "0c45e4ec-26e0-4043-86e4-c15b9cf985a0"


def _spec(version: str) -> dict[str, Any]:
    thing = {"$ref": "#/components/schemas/Thing"}
    answer = {"description": "ok", "content": {"application/json": {"schema": thing}}}
    read = {
        "responses": {
            "200": {**answer, "headers": {"ETag": {"required": True, "schema": {"type": "string"}}}},
            "404": {"description": "missing"},
        }
    }
    attributes = {
        "type": "object",
        "required": ["name", "kind", "when"],
        "additionalProperties": False,
        "properties": {
            "id": {"type": "string", "format": "uuid"},
            "name": {"type": "string", "minLength": 3, "maxLength": 12, "pattern": "^[a-z]+$"},
            "count": {"type": "integer", "minimum": 0, "maximum": 10, "multipleOf": 2},
            "kind": {"type": "string", "enum": ["a", "b"]},
            "fixed": {"const": "x"},
            "when": {"type": "string", "format": "date-time"},
            "tags": {"type": "array", "maxItems": 2, "uniqueItems": True, "items": {"type": "string"}},
            "either": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
            "pet": {
                "type": "object",
                "oneOf": [{"$ref": "#/components/schemas/Cat"}, {"$ref": "#/components/schemas/Dog"}],
                "discriminator": {
                    "propertyName": "pet_type",
                    "mapping": {"cat": "#/components/schemas/Cat", "dog": "#/components/schemas/Dog"},
                },
            },
        },
    }
    animal = {"type": "object", "properties": {"pet_type": {"type": "string"}}}
    return {
        "openapi": "3.0.3" if version == "3.0" else "3.1.0",
        "info": {"title": "things", "version": "1"},
        "paths": {
            "/v2/things/{id}": {"get": read},
            "/v2/things": {
                "get": read,
                "post": {
                    "requestBody": {"required": True, "content": {"application/json": {"schema": thing}}},
                    "responses": {"201": answer},
                },
            },
            "/v2/things/{id}/empty": {"delete": {"responses": {"204": {"description": "gone"}}}},
        },
        "components": {
            "schemas": {
                "Thing": {
                    "type": "object",
                    "required": ["data"],
                    "properties": {"data": attributes},
                },
                "Cat": animal,
                "Dog": animal,
            }
        },
    }


def _thing() -> dict[str, Any]:
    return {
        "data": {
            "id": ID,
            "name": "gold",
            "count": 4,
            "kind": "a",
            "fixed": "x",
            "when": "2024-01-01T00:00:00Z",
            "tags": ["a"],
            "either": "s",
            "pet": {"pet_type": "cat"},
        }
    }


def _set(field: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(body: dict[str, Any]) -> None:
        body["data"][field] = value

    return change


def _drop(field: str) -> Callable[[dict[str, Any]], None]:
    def change(body: dict[str, Any]) -> None:
        del body["data"][field]

    return change


# Each planted disagreement: what it does to a conforming answer (or the exchange itself), the rule it
# breaks, and whether a proposal can fix it (else the proposal names it in a comment).
BODY_CHANGES: dict[str, tuple[list[Callable[[dict[str, Any]], None]], bool]] = {
    "type": ([_set("name", 5)], True),
    "type (null)": ([_set("name", None)], True),
    "type (a fraction)": ([_set("count", 1.5)], True),
    "enum (two values, one per operation)": ([_set("kind", "c"), _set("kind", "d")], True),
    "enum (null)": ([_set("kind", None)], True),
    "required (two properties)": ([_drop("name"), _drop("kind")], True),
    "additionalProperties": ([_set("extra", 1)], True),
    "format (uuid)": ([_set("id", "plan-1")], True),
    "format (date-time)": ([_set("when", "yesterday")], True),
    "minLength": ([_set("name", "ab")], True),
    "maxLength": ([_set("name", "abcdefghijklmnop")], True),
    "pattern": ([_set("name", "Gold")], True),
    "minimum": ([_set("count", -2)], True),
    "maximum": ([_set("count", 12)], True),
    "multipleOf": ([_set("count", 3)], True),
    "const": ([_set("fixed", "y")], True),
    "maxItems": ([_set("tags", ["a", "b", "c"])], True),
    "uniqueItems": ([_set("tags", ["a", "a"])], True),
    "oneOf": ([_set("either", [1])], False),
    "discriminator (a value outside the mapping)": ([_set("pet", {"pet_type": "bird"})], False),
    "discriminator (its property missing)": ([_set("pet", {})], False),
}


def _exchange(
    method: str, path: str, status: int, answer: Any = None, headers: Headers = TAGGED, sent: Any = None
) -> Exchange:
    request = Request(method, path, headers=JSON, body=Body("json", sent) if sent is not None else Body())
    if isinstance(answer, str):
        body = Body("text", answer)
    else:
        body = Body("json", answer) if answer is not None else Body()
    return Exchange(request, Response(status, headers, body))


def _body_case(changes: list[Callable[[dict[str, Any]], None]]) -> list[Exchange]:
    """The changes in the answers of both reads (the shared schema), the first also in an accepted
    write's request: one disagreement at one place, from three operations."""
    made = []
    for index, (change, path) in enumerate(zip(itertools.cycle(changes), ("/v2/things/1", "/v2/things"))):
        body = _thing()
        change(body)
        made.append(_exchange("GET", path, 200, body))
        if index == 0:
            made.append(_exchange("POST", "/v2/things", 201, _thing(), sent=body))
    if len(changes) > 1:  # each change in each read
        for change in changes:
            body = _thing()
            change(body)
            made.append(_exchange("GET", "/v2/things/2", 200, body))
    return made


OTHER_CASES: dict[str, tuple[list[Exchange], bool]] = {
    "status": ([_exchange("GET", "/v2/things/1", 500, {}), _exchange("GET", "/v2/things", 502, {})], True),
    "content-type": (
        [_exchange("GET", "/v2/things/1", 200, _thing(), (("Content-Type", "text/html"), ("ETag", "1")))],
        True,
    ),
    "header": ([_exchange("GET", "/v2/things/1", 200, _thing(), JSON)], True),
    "request content-type": (
        [
            Exchange(
                Request(
                    "POST", "/v2/things", headers=(("Content-Type", "text/plain"),), body=Body("text", "x")
                ),
                Response(201, JSON, Body("json", _thing())),
            )
        ],
        True,
    ),
    "request body missing": ([_exchange("POST", "/v2/things", 201, _thing())], True),
    "body missing": ([_exchange("GET", "/v2/things/1", 200)], False),
    "body not JSON": ([_exchange("GET", "/v2/things/1", 200, "{not json")], False),
    "a 204 with a body": ([_exchange("DELETE", "/v2/things/1/empty", 204, {})], False),
}
CASES: dict[str, tuple[list[Exchange], bool]] = {
    **{kind: (_body_case(changes), fixable) for kind, (changes, fixable) in BODY_CHANGES.items()},
    **OTHER_CASES,
}
CASES["all at once"] = ([one for exchanges, _ in CASES.values() for one in exchanges], False)


def _contract(document: dict[str, Any], version: str) -> Contract:
    return Contract([Spec(NAME, version, document, {})])


def _findings(contract: Contract, exchanges: list[Exchange]) -> tuple[ContractJudge, list[Finding]]:
    judge = ContractJudge(contract)
    found = []
    for index, one in enumerate(exchanges):
        found.extend(judge.verdict(one, index, False, RuleConfig().severity, None).findings)
    return judge, found


def _proposal(judge: ContractJudge, found: list[Finding]) -> Proposal:
    groups = [group for rule in IDS for group in disagreements([f for f in found if f.rule == rule])]
    return proposed(groups, judge.observations, judge.contract.specs, {NAME})


@pytest.mark.parametrize("version", ["3.0", "3.1"])
@pytest.mark.parametrize("kind", list(CASES))
def test_a_proposal_read_back_makes_the_spec_accept_the_traffic(kind: str, version: str) -> None:
    exchanges, fixable = CASES[kind]
    document = _spec(version)
    judge, before = _findings(_contract(document, version), exchanges)
    assert before, "the planted disagreement is found"
    proposal = _proposal(judge, before)
    actions = proposal.actions.get(NAME, [])
    targets = [action["target"] for action in actions]
    assert len(targets) == len(set(targets)), "one action per target"
    warnings: list[str] = []
    if actions:
        overlay = overlay_of("p.yaml", copy.deepcopy(overlay_document(NAME, actions)), [NAME])
        corrected, _ = overlaid(NAME, document, [overlay], warnings.append)
    else:
        corrected = document
    assert warnings == []
    _, after = _findings(_contract(corrected, version), exchanges)
    comments = proposal.comments.get(NAME, [])
    left = {(finding.rule, finding.section) for finding in after}
    assert all(
        any(f"for {section}: " in line and rule in line for line in comments) for rule, section in left
    )
    assert len(proposal.skipped) == len(proposal.comments.get(NAME, []))
    if fixable:
        assert (after, proposal.skipped) == ([], [])


def test_the_table_covers_every_rule_that_judges_traffic() -> None:
    judged = set()
    for version in ("3.0", "3.1"):
        _, found = _findings(_contract(_spec(version), version), CASES["all at once"][0])
        judged |= {finding.rule for finding in found}
    assert judged == set(IDS) - {"contract.unsupported"}


def test_a_discriminator_value_is_said_at_the_discriminator() -> None:
    """Before, at the object holding it, as an `enum` the spec does not write, and the proposal's
    `update: bird` on that object was refused by the overlay reader."""
    _, found = _findings(
        _contract(_spec("3.1"), "3.1"), CASES["discriminator (a value outside the mapping)"][0]
    )
    assert {(finding.section, finding.expected) for finding in found} == {
        (
            f"{NAME}#/components/schemas/Thing/properties/data/properties/pet/discriminator",
            "a value the schema's `discriminator` maps to a branch",
        )
    }


def test_an_enum_shared_by_operations_gets_each_new_value_once() -> None:
    """Before, one action per operation, each appending its value: a value appended twice."""
    exchanges = CASES["enum (two values, one per operation)"][0] * 2
    judge, found = _findings(_contract(_spec("3.1"), "3.1"), exchanges)
    actions = _proposal(judge, found).actions[NAME]
    assert [(action["target"], action["update"]) for action in actions] == [
        (
            "$['components']['schemas']['Thing']['properties']['data']['properties']['kind']",
            {"enum": ["c", "d"]},
        )
    ]
    assert " of GET /v2/things/{id}, GET /v2/things, POST /v2/things: " in actions[0]["description"]
