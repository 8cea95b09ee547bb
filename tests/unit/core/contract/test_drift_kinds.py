"""Every kind of difference `compare_exchanges` reports meets the spec's judgement
(`proxy.core.contract.drift_tiers.SpecTiers`), none falls through: a table built by a loop over the
fields of `shapes.yaml` (required, optional, `type: [string, 'null']`, `nullable: true`, `anyOf` of
types, `anyOf` of an object or an array, untyped, arrays with and without `minItems`) by the changes a
newer answer can make there (removed, null, another type, another type the schema takes, another
value, a list emptied, an item added or dropped, an item lacking its required field, a field added),
the whole body's type, and the status, a header, a body that is not JSON and the recording's own time.
Each gets the tier and the source it must; the kinds the table meets are all the kinds there are."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from proxy.core.contract.drift_tiers import SpecTiers
from proxy.core.contract.judge import Contract
from proxy.core.drift.compare import KINDS, Difference, compare_exchanges
from proxy.core.model.exchange import Body, Exchange, Headers, Request, Response
from proxy.store.contract_files import contract_of
from tests.unit.core.contract.plans import FIXTURES, JSON
from tests.unit.core.contract.test_drift_tiers import JSON_VALUES, places

SPEC = FIXTURES / "drift" / "shapes.yaml"
SHAPE = "/components/schemas/Shape"
P = f"{SHAPE}/properties"
ITEM = "/components/schemas/Item"
OPERATION = "/paths/~1v2~1shapes~1{shapeID}/get"
ROOT = f"{OPERATION}/responses/200/content/application~1json/schema"
EITHER = "/paths/~1v2~1either~1{shapeID}/get/responses/200/content/application~1json/schema"
TAGGED: Headers = (*JSON, ("ETag", 'W/"1"'))


def shape() -> dict[str, Any]:
    """A shape as the GET answers it, conforming."""
    return {
        "id": "s1",
        "name": "Box",
        "note": "fragile",
        "label": "blue",
        "code": "A1",
        "relationships": {"sku": "r1"},
        "extra": "x",
        "meta": {"tag": "t"},
        "listed": [{"sku": "a"}, {"sku": "b"}],
        "others": [{"sku": "c"}],
    }


@dataclass(frozen=True)
class Field:
    """A field of `Shape` and what its schema says: whether `required` lists it, whether it takes
    null, the keyword that refuses a value of another type (None: the schema says nothing of types),
    a value of another type it takes (None: none), and `minItems` for a list."""

    name: str
    required: bool = False
    nullable: bool = False
    refuses: str | None = "type"
    another: Any = 5  # a value of a type it refuses (where it refuses any)
    accepted: Any = None  # a value of another type it takes
    min_items: bool = False


FIELDS = [
    Field("id", required=True),
    Field("name"),
    Field("note", nullable=True),
    Field("label", nullable=True),
    Field("code", refuses="anyOf", another=[1], accepted=7),
    Field("relationships", refuses="anyOf", another="a string", accepted=[{"sku": "r1"}]),
    Field("extra", nullable=True, refuses=None),
    Field("meta", another="a string"),
    Field("listed", required=True, another="a string", min_items=True),
    Field("others", another="a string"),
]
Expected = tuple[str, str | None]  # the tier, and the pointer of the source (None: no spec decided)


@dataclass(frozen=True)
class Case:
    """One change of a conforming answer, the place its difference is said at, and what it gets."""

    name: str
    where: str
    change: Callable[[Any], Any]  # the newer answer's body from the recorded one's
    expected: Expected
    path: str = "/v2/shapes/s1"
    status: int = 200
    headers: Headers = TAGGED


def at_field(name: str, make: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """A change of `data.NAME` (`make` gets its value, returns the new one, or `DROP`)."""

    def change(body: Any) -> Any:
        body = copy.deepcopy(body)
        value = make(body["data"][name])
        if value is DROP:
            del body["data"][name]
        else:
            body["data"][name] = value
        return body

    return change


DROP = object()


def replaced_by(value: Any) -> Callable[[Any], Any]:
    """The whole body replaced by `value`."""
    return lambda body: copy.deepcopy(value)


def field_cases(field: Field) -> Iterator[Case]:
    """Each change a newer answer can make at one field, with what the spec makes of it."""
    where, place = f"json.data.{field.name}", f"{P}/{field.name}"
    refused: Expected = ("breaking", f"{place}/{field.refuses}") if field.refuses else ("breaking", None)
    yield Case(
        "removed",
        where,
        at_field(field.name, lambda value: DROP),
        ("breaking", f"{SHAPE}/required") if field.required else ("data", place),
    )
    yield Case(
        "null", where, at_field(field.name, lambda value: None), ("data", None) if field.nullable else refused
    )
    yield Case("another type", where, at_field(field.name, lambda value: field.another), refused)
    if field.accepted is not None:  # a change of type the schema takes: lowered to data, said by it
        accepted = field.accepted
        yield Case(
            "a type it takes", where, at_field(field.name, lambda value: accepted), ("data", f"{place}/anyOf")
        )
    if isinstance(shape()[field.name], str):
        yield Case("another value", where, at_field(field.name, lambda value: value + "!"), ("data", None))
    if isinstance(shape()[field.name], list):
        length = f"{where}.length"
        emptied: Expected = ("breaking", f"{place}/minItems") if field.min_items else ("data", None)
        yield Case("emptied", length, at_field(field.name, lambda value: []), emptied)
        yield Case(
            "item added", length, at_field(field.name, lambda value: [*value, {"sku": "z"}]), ("data", None)
        )
        yield Case(
            "item lacking its required field",
            length,
            at_field(field.name, lambda value: [*value, {"note": "no sku"}]),
            ("breaking", f"{ITEM}/required"),
        )
        yield Case(
            "item dropped",
            length,
            at_field(field.name, lambda value: value[1:]),
            ("data", None),
        )


def whole_body_cases() -> Iterator[Case]:
    """The whole body's type changed: refused by an object schema, taken by an `anyOf` of an object
    or an array; a field added where `additionalProperties: false` refuses it and where nothing does."""
    values: tuple[tuple[str, Any], ...] = (
        ("to an array", []),
        ("to a string", "a string"),
        ("to null", None),
    )
    for name, value in values:
        yield Case(f"body {name}", "json", replaced_by(value), ("breaking", f"{ROOT}/type"))
        either: Expected = ("breaking", f"{EITHER}/anyOf")
        if name == "to an array":  # a type the `anyOf` takes
            value, either = [shape()], ("data", f"{EITHER}/anyOf")
        yield Case(f"either {name}", "json", replaced_by(value), either, path="/v2/either/s1")

    def added(where: tuple[str, ...]) -> Callable[[Any], Any]:
        def change(body: Any) -> Any:
            body = copy.deepcopy(body)
            parent = body
            for key in where[:-1]:
                parent = parent[key]
            parent[where[-1]] = 1
            return body

        return change

    yield Case(
        "added, refused",
        "json.data.more",
        added(("data", "more")),
        ("breaking", f"{SHAPE}/additionalProperties"),
    )
    yield Case("added, open", "json.data.meta.more", added(("data", "meta", "more")), ("additive", None))


def exchange_cases() -> Iterator[Case]:
    """What is not the JSON body: the status, a required header gone, a body that is not JSON."""
    yield Case(
        "status not documented",
        "status",
        lambda body: body,
        ("breaking", f"{OPERATION}/responses"),
        status=299,
    )
    yield Case(
        "required header gone",
        "headers.ETag",
        lambda body: body,
        ("breaking", f"{OPERATION}/responses/200/headers/ETag"),
        headers=JSON,
    )
    yield Case(
        "body not JSON",
        "body",
        lambda body: NOT_JSON,
        ("breaking", f"{OPERATION}/responses/200/content/application~1json"),
    )


NOT_JSON = object()


def cases() -> Iterator[Case]:
    for field in FIELDS:
        for case in field_cases(field):
            yield replace(case, name=f"{field.name}: {case.name}")
    yield from whole_body_cases()
    yield from exchange_cases()


CASES = list(cases())


def exchange(
    body: Any, path: str = "/v2/shapes/s1", status: int = 200, headers: Headers = TAGGED
) -> Exchange:
    answer = Body("text", "not JSON {") if body is NOT_JSON else Body("json", body)
    return Exchange(Request("GET", path, headers=JSON), Response(status, headers, answer))


def pair(case: Case) -> tuple[Exchange, Exchange]:
    """The recorded answer (conforming) and the newer one, `case` applied."""
    recorded = {"data": shape()}
    live = exchange(case.change(recorded), case.path, case.status, case.headers)
    return exchange(recorded, case.path), live


@pytest.fixture(scope="module")
def contract() -> Contract:
    return contract_of([SPEC])


def at(found: list[Difference], where: str) -> Difference:
    matching = [item for item in found if item.where == where]
    assert len(matching) == 1, found
    return matching[0]


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_every_kind_of_difference_gets_the_tier_the_spec_gives_it(contract: Contract, case: Case) -> None:
    recorded, live = pair(case)
    item = at(compare_exchanges(recorded, live, tiering=SpecTiers(contract)), case.where)
    name = next(iter(contract.specs))
    tier, pointer = case.expected
    assert (item.tier, item.source) == (tier, None if pointer is None else f"{name}#{pointer}")
    assert at(compare_exchanges(recorded, live), case.where).source is None  # without a spec: none


def test_the_table_meets_every_kind_a_comparison_reports(contract: Contract) -> None:
    """A kind added to the comparison fails here until the table (and so the judgement) meets it."""
    met: set[str] = set()
    for case in CASES:
        recorded, live = pair(case)
        met.update(item.kind for item in compare_exchanges(replace(recorded, recorded_at="then"), live))
    assert met == set(KINDS)


def test_the_recording_own_time_is_no_spec_s_to_judge(contract: Contract) -> None:
    recorded, live = pair(CASES[0])
    found = compare_exchanges(
        replace(recorded, duration_ms=1.0), replace(live, duration_ms=2.0), tiering=SpecTiers(contract)
    )
    assert (at(found, "duration_ms").tier, at(found, "duration_ms").source) == ("volatile", None)


@settings(max_examples=120, deadline=None)
@given(data=st.data())
def test_any_change_anywhere_is_judged_without_losing_a_difference(
    contract: Contract, data: st.DataObject
) -> None:
    """Any place of a shape (the whole body too) set to any JSON value, lists grown or emptied: the
    spec re-tiers a difference only naming its source, and never drops, adds or moves one."""
    body: Any = {"data": shape()}
    for _ in range(data.draw(st.integers(1, 3))):
        where = data.draw(st.sampled_from(list(places(body))))
        value = data.draw(JSON_VALUES)
        if not where:
            body = value
            continue
        parent = body
        for token in where[:-1]:
            parent = parent[token]
        parent[where[-1]] = value
    recorded, live = exchange({"data": shape()}), exchange(body)
    alone = compare_exchanges(recorded, live)
    tiered = compare_exchanges(recorded, live, tiering=SpecTiers(contract))
    assert [(item.where, item.kind, item.recorded, item.live) for item in tiered] == [
        (item.where, item.kind, item.recorded, item.live) for item in alone
    ]
    for before, after in zip(alone, tiered, strict=True):
        assert after.source is not None or after.tier == before.tier
