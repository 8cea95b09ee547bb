"""The exchange's heads as recorded, its reason phrase included: every kind of reason (the usual one, a
custom one, none, markup, Latin-1 text) comes back in the detail document as it was recorded, from an
index built offline and from one a live view fills (the same entry)."""

from __future__ import annotations

import pytest

from proxy.app.traffic_rows import detail_document, entry_of
from proxy.core.model.exchange import Exchange, Request, Response
from proxy.store.traffic_index import temporary_index

REASONS = ["OK", "Created Just Now", "", None, "<script>alert(11)</script>", "Tr\u00e8s bien"]


@pytest.mark.parametrize("reason", REASONS)
def test_the_detail_gives_the_reason_phrase_as_recorded(reason: str | None) -> None:
    exchange = Exchange(
        Request("GET", "/v2/products"), Response(201, (), reason=reason), "2026-11-22T03:11:09Z"
    )
    index = temporary_index()
    try:
        index.add([entry_of(exchange, [], cassette=None, index=None, endpoint=None)])
        found = index.exchange(1)
        assert found is not None
        assert detail_document(*found)["response"]["reason"] == reason
    finally:
        index.close()
