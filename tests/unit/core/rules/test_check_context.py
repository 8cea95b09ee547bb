"""CheckContext parses the query as parse_qsl does; the session forgets by storing order alone."""

from __future__ import annotations

from urllib.parse import parse_qsl

import pytest

from proxy.core.rules.checks.context import CheckContext
from proxy.core.rules.checks.session import BoundedMemory, Session
from proxy.core.rules.endpoints import EndpointHit
from tests.unit.core.exchanges import exchange

QUERIES = [
    "",
    "page[limit]=10&page[offset]=190",
    "page%5Blimit%5D=10&page%5boffset%5d=20",
    "filter=ge(created_at,2024-01-01T00:00:00.000Z)&sort=-created_at",
    "a=1&&b&c=%20+x&d=a=b&",
    "name=caf%C3%A9&name=%ff&name=",
    "&=x&a%3Db=c+d",
]


@pytest.mark.parametrize("query", QUERIES)
def test_query_is_parse_qsl_keeping_blank_values(query: str) -> None:
    context = CheckContext(
        exchange("GET", "/v2/products", query), 0, EndpointHit(frozenset(), {}, False), Session(), {}
    )
    expected: dict[str, list[str]] = {}
    for name, value in parse_qsl(query, keep_blank_values=True):
        expected.setdefault(name, []).append(value)
    assert context.query == expected


def test_session_memory_forgets_the_entry_stored_longest_ago_whatever_was_read() -> None:
    """Reads do not count as use, so replaying only the observers (which store) rebuilds the same memory
    as checking did (which also reads): the two-core check relies on it."""
    memory: BoundedMemory[str, int] = BoundedMemory(2)
    memory.put("a", 1)
    memory.put("b", 2)
    assert memory.get("a") == 1
    memory.put("c", 3)
    assert (memory.get("a"), memory.get("b"), memory.get("c")) == (None, 2, 3)
    memory.put("b", 4)
    memory.put("d", 5)
    assert (memory.get("b"), memory.get("c"), memory.get("d"), len(memory)) == (4, None, 5, 2)
