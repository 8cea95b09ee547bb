"""The contract fixtures of tests/fixtures/contract/ and exchanges of their operations, shared by the
contract's tests."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from proxy.core.contract.findings import ContractJudge, Verdict
from proxy.core.model.exchange import Body, Exchange, Headers, Request, Response
from proxy.core.rules.config import RuleConfig
from proxy.store.contract_files import Overlaying, contract_of

FIXTURES = Path(__file__).parents[3] / "fixtures" / "contract"
SPEC = FIXTURES / "subscriptions.yaml"
PLAN_ID = "3f8e2a4c-9b1d-4c6e-8f0a-1b2c3d4e5f60"
PLAN_PATH = f"/v2/subscriptions/plans/{PLAN_ID}"
JSON: Headers = (("Content-Type", "application/json"),)
GOT: Headers = (*JSON, ("ETag", 'W/"1"'))


def plan() -> dict[str, Any]:
    """A plan as the GET answers it, conforming."""
    return {
        "data": {
            "id": PLAN_ID,
            "type": "subscription_plan",
            "meta": {
                "timestamps": {"created_at": "2024-01-01T00:00:00Z", "updated_at": "2024-01-02T00:00:00Z"}
            },
            "attributes": {
                "name": "Gold",
                "price_units": None,
                "trial": None,
                "configuration": {"type": "access", "tag": "gold"},
                "discount": {"amount": 10},
            },
        },
        "links": {"self": f"https://useast.api.elasticpath.com{PLAN_PATH}"},
    }


def plan_request() -> dict[str, Any]:
    """A create request as a client sends it, conforming (no id nor meta: those are readOnly)."""
    answered = copy.deepcopy(plan())["data"]
    del answered["id"], answered["meta"]
    answered["attributes"]["external_ref"] = "erp-1"
    return {"data": answered}


def exchange(
    method: str = "GET",
    path: str = PLAN_PATH,
    status: int = 200,
    body: Any = None,
    headers: Headers = GOT,
    sent: Any = None,
) -> Exchange:
    """An exchange of the fixture's operations (the plan read, by default, answering `plan()`)."""
    request_body = Body("json", sent) if sent is not None else Body()
    answer = Body("json", plan() if body is None else body)
    return Exchange(Request(method, path, headers=JSON, body=request_body), Response(status, headers, answer))


def judge_of(*paths: Path, overlay: Overlaying | None = None) -> ContractJudge:
    return ContractJudge(contract_of(paths or (SPEC,), overlay))


def verdict(judge: ContractJudge, one: Exchange, documented: bool = False) -> Verdict:
    return judge.verdict(one, 0, documented, RuleConfig().severity, None)


def seen(judge: ContractJudge, one: Exchange) -> list[tuple[str, str, str]]:
    """Each finding as (rule, where, section)."""
    return [(finding.rule, finding.where, finding.section) for finding in verdict(judge, one).findings]
