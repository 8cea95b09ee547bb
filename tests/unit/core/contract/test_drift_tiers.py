"""`verify` and `cassette diff` tier a difference by the published spec where it decides
(`proxy.core.contract.drift_tiers`): drawn as a table of places of a cart (required or optional, nested,
through `$ref`, `allOf`, array items, a decided `oneOf` branch) by kinds of difference (removed, type
changed, null, a value outside the enum), each with the tier and the source it must get."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from proxy.core.contract.drift_tiers import SpecTiers
from proxy.core.contract.judge import Contract
from proxy.core.drift.compare import ABSENT, Difference, compare_exchanges
from proxy.core.model.exchange import Body, Exchange, Request, Response
from proxy.store.contract_files import contract_of
from tests.unit.core.contract.plans import FIXTURES, JSON

SPEC = FIXTURES / "drift" / "carts.yaml"
PATH = "/v2/carts/c1"
S = "/components/schemas"
CART = f"{S}/CartResponse"
PRICE = f"{CART}/properties/meta/properties/display_price"
ITEM = f"{S}/CartItem/allOf/1"


def cart() -> dict[str, Any]:
    """A cart as the GET answers it, conforming."""
    price = {"amount": 100, "currency": "USD", "formatted": "$1.00"}
    return {
        "data": {
            "id": "c1",
            "type": "cart",
            "name": "Cart",
            "description": "a cart",
            "meta": {"display_price": {"with_tax": price, "without_tax": dict(price)}},
            "items": [{"sku": "s1", "note": "gift", "quantity": 1, "unit": "each"}],
            "relationships": {"items": {"data": [{"type": "cart_item", "id": "i1"}]}},
        }
    }


@dataclass(frozen=True)
class Place:
    """A place of the cart and what the spec says of it: the pointer of the `required` list that holds
    it (None: optional), of its declaration, of its `type`, and of its `enum` (None: none)."""

    tokens: tuple[str | int, ...]
    required: str | None
    declared: str
    type: str
    enum: str | None = None
    nullable: bool = False


PLACES = [
    Place(("data", "id"), f"{CART}/required", f"{CART}/properties/id", f"{CART}/properties/id/type"),
    Place(
        ("data", "type"),
        f"{CART}/required",
        f"{CART}/properties/type",
        f"{CART}/properties/type/type",
        f"{CART}/properties/type/enum",
    ),
    Place(("data", "name"), None, f"{CART}/properties/name", f"{CART}/properties/name/type"),
    Place(
        ("data", "description"),
        None,
        f"{CART}/properties/description",
        f"{CART}/properties/description/type",
        nullable=True,
    ),
    # nested objects, then through a $ref
    Place(
        ("data", "meta", "display_price", "with_tax"),
        f"{PRICE}/required",
        f"{PRICE}/properties/with_tax",
        f"{S}/FormattedPriceData/type",
    ),
    Place(
        ("data", "meta", "display_price", "with_tax", "amount"),
        f"{S}/FormattedPriceData/required",
        f"{S}/FormattedPriceData/properties/amount",
        f"{S}/FormattedPriceData/properties/amount/type",
    ),
    Place(
        ("data", "meta", "display_price", "without_tax", "formatted"),
        None,
        f"{S}/FormattedPriceData/properties/formatted",
        f"{S}/FormattedPriceData/properties/formatted/type",
    ),
    # an array's items, an allOf of a $ref and an inline branch
    Place(
        ("data", "items", 0, "quantity"),
        f"{ITEM}/required",
        f"{ITEM}/properties/quantity",
        f"{ITEM}/properties/quantity/type",
    ),
    Place(
        ("data", "items", 0, "unit"),
        None,
        f"{ITEM}/properties/unit",
        f"{ITEM}/properties/unit/type",
        f"{ITEM}/properties/unit/enum",
    ),
    Place(
        ("data", "items", 0, "sku"),
        f"{S}/CartItemBase/required",
        f"{S}/CartItemBase/properties/sku",
        f"{S}/CartItemBase/properties/sku/type",
    ),
    Place(
        ("data", "items", 0, "note"),
        None,
        f"{S}/CartItemBase/properties/note",
        f"{S}/CartItemBase/properties/note/type",
    ),
    # the branch of a oneOf the recorded value takes (the newer one fits none: the oneOf decides nothing)
    Place(
        ("data", "relationships", "items", "data", 0, "id"),
        f"{S}/RelationshipItem/required",
        f"{S}/RelationshipItem/properties/id",
        f"{S}/RelationshipItem/properties/id/type",
    ),
    Place(
        ("data", "relationships", "items", "data", 0, "type"),
        f"{S}/RelationshipItem/required",
        f"{S}/RelationshipItem/properties/type",
        f"{S}/RelationshipItem/properties/type/type",
        f"{S}/RelationshipItem/properties/type/enum",
    ),
]
KINDS = ("removed", "type", "null", "enum")


def where_of(tokens: tuple[str | int, ...]) -> str:
    return "json" + "".join(f"[{token}]" if isinstance(token, int) else f".{token}" for token in tokens)


def changed(document: Any, tokens: tuple[str | int, ...], kind: str) -> Any:
    """The document with the value at `tokens` removed, of another type, null, or outside its enum."""
    copied = copy.deepcopy(document)
    parent = copied
    for token in tokens[:-1]:
        parent = parent[token]
    last = tokens[-1]
    value = parent[last]
    if kind == "removed":
        del parent[last]
    elif kind == "null":
        parent[last] = None
    elif kind == "enum":
        parent[last] = "other"
    else:
        parent[last] = "a string" if isinstance(value, int | float | dict) else 5
    return copied


def exchange(body: Any, status: int = 200) -> Exchange:
    return Exchange(Request("GET", PATH, headers=JSON), Response(status, JSON, Body("json", body)))


@pytest.fixture(scope="module")
def contract() -> Contract:
    return contract_of([SPEC])


def spec_name(contract: Contract) -> str:
    return next(iter(contract.specs))


def expected(place: Place, kind: str, name: str) -> tuple[str, str | None]:
    """The tier and source the spec gives this difference."""
    if kind == "removed":
        if place.required is not None:
            return "breaking", f"{name}#{place.required}"
        return "data", f"{name}#{place.declared}"
    if kind == "null" and place.nullable:
        return "data", None  # the spec allows null: the comparison's tier, said without a source
    if kind == "enum":
        return "breaking", f"{name}#{place.enum}"
    return "breaking", f"{name}#{place.type}"


def cases() -> Iterator[tuple[Place, str]]:
    for place in PLACES:
        for kind in KINDS:
            if kind != "enum" or place.enum is not None:
                yield place, kind


def at(found: list[Difference], where: str) -> Difference:
    matching = [item for item in found if item.where == where]
    assert len(matching) == 1, found
    return matching[0]


@pytest.mark.parametrize(
    ("place", "kind"), list(cases()), ids=lambda v: v if isinstance(v, str) else where_of(v.tokens)
)
def test_a_difference_the_spec_decides_gets_its_tier_and_source(
    contract: Contract, place: Place, kind: str
) -> None:
    recorded = exchange(cart())
    live = exchange(changed(cart(), place.tokens, kind))
    found = compare_exchanges(recorded, live, tiering=SpecTiers(contract))
    item = at(found, where_of(place.tokens))
    assert (item.tier, item.source) == expected(place, kind, spec_name(contract))
    # without a spec, nothing changes: the comparison's tier, no source
    alone = at(compare_exchanges(recorded, live), where_of(place.tokens))
    assert alone.source is None
    assert alone.tier == ("breaking" if kind in ("removed", "type") else "data")


def test_a_status_the_operation_does_not_document_is_breaking_with_its_source(contract: Contract) -> None:
    name = spec_name(contract)
    tiering = SpecTiers(contract)
    found = compare_exchanges(exchange(cart()), exchange(cart(), 299), tiering=tiering)
    assert (at(found, "status").tier, at(found, "status").source) == (
        "breaking",
        f"{name}#/paths/~1v2~1carts~1{{cartID}}/get/responses",
    )
    documented = at(compare_exchanges(exchange(cart()), exchange(cart(), 404), tiering=tiering), "status")
    assert (documented.tier, documented.source) == ("breaking", None)  # the class changed: no spec needed


def test_a_field_added_where_the_schema_refuses_more_is_breaking(contract: Contract) -> None:
    live = cart()
    live["data"]["relationships"]["items"]["data"][0]["extra"] = 1
    live["data"]["extra"] = 1
    found = compare_exchanges(exchange(cart()), exchange(live), tiering=SpecTiers(contract))
    refused = at(found, "json.data.relationships.items.data[0].extra")
    assert (refused.tier, refused.source) == (
        "breaking",
        f"{spec_name(contract)}#{S}/RelationshipItem/additionalProperties",
    )
    allowed = at(found, "json.data.extra")
    assert (allowed.tier, allowed.source) == ("additive", None)


def test_a_value_moved_to_another_branch_the_spec_allows_is_not_breaking(contract: Contract) -> None:
    """The items relationship without its data fits the oneOf's other branch: a move the spec
    allows, data, said by the oneOf."""
    live = cart()
    del live["data"]["relationships"]["items"]["data"]
    item = at(
        compare_exchanges(exchange(cart()), exchange(live), tiering=SpecTiers(contract)),
        "json.data.relationships.items.data",
    )
    (name,) = contract.specs
    oneof = f"{CART}/properties/relationships/properties/items/oneOf"
    assert (item.tier, item.source) == ("data", f"{name}#{oneof}")


def test_the_documented_rules_win_and_an_operation_no_spec_knows_is_untouched(contract: Contract) -> None:
    live = exchange(changed(cart(), ("data", "name"), "removed"))
    ruled = SpecTiers(contract, lambda method, path: True)
    assert at(compare_exchanges(exchange(cart()), live, tiering=ruled), "json.data.name").source is None
    elsewhere = Exchange(Request("GET", "/v2/other", headers=JSON), live.response)
    recorded = replace(elsewhere, response=exchange(cart()).response)
    item = at(compare_exchanges(recorded, elsewhere, tiering=SpecTiers(contract)), "json.data.name")
    assert (item.tier, item.source) == ("breaking", None)


def test_the_overlay_that_shaped_the_place_is_named(contract: Contract) -> None:
    (spec,) = contract.specs.values()
    overlaid = Contract([replace(spec, overlaid={f"{CART}/required": "overrides/carts.yaml"})])
    live = exchange(changed(cart(), ("data", "id"), "removed"))
    item = at(compare_exchanges(exchange(cart()), live, tiering=SpecTiers(overlaid)), "json.data.id")
    assert item.source == f"{spec.name}#{CART}/required (overlay overrides/carts.yaml)"
    assert item.live is ABSENT


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["a", "b.c", "d[0]", "id"]), inner, max_size=3)
    ),
    max_leaves=8,
)


def places(document: Any, tokens: tuple[str | int, ...] = ()) -> Iterator[tuple[str | int, ...]]:
    yield tokens
    if isinstance(document, dict):
        for key, value in document.items():
            yield from places(value, (*tokens, key))
    elif isinstance(document, list):
        for index, value in enumerate(document):
            yield from places(value, (*tokens, index))


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_any_change_anywhere_keeps_every_difference_and_gives_a_source_only_with_a_spec_tier(
    contract: Contract, data: st.DataObject
) -> None:
    """However the newer answer changed (any place set to any value, keys with dots and brackets),
    the spec never drops, adds or moves a difference: it only re-tiers one, naming its source."""
    live = cart()
    for _ in range(data.draw(st.integers(1, 3))):
        where = data.draw(st.sampled_from([place for place in places(live) if place]))
        parent = live
        for token in where[:-1]:
            parent = parent[token]
        parent[where[-1]] = data.draw(JSON_VALUES)
    recorded, changed_live = exchange(cart()), exchange(live)
    alone = compare_exchanges(recorded, changed_live)
    tiered = compare_exchanges(recorded, changed_live, tiering=SpecTiers(contract))
    assert [(item.where, item.recorded, item.live) for item in tiered] == [
        (item.where, item.recorded, item.live) for item in alone
    ]
    for before, after in zip(alone, tiered, strict=True):
        assert after.source is not None or after.tier == before.tier
