"""One server for the whole module: its tests share cassettes/test_accounts_module.yaml.

(Under pytest-xdist, record module cassettes with --dist loadfile so one worker records the module.)
"""

from __future__ import annotations

import pytest

from tests.example.catalog_client import CatalogClient

pytestmark = pytest.mark.commerce_conformance("strict")


@pytest.fixture(scope="module")
def client(commerce_record_module: str) -> CatalogClient:
    signed_in = CatalogClient(commerce_record_module)
    signed_in.sign_in()
    return signed_in


def test_every_account_once(client: CatalogClient) -> None:
    accounts = client.every("accounts", page_size=25)
    assert len(accounts) == 75
    assert len({account["id"] for account in accounts}) == 75


def test_customers_first_page(client: CatalogClient) -> None:
    _, page = client.call("GET", "/v2/customers?page[limit]=10")
    assert len(page["data"]) == 10
    assert page["meta"]["results"]["total"] == 240
