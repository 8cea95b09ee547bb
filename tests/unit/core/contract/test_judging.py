"""Each exchange against the fixture specs: a conforming one gets no contract finding, and each planted
violation (one per construct the published specs use) is caught by its check, its source named: the
spec file and the JSON pointer of the keyword that said so."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from proxy.core.contract.findings import ContractJudge, Verdict
from proxy.store.contract_files import source_name
from tests.unit.core.contract.plans import (
    FIXTURES,
    GOT,
    JSON,
    PLAN_PATH,
    SPEC,
    exchange,
    judge_of,
    plan,
    plan_request,
    seen,
    verdict,
)

SUBS = source_name(SPEC)
COMMON = source_name(FIXTURES / "common.yaml")
PLAN_OP = "/paths/~1subscriptions~1plans~1{plan_uuid}/get"


@pytest.fixture(scope="module")
def judge() -> ContractJudge:
    return judge_of()


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(document: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        node: Any = document
        for part in parents:
            node = node[part]
        node[last] = value

    return change


def _delete(path: str) -> Callable[[dict[str, Any]], None]:
    def change(document: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        node: Any = document
        for part in parents:
            node = node[part]
        del node[last]

    return change


ATTRIBUTES = "data.attributes"
PLANTED = [
    # discriminator: the `usage` branch its property names must match, and not the other branch
    (
        _set(f"{ATTRIBUTES}.configuration", {"type": "usage", "tag": "gold"}),
        f"body.{ATTRIBUTES}.configuration",
        f"{SUBS}#/components/schemas/FeatureConfigUsageAttributes/required",
    ),
    # nullable with anyOf: null passes, a wrong inner value is said at its own keyword
    (
        _set(f"{ATTRIBUTES}.trial", {"days": "seven"}),
        f"body.{ATTRIBUTES}.trial",
        f"{SUBS}#/components/schemas/PlanAttributes/properties/trial/anyOf",
    ),
    # oneOf with `required` lists beside the properties: both given matches both branches
    (
        _set(f"{ATTRIBUTES}.discount", {"amount": 1, "percentage": 5}),
        f"body.{ATTRIBUTES}.discount",
        f"{SUBS}#/components/schemas/Discount/oneOf",
    ),
    # allOf inheritance, across files: the base's required `meta`
    (_delete("data.meta"), "body.data", f"{COMMON}#/components/schemas/Resource/required"),
    # additionalProperties: false on a nullable object
    (
        _set(f"{ATTRIBUTES}.price_units", {"unit": "day", "amount": 1, "every": 2}),
        f"body.{ATTRIBUTES}.price_units",
        f"{SUBS}#/components/schemas/NullablePriceUnits/additionalProperties",
    ),
    # formats
    (
        _set("data.id", "plan-1"),
        "body.data.id",
        f"{COMMON}#/components/schemas/Resource/properties/id/format",
    ),
    (
        _set("data.meta.timestamps.created_at", "2024-01-01"),
        "body.data.meta.timestamps.created_at",
        f"{COMMON}#/components/schemas/Resource/properties/meta/properties/timestamps/properties/created_at/format",
    ),
    (
        _set("links.self", "not a link"),
        "body.links.self",
        f"{COMMON}#/components/schemas/Links/properties/self/format",
    ),
    # a plain keyword in the spec's own file
    (
        _set(f"{ATTRIBUTES}.name", "ab"),
        f"body.{ATTRIBUTES}.name",
        f"{SUBS}#/components/schemas/PlanAttributes/properties/name/minLength",
    ),
]


def test_a_conforming_exchange_gets_no_finding(judge: ContractJudge) -> None:
    assert verdict(judge, exchange()) == Verdict(True, [])
    assert verdict(judge, exchange("POST", "/v2/subscriptions/plans", 201, sent=plan_request())) == Verdict(
        True, []
    )
    refused = {"errors": [{"status": 404, "title": "Not Found"}]}
    assert verdict(judge, exchange(status=404, body=refused, headers=JSON)) == Verdict(True, [])


def test_nullable_fields_take_null_and_their_value(judge: ContractJudge) -> None:
    document = plan()
    document["data"]["attributes"]["trial"] = {"days": 7}
    document["data"]["attributes"]["price_units"] = {"unit": "month", "amount": 1}
    document["links"]["self"] = None  # 3.1's type list with "null"
    assert seen(judge, exchange(body=document)) == []


@pytest.mark.parametrize(("change", "where", "section"), PLANTED)
def test_each_planted_violation_is_caught_with_its_source(
    judge: ContractJudge, change: Callable[[dict[str, Any]], None], where: str, section: str
) -> None:
    document = plan()
    change(document)
    assert seen(judge, exchange(body=document)) == [("contract.response.schema", where, section)]


def test_an_undocumented_status_is_the_operations(judge: ContractJudge) -> None:
    found = verdict(judge, exchange(status=500, body={"errors": []}, headers=JSON)).findings
    assert [(f.rule, f.where, f.expected, f.found, f.section) for f in found] == [
        ("contract.response.status", "status", "one of 200, 4XX", "500", f"{SUBS}#{PLAN_OP}/responses")
    ]


def test_a_content_type_the_response_does_not_document(judge: ContractJudge) -> None:
    headers = (("Content-Type", "text/html"), ("ETag", 'W/"1"'))
    assert seen(judge, exchange(headers=headers)) == [
        ("contract.response.content-type", "headers.Content-Type", f"{SUBS}#{PLAN_OP}/responses/200/content")
    ]


def test_a_required_response_header_missing(judge: ContractJudge) -> None:
    assert seen(judge, exchange(headers=JSON)) == [
        ("contract.response.header", "headers.ETag", f"{SUBS}#{PLAN_OP}/responses/200/headers/ETag")
    ]


def test_an_invalid_request_is_reported_only_when_accepted(judge: ContractJudge) -> None:
    sent = plan_request()
    sent["data"]["attributes"]["configuration"] = {"type": "access", "tag": "Gold Plan"}
    accepted = exchange("POST", "/v2/subscriptions/plans", 201, sent=sent)
    where = "request.body.data.attributes.configuration.tag"
    pattern = f"{SUBS}#/components/schemas/FeatureConfigAccessAttributes/properties/tag/pattern"
    assert seen(judge, accepted) == [("contract.request.invalid-accepted", where, pattern)]
    refused = exchange("POST", "/v2/subscriptions/plans", 422, body={"errors": []}, headers=JSON, sent=sent)
    assert seen(judge, refused) == []


def test_read_only_and_write_only_are_required_one_way_each(judge: ContractJudge) -> None:
    sent = plan_request()  # no id, no meta: readOnly
    assert seen(judge, exchange("POST", "/v2/subscriptions/plans", 201, sent=sent)) == []
    del sent["data"]["attributes"]["external_ref"]  # writeOnly: required in a request only
    assert seen(judge, exchange("POST", "/v2/subscriptions/plans", 201, sent=sent)) == [
        (
            "contract.request.invalid-accepted",
            "request.body.data.attributes",
            f"{SUBS}#/components/schemas/PlanAttributes/required",
        )
    ]
    assert "external_ref" not in plan()["data"]["attributes"]  # and the conforming answer lacks it


def test_an_operation_the_documented_rules_judge_is_theirs(judge: ContractJudge) -> None:
    document = plan()
    document["data"]["id"] = "plan-1"
    assert verdict(judge, exchange(body=document), documented=True) == Verdict(True, [])


def test_a_request_no_spec_knows_is_not_the_contracts(judge: ContractJudge) -> None:
    assert verdict(judge, exchange(path="/v2/carts/1")) == Verdict(False, [])
    assert verdict(judge, exchange("DELETE", PLAN_PATH)) == Verdict(False, [])


def test_the_same_headers_pass(judge: ContractJudge) -> None:
    assert (
        seen(judge, exchange(headers=(("content-type", "application/json; charset=utf-8"), *GOT[1:]))) == []
    )


def test_a_finding_names_the_overlay_that_changed_its_place() -> None:
    """The overlays' seam: what `overlay` hands back is what is judged, before any `$ref` is followed,
    and a finding whose place an overlay changed names it."""
    seen_names: list[str] = []

    def overlay(name: str, document: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
        seen_names.append(name)
        if not name.endswith("subscriptions.yaml"):
            return document, {}
        changed = copy.deepcopy(document)
        changed["components"]["schemas"]["PlanAttributes"]["properties"]["name"]["minLength"] = 5
        return changed, {
            "/components/schemas/PlanAttributes/properties/name/minLength": "overrides/plans.yaml"
        }

    judge = judge_of(overlay=overlay)
    assert seen_names == [SUBS, COMMON]
    assert seen(judge, exchange()) == [
        (
            "contract.response.schema",
            "body.data.attributes.name",
            f"{SUBS}#/components/schemas/PlanAttributes/properties/name/minLength (overlay overrides/plans.yaml)",
        )
    ]
    document = plan()
    document["data"]["id"] = "plan-1"  # a place no overlay touched
    assert (
        "contract.response.schema",
        "body.data.id",
        f"{COMMON}#/components/schemas/Resource/properties/id/format",
    ) in seen(judge, exchange(body=document))
