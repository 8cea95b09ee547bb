"""Overlay files read from disk: the SDK's corrections applied to specs modelled on the published ones,
with their exact results, and every unreadable file one line naming it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from proxy.core.cassette.safe_yaml import load_yaml
from proxy.core.contract.overlays import overlaid
from proxy.errors import ContractError
from proxy.store.contract_files import source_name
from proxy.store.overlay_files import read_overlays
from tests.paths import TESTS

HERE = TESTS / "fixtures" / "overlays"
SPECS = ["cart_checkout.yaml", "commerce-extensions.yaml", "promotions-standard.yaml", "rule-promotions.yaml"]


def spec(name: str) -> dict[str, Any]:
    document = load_yaml((HERE / "specs" / name).read_text())
    assert isinstance(document, dict)
    return document


def corrected(spec_name: str, correction: str) -> tuple[dict[str, Any], dict[str, str]]:
    overlays = read_overlays([HERE / correction], SPECS)
    assert overlays[0].applies_to == (spec_name,)
    return overlaid(spec_name, spec(spec_name), overlays, warn=pytest.fail)


def test_commerce_extensions_corrections() -> None:
    """If-Match becomes optional, and each required list is the correction's, restated in full."""
    result, provenance = corrected("commerce-extensions.yaml", "commerce_extensions_service_corrections.yaml")
    components = result["components"]
    assert components["parameters"]["IfMatch"] == {
        "name": "If-Match",
        "in": "header",
        "required": False,
        "schema": {"type": "string"},
    }
    body = components["requestBodies"]["CreateCustomAPI"]["content"]["application/json"]["schema"]
    assert body["properties"]["data"] == {
        "type": "object",
        "required": ["type", "name", "description", "slug", "api_type"],
    }
    assert components["schemas"]["BaseCreateCustomField"]["required"] == [
        "type",
        "name",
        "description",
        "slug",
        "field_type",
    ]
    assert components["schemas"]["BaseUpdateCustomField"] == {
        "type": "object",
        "properties": {"type": {"type": "string", "const": "custom_field"}},
        "required": ["type"],
    }
    name = source_name(HERE / "commerce_extensions_service_corrections.yaml")
    data = (
        "/components/requestBodies/CreateCustomAPI/content/application~1json/schema/properties/data/required"
    )
    assert provenance == {
        "/components/parameters/IfMatch/required": name,
        # By position: type and name stay where they were; from index 2 on each item changed.
        **{f"{data}/{index}": name for index in (2, 3, 4)},
        "/components/schemas/BaseCreateCustomField/required": name,
        "/components/schemas/BaseUpdateCustomField/required": name,
    }


def test_rule_promotions_corrections() -> None:
    """The request body becomes { data }, the discriminator maps strategies, AndCondition requires one."""
    result, _ = corrected("rule-promotions.yaml", "rule_promotions_service_corrections.yaml")
    schemas = result["components"]["schemas"]
    assert result["components"]["parameters"]["Authorization"]["required"] is False
    assert schemas["RulePromotionRequest"] == {
        "type": "object",
        "required": ["data"],
        "properties": {"data": {"$ref": "#/components/schemas/RulePromotionItem"}},
    }
    assert schemas["Condition"]["discriminator"] == {
        "propertyName": "strategy",
        "mapping": {
            "and": "#/components/schemas/AndCondition",
            "cart_total": "#/components/schemas/CartTotalCondition",
        },
    }
    assert schemas["AndCondition"]["required"] == ["strategy"]
    assert schemas["CartTotalCondition"]["required"] == ["strategy", "args"]
    post = result["paths"]["/v2/rule-promotions"]["post"]
    assert post["requestBody"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/RulePromotionRequest"
    }
    assert post["parameters"] == [{"$ref": "#/components/parameters/Authorization"}]


def test_promotions_standard_corrections() -> None:
    """min_cart_value becomes an array keeping its description; the job body's $ref lands beside the
    spec's inline body, which stays (as in the SDK's bundle)."""
    result, provenance = corrected("promotions-standard.yaml", "promotions_standard_service_corrections.yaml")
    assert result["components"]["schemas"]["Data.BasePromotions"]["properties"]["min_cart_value"] == {
        "type": "array",
        "description": "The minimum cart value, per currency.",
        "items": {"$ref": "#/components/schemas/Data.Promotions.Schema.Currencies.AmountAndCurrency"},
        "examples": [[{"amount": 1000, "currency": "USD"}]],
    }
    assert result["paths"]["/v2/promotions/{promotionID}/jobs"]["post"]["requestBody"] == {
        "content": {
            "application/json": {"schema": {"type": "object", "properties": {"type": {"type": "string"}}}}
        },
        "$ref": "#/components/requestBodies/PromotionJobRequest",
    }
    assert result["components"]["requestBodies"]["PromotionJobRequest"]["required"] is True
    assert "/paths/~1v2~1promotions~1{promotionID}~1jobs/post/requestBody/$ref" in provenance


def test_cart_checkout_corrections() -> None:
    """A tax item gains meta; the custom discount request's data points at the new update object."""
    result, _ = corrected("cart_checkout.yaml", "cart_checkout_service_corrections.yaml")
    schemas = result["components"]["schemas"]
    assert schemas["CartsBulkTaxes"]["properties"]["data"]["items"]["properties"] == {
        "rate": {"type": "number"},
        "meta": {
            "type": "object",
            "additionalProperties": False,
            "properties": {"component_product_id": {"type": "string", "format": "uuid", "minLength": 1}},
        },
    }
    assert schemas["CartsCustomDiscountsEntityRequest"]["properties"]["data"] == {
        "$ref": "#/components/schemas/CartsCustomDiscountsUpdateObject"
    }
    assert schemas["CartsCustomDiscountsUpdateObject"]["required"] == ["type"]


def test_an_overlay_document_from_a_folder_with_corrections() -> None:
    """A folder's files are read by name (not its subfolders), each paired with its spec; the Overlay
    document by `extends`."""
    overlays = read_overlays([HERE], SPECS)
    assert [(Path(overlay.name).name, overlay.kind, overlay.applies_to) for overlay in overlays] == [
        ("cart_checkout_service_corrections.yaml", "merge", ("cart_checkout.yaml",)),
        ("commerce-extensions.overlay.yaml", "overlay", ("commerce-extensions.yaml",)),
        ("commerce_extensions_service_corrections.yaml", "merge", ("commerce-extensions.yaml",)),
        ("promotions_standard_service_corrections.yaml", "merge", ("promotions-standard.yaml",)),
        ("rule_promotions_service_corrections.yaml", "merge", ("rule-promotions.yaml",)),
    ]
    only = read_overlays([HERE / "commerce-extensions.overlay.yaml"], SPECS)
    result, provenance = overlaid("commerce-extensions.yaml", spec("commerce-extensions.yaml"), only)
    assert result["components"]["parameters"]["IfMatch"]["required"] is False
    assert result["components"]["schemas"]["BaseUpdateCustomField"] == {"type": "object", "properties": {}}
    name = source_name(HERE / "commerce-extensions.overlay.yaml")
    assert provenance == {
        "/components/parameters/IfMatch/required": name,
        "/components/schemas/BaseUpdateCustomField/properties/type": name,
    }


@pytest.mark.parametrize(
    ("file_name", "text", "message"),
    [
        ("cart_checkout_x.yaml", "components: [\n", "cart_checkout_x.yaml:2: not valid YAML: "),
        (
            "cart_checkout_x.json",
            '{"components": }',
            "cart_checkout_x.json:1: not valid JSON: Expecting value",
        ),
        (
            "cart_checkout_x.yaml",
            "",
            "cart_checkout_x.yaml: empty: expected a merge correction or an Overlay document",
        ),
        (
            "cart_checkout_x.yaml",
            "a: !!python/object:os.system x\n",
            "cart_checkout_x.yaml:1: not valid YAML: ",
        ),
        ("cart_checkout_x.yaml", "a: 1\na: 2\n", "cart_checkout_x.yaml:2: not valid YAML: duplicate key 'a'"),
        ("unknown.yaml", "components: {}\n", "unknown.yaml: its name fits no spec loaded"),
    ],
)
def test_unreadable_files_are_one_line(tmp_path: Path, file_name: str, text: str, message: str) -> None:
    """Bad YAML or JSON, an empty file, an unsafe tag, a duplicate key, an unpaired name: one line each."""
    path = tmp_path / file_name
    path.write_text(text)
    with pytest.raises(ContractError) as caught:
        read_overlays([path], SPECS)
    assert str(caught.value).startswith(f"{path}") and message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_missing_files_folders_and_bytes(tmp_path: Path) -> None:
    """A missing file, an empty folder and a file that is not UTF-8 are one-line contract errors."""
    with pytest.raises(ContractError, match="no such overlay file"):
        read_overlays([tmp_path / "gone.yaml"], SPECS)
    with pytest.raises(
        ContractError, match=r"no overlay files \(\*\.yaml, \*\.yml, \*\.json\) in this folder"
    ):
        read_overlays([tmp_path], SPECS)
    bad = tmp_path / "cart_checkout_bad.yaml"
    bad.write_bytes(b"a: 1\nb: \xff\n")
    with pytest.raises(ContractError, match=r"cart_checkout_bad\.yaml:2: not UTF-8 text"):
        read_overlays([bad], SPECS)
