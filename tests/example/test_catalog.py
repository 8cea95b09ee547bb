"""An example test suite that uses the commerce-proxy pytest plugin the way a user would.

Run it live (records each test's cassette the first time):
    pytest tests/example --commerce-record-mode=once
and offline, as CI does (CI=true means --commerce-record-mode=none: replay only):
    CI=true pytest tests/example
Every exchange is checked against the documented rules; this module asks for `strict`, so a test whose
traffic breaks a rule fails and shows the finding.
"""

from __future__ import annotations

import aiohttp
import pytest

from tests.example.catalog_client import ApiError, CatalogClient

pytestmark = pytest.mark.commerce_conformance("strict")

FEATURE_ID = "3f8e2a4c-9b1d-4c6e-8f0a-1b2c3d4e5f60"
ENTRY = ("wishlists", "5b0f6a52-3a8e-4f65-9d4c-0e6f1a2b3c4d")


def test_reads_every_brand_page_by_page(commerce_record: str) -> None:
    # cassette: cassettes/test_catalog/test_reads_every_brand_page_by_page.yaml
    client = CatalogClient(commerce_record)
    client.sign_in()
    brands = client.every("brands", page_size=5)
    assert len(brands) == 12
    assert len({brand["id"] for brand in brands}) == 12


def test_entry_etag_is_weak(commerce_record: str) -> None:
    client = CatalogClient(commerce_record)
    client.sign_in()
    etag, entry = client.entry(*ENTRY)
    assert etag == f'W/"{entry["meta"]["etag_id"]}"'


def test_refuses_a_client_without_a_token(commerce_record: str) -> None:
    client = CatalogClient(commerce_record)
    with pytest.raises(ApiError) as refused:
        client.every("brands")
    assert refused.value.status == 401


@pytest.mark.commerce_cassette("features/rename.yaml")
async def test_renames_a_feature_leaving_the_rest(commerce_record: str) -> None:
    # An async test: the server runs on its own thread, so aiohttp on the test's loop reaches it.
    client = CatalogClient(commerce_record)
    client.sign_in()
    async with aiohttp.ClientSession(headers={"Authorization": f"Bearer {client.token}"}) as session:
        before_url = f"{commerce_record}/v2/subscriptions/features/{FEATURE_ID}"
        attributes = {"name": "Gift wrap"}
        body = {"data": {"id": FEATURE_ID, "type": "subscription_feature", "attributes": attributes}}
        async with session.put(before_url, json=body) as answer:
            assert answer.status == 200
            renamed = (await answer.json())["data"]
    assert renamed["attributes"]["name"] == "Gift wrap"
    assert renamed["attributes"]["description"]  # untouched by a partial update
