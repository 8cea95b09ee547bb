"""A value that moved to another `oneOf`/`anyOf` branch the spec allows is not breaking
(`proxy.core.contract.drift_tiers._Places._moved`): a table built by a loop over the composed shapes
of `branches.yaml` (an anyOf of an object or an array relationship, a oneOf under a discriminator, a
oneOf without one, a oneOf whose branches differ above the changed place) by moves the spec allows and
moves it refuses. Every difference of each case gets the tier and source it must."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from proxy.core.contract.drift_tiers import SpecTiers
from proxy.core.contract.judge import Contract
from proxy.core.drift.compare import compare_exchanges
from proxy.core.model.exchange import Body, Exchange, Request, Response
from proxy.store.contract_files import contract_of
from tests.unit.core.contract.plans import FIXTURES, JSON

SPEC = FIXTURES / "drift" / "branches.yaml"
S = "/components/schemas"
Expected = tuple[str, str | None]  # the tier, and the pointer of its source (None: no spec decided)


@dataclass(frozen=True)
class Shape:
    """A composed field of `Branched`: its recorded value, the keyword that composes it (its place),
    values of another branch it takes (each with the differences it makes, by their place below the
    field, and how the comparison alone tiers them), and values it refuses."""

    field: str
    recorded: Any
    composing: str
    allowed: list[tuple[Any, dict[str, str]]]
    refused: list[tuple[Any, dict[str, str]]]


ACCESS = {"type": "access", "tag": "t"}
SINGLE = {"data": {"id": "p1", "type": "option"}}
SHAPES = [
    Shape(
        "relationship",
        SINGLE,
        f"{S}/Relationship/anyOf",
        [({"data": [{"id": "p1", "type": "option"}]}, {".data": "breaking"})],
        [({"data": "p1"}, {".data": "breaking"}), ({"data": [{"id": "p1"}]}, {".data": "breaking"})],
    ),
    Shape(
        "tagged",
        ACCESS,
        f"{S}/FeatureConfiguration/discriminator",
        [
            (
                {"type": "promotion", "promotions": []},
                {".type": "data", ".tag": "breaking", ".promotions": "additive"},
            )
        ],
        [
            ({"type": "promotion"}, {".type": "data", ".tag": "breaking"}),
            ({"type": "other"}, {".type": "breaking", ".tag": "breaking"}),
            ({"type": "access"}, {".tag": "breaking"}),
        ],
    ),
    Shape(
        "untagged",
        ACCESS,
        f"{S}/Branched/properties/untagged/oneOf",
        [
            (
                {"type": "promotion", "promotions": ["a"]},
                {".type": "data", ".tag": "breaking", ".promotions": "additive"},
            )
        ],
        [
            (
                {"type": "promotion", "promotions": "a"},
                {".type": "breaking", ".tag": "breaking", ".promotions": "additive"},
            )
        ],
    ),
    Shape(
        "holder",
        {"inner": {"x": "a"}},
        f"{S}/Branched/properties/holder/oneOf",
        [({"other": 1}, {".inner": "breaking", ".other": "additive"})],
        [
            ({"inner": {}}, {".inner.x": "breaking"}),
            ({"other": "1"}, {".inner": "breaking", ".other": "additive"}),
        ],
    ),
]


@dataclass(frozen=True)
class Case:
    name: str
    field: str
    recorded: Any
    live: Any
    expected: dict[str, Expected]  # every difference, by its place


def cases() -> Iterator[Case]:
    """Each shape's moves: one the spec allows lowers what the comparison says breaks to data, said by
    the composing keyword; one it refuses leaves every tier as the comparison (or the spec) says."""
    for shape in SHAPES:
        for index, (value, made) in enumerate(shape.allowed):
            expected: dict[str, Expected] = {
                where: ("data", shape.composing) if tier == "breaking" else (tier, None)
                for where, tier in made.items()
            }
            yield Case(f"{shape.field}: allowed {index}", shape.field, shape.recorded, value, expected)
        for index, (value, made) in enumerate(shape.refused):
            refused: dict[str, Expected] = {where: (tier, None) for where, tier in made.items()}
            yield Case(f"{shape.field}: refused {index}", shape.field, shape.recorded, value, refused)


CASES = list(cases())


def exchange(field: str, value: Any) -> Exchange:
    return Exchange(
        Request("GET", "/v2/branches/b1"), Response(200, JSON, Body("json", {"data": {field: value}}))
    )


@pytest.fixture(scope="module")
def contract() -> Contract:
    return contract_of([SPEC])


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_a_move_to_another_branch_is_data_only_where_the_spec_allows_it(
    contract: Contract, case: Case
) -> None:
    recorded, live = exchange(case.field, case.recorded), exchange(case.field, case.live)
    assert contract.judge(recorded, contract.operations("GET", "/v2/branches/b1")[0]) == []
    allowed = not contract.judge(live, contract.operations("GET", "/v2/branches/b1")[0])
    assert allowed == ("allowed" in case.name)  # the table's word agrees with the validator's
    found = compare_exchanges(recorded, live, tiering=SpecTiers(contract))
    name = next(iter(contract.specs))
    prefix = f"json.data.{case.field}"
    got: dict[str, tuple[str, str | None]] = {
        item.where.removeprefix(prefix): (item.tier, item.source) for item in found
    }
    want = {
        where: (tier, None if pointer is None else f"{name}#{pointer}")
        for where, (tier, pointer) in case.expected.items()
    }
    for where, (tier, source) in want.items():
        if tier == "breaking" and source is None:  # a refused move may name the keyword it breaks
            assert got[where][0] == "breaking", where
            got[where] = (tier, None)
    assert got == want


def test_a_value_that_stays_in_its_branch_keeps_the_comparison_s_tier(contract: Contract) -> None:
    """A field no schema declares gone, the value still in the branch it took: no move, and the spec
    says nothing of the field, so the comparison's tier stands."""
    recorded = exchange("untagged", {**ACCESS, "note": "n"})
    found = compare_exchanges(recorded, exchange("untagged", ACCESS), tiering=SpecTiers(contract))
    assert [(item.where, item.tier, item.source) for item in found] == [
        ("json.data.untagged.note", "breaking", None)
    ]
