"""A schema node the validator cannot read is said at its own place, once, and only what it governs goes
unjudged: the rest of the body is still checked. Generated over a table of broken nodes (each at a few
depths: in the operation's schema, under `allOf`, in a component a `$ref` reaches).

Modelled on the published currencies.yaml: `POST /v2/currencies` 201 has `allOf[1].properties.type:
"object"`, a spec's slip that once left the whole answer unchecked.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from proxy.core.contract.documents import Spec
from proxy.core.contract.findings import ContractJudge
from proxy.core.contract.judge import Contract
from proxy.core.model.exchange import Body, Exchange, Request, Response
from proxy.core.rules.config import RuleConfig

JSON = (("Content-Type", "application/json"),)
ID = "0c45e4ec-26e0-4043-86e4-c15b9cf985a0"
# A broken node, the key it sits at in the `data` object's schema, and the pointer the finding names
# below that object (the key itself, or the keyword of it the meta-schema refuses).
BROKEN: dict[str, tuple[str, Any, str]] = {
    "a string where a property's schema goes": ("properties", {"type": "object"}, "/properties/type"),
    "a number where `items` goes": (
        "properties",
        {"code": {"type": "array", "items": 5}},
        "/properties/code/items",
    ),
    "a type JSON Schema lacks": ("properties", {"code": {"type": "objekt"}}, "/properties/code/type"),
    "`required` as a string": ("required", "code", "/required"),
    "a bound as a string": (
        "properties",
        {"code": {"type": "integer", "minimum": "1"}},
        "/properties/code/minimum",
    ),
    "`enum` as a number": ("properties", {"code": {"enum": 5}}, "/properties/code/enum"),
}
PLACES = ("inline", "allOf", "component")


def _spec(broken: str, place: str) -> tuple[dict[str, Any], str]:
    key, value, below = BROKEN[broken]
    data: dict[str, Any] = {
        "type": "object",
        "properties": {"id": {"type": "string", "format": "uuid"}, "type": {"type": "string"}},
    }
    if key == "properties":
        data["properties"] = {**data["properties"], **value}
    else:
        data[key] = value
    schema: dict[str, Any] = {"type": "object", "properties": {"data": data}}
    components: dict[str, Any] = {}
    at = "/paths/~1v2~1currencies/post/responses/201/content/application~1json/schema/properties/data"
    if place == "allOf":
        schema = {"allOf": [{"type": "object"}, schema]}
        at = at.replace("/schema/", "/schema/allOf/1/")
    elif place == "component":
        components = {"schemas": {"Currency": schema}}
        schema = {"$ref": "#/components/schemas/Currency"}
        at = "/components/schemas/Currency/properties/data"
    answer = {"description": "ok", "content": {"application/json": {"schema": schema}}}
    document = {
        "openapi": "3.1.0",
        "info": {"title": "currencies", "version": "1"},
        "paths": {"/v2/currencies": {"post": {"responses": {"201": answer}}}},
        "components": components,
    }
    return document, at + below


def _findings(document: dict[str, Any], body: Any) -> list[tuple[str, str]]:
    judge = ContractJudge(Contract([Spec("currencies.yaml", "3.1", document, {})]))
    exchange = Exchange(Request("POST", "/v2/currencies"), Response(201, JSON, Body("json", body)))
    verdict = judge.verdict(exchange, 0, False, RuleConfig().severity, None)
    return [(finding.rule, finding.section.partition("#")[2]) for finding in verdict.findings]


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("broken", list(BROKEN))
def test_an_unreadable_node_is_said_at_its_place_and_the_rest_is_judged(broken: str, place: str) -> None:
    document, pointer = _spec(broken, place)
    conforming = {"data": {"id": ID, "type": "currency"}}
    assert _findings(document, conforming) == [("contract.unsupported", pointer)]
    wrong = copy.deepcopy(conforming)
    wrong["data"]["id"] = "EUR-1"  # beside the broken node: still judged
    id_format = pointer.rsplit("/properties/data", 1)[0] + "/properties/data/properties/id/format"
    assert _findings(document, wrong) == [
        ("contract.unsupported", pointer),
        ("contract.response.schema", id_format),
    ]
