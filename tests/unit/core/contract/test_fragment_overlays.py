"""An overlay corrects a schema defined in a fragment (a file only a cross-file `$ref` reaches) when it
names that file (`x-applies-to:` of a merge correction, `extends:` of an Overlay document): both kinds
apply, in OpenAPI 3.0 and 3.1, named by path or by file name, and a finding about the corrected schema
names the fragment's pointer and the overlay. A name that fits no file, or several, is one line.

Modelled on cart_checkout.yaml (elasticpath/composable-frontend packages/sdks/specs): `GET
/v2/carts/{cartID}` answers a CartResponse whose `data` is a cart with a uuid `id`, `type: cart` and a
`name`; here the cart schemas live in a fragment, `schemas/cart.yaml`, as split specs keep them.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest
import yaml

from proxy.app.contract_inputs import contract_judge
from proxy.core.contract.overlay_refs import HARMLESS, check_beside_refs
from proxy.core.model.exchange import Body, Exchange, Request, Response
from proxy.core.rules.config import RuleConfig
from proxy.errors import ContractError

FRAGMENT = {
    "CartResponse": {
        "type": "object",
        "required": ["data"],
        "properties": {"data": {"$ref": "#/Cart"}},
    },
    "Cart": {
        "type": "object",
        "required": ["id", "type", "name"],
        "properties": {
            "id": {"type": "string", "format": "uuid"},
            "type": {"type": "string", "enum": ["cart"]},
            "name": {"type": "string"},
        },
    },
}


def _spec(version: str) -> dict[str, Any]:
    answer = {"content": {"application/json": {"schema": {"$ref": "schemas/cart.yaml#/CartResponse"}}}}
    return {
        "openapi": version,
        "info": {"title": "carts", "version": "1"},
        "paths": {"/v2/carts/{cartID}": {"get": {"responses": {"200": {"description": "ok", **answer}}}}},
    }


# The service leaves a new cart's name null where the spec says a string; each overlay says it may be.
NULLABLE = {"nullable": True}
SHORT = {"maxLength": 4}  # an overlay that tightens: what breaks it is a finding naming the overlay
KINDS = {
    "merge": lambda name, change: {"x-applies-to": name, "Cart": {"properties": {"name": change}}},
    "overlay": lambda name, change: {
        "overlay": "1.0.0",
        "info": {"title": "a new cart has no name yet", "version": "1.0.0"},
        "extends": name,
        "actions": [{"target": "$.Cart.properties.name", "update": change}],
    },
}
# A merge correction's root is an OpenAPI document's; a fragment's root is not, so its keys are its own.
CASES = list(itertools.product(KINDS, ("3.0.3", "3.1.0"), ("schemas/cart.yaml", "cart.yaml")))


def _exchange(name: Any) -> Exchange:
    cart = {"id": "3f8e2a4c-9b1d-4c6e-8f0a-000000000001", "type": "cart", "name": name}
    return Exchange(Request("GET", "/v2/carts/3f8e2a4c"), Response(200, (), Body("json", {"data": cart})))


def _write(folder: Path, version: str, overlay: dict[str, Any] | None, fragments: tuple[str, ...]) -> None:
    (folder / "specs").mkdir()
    (folder / "specs" / "carts.yaml").write_text(yaml.safe_dump(_spec(version)))
    for fragment in fragments:
        (folder / "specs" / fragment).parent.mkdir(parents=True, exist_ok=True)
        (folder / "specs" / fragment).write_text(yaml.safe_dump(FRAGMENT))
    if overlay is not None:
        (folder / "fix.yaml").write_text(yaml.safe_dump(overlay))


def _findings(overlays: list[Path], name: Any) -> list[tuple[str, str]]:
    judge = contract_judge([Path("specs")], overlays)
    assert judge is not None
    verdict = judge.verdict(_exchange(name), 0, False, RuleConfig().severity, None)
    return [(finding.rule, finding.section) for finding in verdict.findings]


@pytest.mark.parametrize(("kind", "version", "named"), CASES)
def test_an_overlay_naming_a_fragment_corrects_its_schema(
    kind: str, version: str, named: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    _write(tmp_path, version, KINDS[kind](named, NULLABLE), ("schemas/cart.yaml",))
    at = "specs/schemas/cart.yaml#/Cart/properties/name/type"
    assert _findings([], None) == [("contract.response.schema", at)]  # the spec alone: a finding
    assert _findings([Path("fix.yaml")], None) == []  # corrected in the fragment
    assert _findings([Path("fix.yaml")], "Weekly shop") == []  # and what conformed still does


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_finding_in_a_corrected_fragment_names_the_overlay(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The layer: the fragment's file and pointer, and the overlay that shaped that place."""
    monkeypatch.chdir(tmp_path)
    _write(tmp_path, "3.0.3", KINDS[kind]("schemas/cart.yaml", SHORT), ("schemas/cart.yaml",))
    at = "specs/schemas/cart.yaml#/Cart/properties/name/maxLength (overlay fix.yaml)"
    assert _findings([Path("fix.yaml")], "Weekly shop") == [("contract.response.schema", at)]
    assert _findings([Path("fix.yaml")], "Shop") == []


@pytest.mark.parametrize(
    ("named", "fragments", "problem"),
    [
        (
            "schemas/orders.yaml",
            ("schemas/cart.yaml",),
            "'schemas/orders.yaml' names no spec loaded (specs: specs/carts.yaml; files a $ref reaches: "
            "specs/schemas/cart.yaml)",
        ),
        (
            "cart.yaml",
            ("schemas/cart.yaml", "old/cart.yaml"),
            "'cart.yaml' fits more than one file a $ref reaches (specs/old/cart.yaml, "
            "specs/schemas/cart.yaml): name it by its path",
        ),
    ],
)
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_fragment_named_wrongly_is_one_line(
    kind: str,
    named: str,
    fragments: tuple[str, ...],
    problem: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    _write(tmp_path, "3.1.0", KINDS[kind](named, NULLABLE), fragments)
    if len(fragments) > 1:  # the second fragment reached too, from the spec's components
        spec = _spec("3.1.0") | {"components": {"schemas": {"Old": {"$ref": "old/cart.yaml#/Cart"}}}}
        (tmp_path / "specs" / "carts.yaml").write_text(yaml.safe_dump(spec))
    key = "#/x-applies-to" if kind == "merge" else "#/extends"
    with pytest.raises(ContractError) as caught:
        contract_judge([Path("specs")], [Path("fix.yaml")])
    assert str(caught.value) == f"fix.yaml: {key}: {problem}"


# Aimed at the fragment's schema through the spec that `$ref`s it: in 3.0 that lands beside the `$ref`,
# which 3.0 ignores, so the overlay would change nothing.
THROUGH_THE_SPEC = {
    "merge": {
        "components": {"schemas": {"Cart": {"properties": {"name": NULLABLE}}}},
    },
    "overlay": {
        "overlay": "1.0.0",
        "info": {"title": "a new cart has no name yet", "version": "1.0.0"},
        "extends": "carts.yaml",
        "actions": [{"target": "$.components.schemas.Cart", "update": {"required": ["id"]}}],
    },
}


@pytest.mark.parametrize("kind", sorted(THROUGH_THE_SPEC))
def test_an_overlay_beside_a_30_ref_says_which_file_to_name(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    _write(tmp_path, "3.0.3", None, ("schemas/cart.yaml",))
    spec = _spec("3.0.3") | {"components": {"schemas": {"Cart": {"$ref": "schemas/cart.yaml#/Cart"}}}}
    (tmp_path / "specs" / "carts.yaml").write_text(yaml.safe_dump(spec))
    (tmp_path / "carts_fix.yaml").write_text(yaml.safe_dump(THROUGH_THE_SPEC[kind]))
    with pytest.raises(ContractError) as caught:
        contract_judge([Path("specs")], [Path("carts_fix.yaml")])
    place = "properties" if kind == "merge" else "required"
    assert str(caught.value) == (
        f"carts_fix.yaml: specs/carts.yaml#/components/schemas/Cart/{place}: sits beside $ref "
        "'schemas/cart.yaml#/Cart', which OpenAPI 3.0 ignores: correct the schema it leads to "
        "(specs/schemas/cart.yaml#/Cart), naming specs/schemas/cart.yaml with extends or x-applies-to"
    )


def test_nullable_beside_a_30_ref_is_an_overlay_that_applies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`nullable` beside a 3.0 `$ref` is honoured (published specs mean it), so it is no error."""
    monkeypatch.chdir(tmp_path)
    _write(tmp_path, "3.0.3", None, ("schemas/cart.yaml",))
    fix = {"components": {"schemas": {"Cart": NULLABLE}}}
    spec = _spec("3.0.3") | {"components": {"schemas": {"Cart": {"$ref": "schemas/cart.yaml#/Cart"}}}}
    (tmp_path / "specs" / "carts.yaml").write_text(yaml.safe_dump(spec))
    (tmp_path / "carts_fix.yaml").write_text(yaml.safe_dump(fix))
    assert contract_judge([Path("specs")], [Path("carts_fix.yaml")]) is not None


KEYWORDS = ["required", "properties", "type", "enum", "additionalProperties", "format", "allOf", "items"]


@pytest.mark.parametrize(
    ("key", "version", "below"),
    list(
        itertools.product([*KEYWORDS, *sorted(HARMLESS - {"$ref"}), "x-note"], ("3.0", "3.1"), (False, True))
    ),
)
def test_only_a_30_keyword_beside_a_ref_that_would_be_ignored_is_refused(
    key: str, version: str, below: bool
) -> None:
    """Any place an overlay wrote at or below (`below`) a sibling of a `$ref` in a 3.0 document, unless
    3.0 keeps it (`nullable`) or it judges nothing (an annotation)."""
    document = {"components": {"schemas": {"Cart": {"$ref": "schemas/cart.yaml#/Cart", key: {"a": 1}}}}}
    written = f"/components/schemas/Cart/{key}" + ("/a" if below else "")
    if version == "3.0" and key in KEYWORDS:
        with pytest.raises(ContractError) as caught:
            check_beside_refs("specs/carts.yaml", version, document, {written: "fix.yaml"})
        assert str(caught.value).startswith(
            f"fix.yaml: specs/carts.yaml#/components/schemas/Cart/{key}: sits beside $ref "
        )
    else:
        check_beside_refs("specs/carts.yaml", version, document, {written: "fix.yaml"})
