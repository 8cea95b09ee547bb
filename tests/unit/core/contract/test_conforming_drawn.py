"""Documents drawn from the fixture's plan schema, every construct in its conforming variety (null or an
object for each nullable, either discriminated branch, either side of the discount's oneOf, fields the
schema does not close added, timestamps, uuids and links of every shape), get no contract finding."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from proxy.core.contract.findings import ContractJudge
from tests.unit.core.contract.plans import PLAN_PATH, exchange, judge_of, plan_request, verdict

JUDGE: ContractJudge = judge_of()
EXTRA = st.dictionaries(
    st.text(min_size=1, max_size=5).map(lambda key: "x_" + key), st.integers(), max_size=2
)
UUIDS = st.uuids().map(str)
TIMESTAMPS = st.datetimes(min_value=datetime(1000, 1, 1)).map(
    lambda moment: moment.strftime("%Y-%m-%dT%H:%M:%S") + "Z"
)
LINKS = st.one_of(st.none(), st.from_regex(r"https://[a-z]{1,8}\.test(/[a-z0-9]{1,6}){0,3}", fullmatch=True))
CONFIGURATIONS = st.one_of(
    st.fixed_dictionaries({"type": st.just("access"), "tag": st.from_regex(r"[a-z0-9_-]+", fullmatch=True)}),
    st.fixed_dictionaries({"type": st.just("usage"), "default_value": st.integers()}),
)
DISCOUNTS = st.one_of(
    st.fixed_dictionaries({"amount": st.integers()}),
    st.fixed_dictionaries({"percentage": st.floats(allow_nan=False, allow_infinity=False)}),
)
PRICE_UNITS = st.one_of(
    st.none(),
    st.fixed_dictionaries({"unit": st.sampled_from(["day", "month"]), "amount": st.integers(min_value=1)}),
)
TRIALS = st.one_of(st.none(), st.fixed_dictionaries({"days": st.integers()}, optional={"note": st.text()}))


@st.composite
def plans(draw: st.DrawFn) -> dict[str, Any]:
    attributes: dict[str, Any] = {
        "name": draw(st.text(min_size=3, max_size=40)),
        "price_units": draw(PRICE_UNITS),
        "configuration": draw(CONFIGURATIONS),
        **draw(EXTRA),
    }
    for name, values in (("trial", TRIALS), ("discount", DISCOUNTS)):
        if draw(st.booleans()):
            attributes[name] = draw(values)
    timestamps = {"created_at": draw(TIMESTAMPS), "updated_at": draw(TIMESTAMPS)}
    data = {
        "id": draw(UUIDS),
        "type": "subscription_plan",
        "meta": {"timestamps": timestamps, **draw(EXTRA)},
        "attributes": attributes,
    }
    document: dict[str, Any] = {"data": data}
    if draw(st.booleans()):
        document["links"] = {"self": draw(LINKS)}
    return document


@settings(max_examples=60, deadline=None)
@given(plans())
def test_a_drawn_conforming_plan_gets_no_finding(document: dict[str, Any]) -> None:
    assert verdict(JUDGE, exchange(body=document)).findings == []
    path = PLAN_PATH.replace(PLAN_PATH.rsplit("/", 1)[1], str(uuid.UUID(document["data"]["id"])))
    assert verdict(JUDGE, exchange(path=path, body=document)).findings == []
    sent = plan_request()
    sent["data"]["attributes"] = {**document["data"]["attributes"], "external_ref": "e"}
    created = exchange("POST", "/v2/subscriptions/plans", 201, body=document, sent=sent)
    assert verdict(JUDGE, created).findings == []
