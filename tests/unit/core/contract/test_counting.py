"""The contract summary counts exchanges, and an exchange has each finding once: over drawn traffic (the
fixture's plan with required fields dropped at random), each disagreement's count is the number of
distinct exchanges among its findings, and no exchange has two identical findings."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from proxy.core.contract.documents import Spec
from proxy.core.contract.findings import ContractJudge
from proxy.core.contract.judge import Contract
from proxy.core.model.exchange import Body, Exchange, Request, Response
from proxy.core.reports.disagreements import disagreement_lines, disagreements, key_of
from proxy.core.rules.config import RuleConfig
from proxy.core.rules.findings import Finding
from tests.unit.core.contract.plans import JSON, exchange, judge_of, plan

REQUIRED = ("name", "price_units", "configuration")  # PlanAttributes' required, in the fixture spec
JUDGE = judge_of()


def _findings(judge: ContractJudge, exchanges: list[Exchange], cassette: str | None = None) -> list[Finding]:
    found = []
    for index, one in enumerate(exchanges):
        found.extend(judge.verdict(one, index, False, RuleConfig().severity, cassette).findings)
    return found


def _without(dropped: tuple[str, ...]) -> Exchange:
    body: dict[str, Any] = plan()
    for name in dropped:
        del body["data"]["attributes"][name]
    return exchange(body=body)


def test_two_missing_properties_at_one_place_are_one_exchange() -> None:
    """One exchange missing two required properties of one schema: two findings at one place, one
    exchange (the summary said 2 exchanges before)."""
    findings = _findings(JUDGE, [_without(("name", "price_units"))])
    assert [finding.found for finding in findings] == [
        '"name" is a required property',
        '"price_units" is a required property',
    ]
    (one,) = disagreements(findings)
    assert (one.count, one.numbers) == (1, ["#0"])
    assert "GET /v2/subscriptions/plans/{plan_uuid}: 1 exchange(s) (#0)" in next(
        disagreement_lines(findings, 0)
    )


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.lists(st.sampled_from(REQUIRED), unique=True).map(tuple),
        min_size=1,
        max_size=6,
    ),
    st.sampled_from([None, "a.yaml"]),
)
def test_counts_are_distinct_exchanges_and_findings_are_once(
    dropped: list[tuple[str, ...]], cassette: str | None
) -> None:
    findings = _findings(JUDGE, [_without(names) for names in dropped], cassette)
    per_exchange = [
        (finding.exchange, finding.rule, finding.section, finding.where, finding.found)
        for finding in findings
    ]
    assert len(per_exchange) == len(set(per_exchange))
    for one in disagreements(findings):
        showing = {finding.exchange for finding in findings if key_of(finding) == key_of(one.first)}
        assert one.count == len(showing)
        assert one.numbers == [f"#{index}" for index in sorted(showing)][:3]
    lines = list(disagreement_lines(findings, 0))
    for finding in findings:  # every distinct statement is shown, not only the first one's
        assert f"        {finding.where}: expected {finding.expected}; found {finding.found}" in lines


def test_the_summary_shows_each_property_missing_at_one_place() -> None:
    """One `required` list of eight, k of them missing over a few exchanges: the text summary shows each
    missing one (it showed only the first), up to five, and how many more."""
    names = [f"p{number}" for number in range(8)]
    schema = {"type": "object", "required": names}
    content = {"application/json": {"schema": schema}}
    responses = {"200": {"description": "ok", "content": content}}
    document = {"openapi": "3.0.3", "paths": {"/v2/things": {"get": {"responses": responses}}}}
    judge = ContractJudge(Contract([Spec("things.yaml", "3.0", document, {})]))
    for missing in range(1, len(names) + 1):
        exchanges = [  # at most five problems an exchange: the second misses the ones after the fifth
            Exchange(
                Request("GET", "/v2/things"),
                Response(200, JSON, Body("json", {name: 1 for name in names if name not in gone})),
            )
            for gone in (names[:missing], names[5:missing])
        ]
        lines = list(disagreement_lines(_findings(judge, exchanges), 0))
        said = [line for line in lines if line.startswith("        body: expected")]
        assert said == [
            f'        body: expected the schema\'s `required` met; found "{name}" is a required property'
            for name in names[: min(missing, 5)]
        ], missing
        more = [line for line in lines if line.startswith("        ... and")]
        assert more == (
            [f"        ... and {missing - 5} more (the JSON report has each)"] if missing > 5 else []
        )


# The OpenAPI inheritance pattern with a discriminator (as commerce-extensions.yaml's
# CustomFieldAttributes discriminates by `field_type`): each branch takes in its base by allOf, and the
# base's oneOf lists the branches. jsonschema-rs reports an error inside a branch twice.
PETS = {
    "openapi": "3.0.3",
    "info": {"title": "pets", "version": "1"},
    "paths": {
        "/v2/pets": {
            "get": {
                "responses": {
                    "200": {
                        "description": "ok",
                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Pet"}}},
                    }
                }
            }
        }
    },
    "components": {
        "schemas": {
            "Pet": {
                "type": "object",
                "required": ["pet_type"],
                "properties": {"pet_type": {"type": "string"}},
                "oneOf": [{"$ref": "#/components/schemas/Cat"}, {"$ref": "#/components/schemas/Dog"}],
                "discriminator": {"propertyName": "pet_type"},
            },
            "Cat": {
                "allOf": [
                    {"$ref": "#/components/schemas/Pet"},
                    {"type": "object", "properties": {"meows": {"type": "boolean"}}},
                ]
            },
            "Dog": {
                "allOf": [
                    {"$ref": "#/components/schemas/Pet"},
                    {"type": "object", "properties": {"barks": {"type": "boolean"}}},
                ]
            },
        }
    },
}


def test_an_error_the_validator_reaches_twice_is_one_finding() -> None:
    """A discriminator's branch under allOf: the validator says the one error twice; one finding (two
    before)."""
    judge = ContractJudge(Contract([Spec("pets.yaml", "3.0", PETS, {})]))
    answer = Body("json", {"pet_type": "Dog", "barks": "loud"})
    one = Exchange(Request("GET", "/v2/pets"), Response(200, JSON, answer))
    assert [(f.where, f.section, f.found) for f in _findings(judge, [one])] == [
        (
            "body.barks",
            "pets.yaml#/components/schemas/Dog/allOf/1/properties/barks/type",
            '"loud" is not of type "boolean"',
        )
    ]
