"""Two specs knowing the same operation (shopper.yaml repeats cart_checkout.yaml's): the exchange is judged
against both, a disagreement is reported only when both disagree, from the first spec by file name, and
the answer is the same whatever order the specs (and the overlay) are named in."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest

from proxy.app.contract_inputs import contract_judge
from proxy.core.contract.findings import ContractJudge
from proxy.core.model.exchange import Body, Exchange, Request, Response
from proxy.store.contract_files import source_name
from tests.unit.core.contract.plans import FIXTURES, JSON

HERE = FIXTURES / "shared_operation"
CARTS = HERE / "specs" / "cart_checkout.yaml"
SHOPPER = HERE / "specs" / "shopper.yaml"
CORRECTIONS = HERE / "overrides" / "cart_checkout_service_corrections.yaml"
LONG = "a cart named at length"  # longer than cart_checkout.yaml's maxLength 8


def _cart(**fields: Any) -> dict[str, Any]:
    return {"data": {"id": "c1", "type": "cart", **fields}}


# (what, status, body, findings as (rule, where, section) without the overlay, and with it)
CartCase = tuple[str, int, Any, list[tuple[str, str, str]], list[tuple[str, str, str]]]
CARTS_NAME = source_name(CARTS)
NAME_BOUND = (
    "contract.response.schema",
    "body.data.name",
    f"{CARTS_NAME}#/components/schemas/CartResponse/properties/data/properties/name/maxLength",
)
TYPE = (
    "contract.response.schema",
    "body.data.type",
    f"{CARTS_NAME}#/components/schemas/CartResponse/properties/data/properties/type/enum",
)
CASES: list[CartCase] = [
    ("both agree", 200, _cart(name="Mine", description="d"), [], []),
    ("only cart_checkout agrees", 200, _cart(name="Mine"), [], []),
    ("only shopper agrees", 200, _cart(name=LONG, description="d"), [], []),
    (
        "neither agrees; the overlay corrects cart_checkout",
        200,
        _cart(name=LONG),
        [NAME_BOUND],
        [],
    ),
    (
        "neither agrees, even corrected",
        200,
        {"data": {"id": "c1", "type": "order", "name": "Mine"}},
        [TYPE],
        [TYPE],
    ),
    ("a status only cart_checkout documents", 404, {"errors": []}, [], []),
    (
        "a status neither documents",
        500,
        {"errors": []},
        [
            (
                "contract.response.status",
                "status",
                f"{CARTS_NAME}#/paths/~1v2~1carts~1{{cartID}}/get/responses",
            )
        ],
        [
            (
                "contract.response.status",
                "status",
                f"{CARTS_NAME}#/paths/~1v2~1carts~1{{cartID}}/get/responses",
            )
        ],
    ),
]


def _judge(specs: list[Path], overlays: list[Path]) -> ContractJudge:
    judge = contract_judge(specs, overlays)
    assert judge is not None
    return judge


def _findings(judge: ContractJudge, status: int, body: Any) -> list[tuple[str, str, str]]:
    exchange = Exchange(
        Request("GET", "/v2/carts/c1", headers=JSON), Response(status, JSON, Body("json", body))
    )
    verdict = judge.verdict(exchange, 0, False, lambda rule, severity, method, path: severity, None)
    assert verdict.known
    return [(finding.rule, finding.where, finding.section) for finding in verdict.findings]


ORDERS = [list(order) for order in itertools.permutations([CARTS, SHOPPER])] + [[HERE / "specs"]]


@pytest.mark.parametrize("specs", ORDERS, ids=lambda specs: "+".join(path.stem for path in specs))
@pytest.mark.parametrize("corrected", [False, True], ids=["plain", "overlaid"])
def test_every_order_of_the_specs_gives_the_same_findings(specs: list[Path], corrected: bool) -> None:
    judge = _judge(specs, [CORRECTIONS] if corrected else [])
    for what, status, body, plain, overlaid in CASES:
        assert _findings(judge, status, body) == (overlaid if corrected else plain), what


@pytest.mark.parametrize("specs", ORDERS, ids=lambda specs: "+".join(path.stem for path in specs))
def test_every_spec_that_knows_the_operation_counts_it_exercised(specs: list[Path]) -> None:
    judge = _judge(specs, [])
    _findings(judge, 200, _cart(name="Mine"))
    counted = {(one.spec, one.method, one.template): one.exchanges for one in judge.coverage.ordered()}
    assert counted == {
        (CARTS_NAME, "GET", "/v2/carts/{cartID}"): 1,
        (source_name(SHOPPER), "GET", "/v2/carts/{id}"): 1,
        (source_name(SHOPPER), "GET", "/v2/carts/{id}/items"): 0,
    }
