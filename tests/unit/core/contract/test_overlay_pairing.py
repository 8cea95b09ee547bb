"""Which spec an overlay corrects: the SDK's corrections files named after their spec, an Overlay's
`extends`, a merge correction's `x-applies-to`, and a pairing that fits no spec or several as one line."""

from __future__ import annotations

from typing import Any

import pytest

from proxy.core.contract.overlays import check_fragments, overlay_of
from proxy.errors import ContractError

SPEC = "api.yaml"
INFO = {"title": "t", "version": "1"}


PAIRINGS = [
    (
        "overrides/cart_checkout_service_corrections.yaml",
        {},
        ["specs/cart_checkout.yaml"],
        ("specs/cart_checkout.yaml",),
    ),
    (
        "commerce_extensions_service_corrections.yaml",
        {},
        ["commerce-extensions.yaml", "cart.yaml"],
        ("commerce-extensions.yaml",),
    ),
    ("cart_checkout.json", {}, ["cart_checkout.yaml"], ("cart_checkout.yaml",)),
    (
        "cart_checkout.overlay.yaml",
        {"overlay": "1.0.0", "info": INFO, "actions": [{"target": "$", "update": {}}]},
        ["cart_checkout.yaml"],
        ("cart_checkout.yaml",),
    ),
    (
        "mine.yaml",
        {"x-applies-to": "cart_checkout.yaml"},
        ["a/cart_checkout.yaml", "cart.yaml"],
        ("a/cart_checkout.yaml",),
    ),
    ("mine.yaml", {"x-applies-to": ["a.yaml", "b.yaml"]}, ["a.yaml", "b.yaml"], ("a.yaml", "b.yaml")),
    (
        "mine.yaml",
        {
            "overlay": "1.0.1",
            "info": INFO,
            "extends": "https://example.com/specs/files.yaml?x=1",
            "actions": [{"target": "$", "update": {}}],
        },
        ["files.yaml"],
        ("files.yaml",),
    ),
]


# The published spec files of elasticpath/composable-frontend packages/sdks/specs/ (names only).
PUBLISHED = [
    "account-addresses.yaml",
    "account_management.yaml",
    "application-keys.yaml",
    "authentication-realms.yaml",
    "authentication.yaml",
    "cart_checkout.yaml",
    "catalog_search.yaml",
    "catalog_view.yaml",
    "commerce-extensions.yaml",
    "currencies.yaml",
    "files.yaml",
    "flows.yaml",
    "integrations.yaml",
    "inventories.yaml",
    "merchant-realm-mapping.yaml",
    "payments.yaml",
    "permissions.yaml",
    "personal-data.yaml",
    "pim.yaml",
    "pricebooks.yaml",
    "promotions-standard.yaml",
    "rule-promotions.yaml",
    "settings.yaml",
    "shopper.yaml",
    "subscriptions.yaml",
]


@pytest.mark.parametrize("spec", PUBLISHED)
@pytest.mark.parametrize("suffix", ["_service_corrections.yaml", ".yaml", "-fixes.overlay.yaml"])
def test_each_published_spec_pairs_with_its_own_corrections(spec: str, suffix: str) -> None:
    """Every spec's `<spec>_service_corrections.yaml`, named as the SDK names them, pairs with that spec
    alone among all the published ones: the longest spec name that fits wins
    (`authentication_realms_service_corrections.yaml` is authentication-realms', not authentication's:
    refused as ambiguous before)."""
    name = spec.removesuffix(".yaml").replace("-", "_") + suffix
    assert overlay_of(name, {}, PUBLISHED).applies_to == (spec,)


@pytest.mark.parametrize(("name", "document", "specs", "expected"), PAIRINGS)
def test_pairing(name: str, document: dict[str, Any], specs: list[str], expected: tuple[str, ...]) -> None:
    """By file name as the SDK's files are named (`-` and `_` alike), or by `x-applies-to` / `extends`."""
    assert overlay_of(name, document, specs).applies_to == expected


UNPAIRED = [
    (
        "fix.yaml",
        {},
        ["cart.yaml"],
        "fix.yaml: its name fits no spec loaded (specs: cart.yaml): name it after its spec",
    ),
    (
        "cart_fix.yaml",
        {},
        ["a/cart.yaml", "b/cart.yaml", "carts.yaml"],
        "cart_fix.yaml: its name fits more than one spec (a/cart.yaml, b/cart.yaml): say which with x-applies-to",
    ),
    (
        "fix.yaml",
        {"x-applies-to": "orders.yaml"},
        ["cart.yaml"],
        "fix.yaml: #/x-applies-to: 'orders.yaml' names no spec loaded (specs: cart.yaml)",
    ),
    (
        "fix.yaml",
        {"x-applies-to": "cart.yaml"},
        ["a/cart.yaml", "b/cart.yaml"],
        "fix.yaml: #/x-applies-to: 'cart.yaml' fits more than one spec (a/cart.yaml, b/cart.yaml)",
    ),
    (
        "fix.yaml",
        {
            "overlay": "1.0.0",
            "info": INFO,
            "extends": "orders.yaml",
            "actions": [{"target": "$", "update": {}}],
        },
        ["cart.yaml"],
        "fix.yaml: #/extends: 'orders.yaml' names no spec loaded",
    ),
]


@pytest.mark.parametrize(("name", "document", "specs", "message"), UNPAIRED)
def test_unmatched_or_ambiguous_pairing_is_an_error(
    name: str, document: dict[str, Any], specs: list[str], message: str
) -> None:
    """An overlay that fits no spec, or several, is a one-line error, never silently ignored; a name
    given explicitly may be a file only a `$ref` reaches, so it is judged once the specs are read (here
    none was reached)."""
    with pytest.raises(ContractError) as caught:
        check_fragments([overlay_of(name, document, specs)], specs, ())
    assert str(caught.value).startswith(message)
