"""`replay --match-on ...,header:NAME`, end to end: a conditional read and a plain read of the same
entry, recorded in one cassette, are each answered by their own recording whatever the order they come
in; a conditional read with another ETag misses, and the miss names the header."""

from __future__ import annotations

from pathlib import Path

import aiohttp
import pytest

from proxy.core.cassette.document import Cassette
from proxy.store.saving import save_cassette
from tests.conftest import json_body, make_exchange, make_request
from tests.running import commerce_proxy, refusal_lines

ENTRY = "/v2/extensions/wishlists/holiday-list"
ETAG = 'W/"7"'
HEADERS_MATCH = "method,path,query,body,header:If-None-Match"


def conditional_and_plain(tmp_path: Path) -> Path:
    """The conditional read recorded first, the plain read second (as a client that revalidates does)."""
    cassette = tmp_path / "entry.yaml"
    conditional = make_request("GET", path=ENTRY, headers=(("If-None-Match", ETAG),))
    plain = make_request("GET", path=ENTRY)
    entry = {"data": {"id": "holiday-list", "type": "wishlists", "name": "Holiday list"}}
    save_cassette(
        cassette,
        Cassette(
            (
                make_exchange(conditional, status=304, headers=(("ETag", ETAG),)),
                make_exchange(
                    plain,
                    body=json_body(entry),
                    headers=(("Content-Type", "application/json"), ("ETag", ETAG)),
                ),
            )
        ),
    )
    return cassette


async def read(url: str, etag: str | None = None) -> tuple[int, dict[str, object] | None]:
    headers = {"If-None-Match": etag} if etag is not None else {}
    async with aiohttp.ClientSession() as session, session.get(url + ENTRY, headers=headers) as answer:
        document = await answer.json(content_type=None) if answer.status != 304 else None
        return answer.status, document


async def test_a_conditional_and_a_plain_read_are_told_apart_by_the_header(tmp_path: Path) -> None:
    cassette = conditional_and_plain(tmp_path)
    async with commerce_proxy("replay", "--cassette", str(cassette)) as by_order:
        assert (await read(by_order.url))[0] == 304  # without the header, order decides: the wrong answer
    async with commerce_proxy("replay", "--cassette", str(cassette), "--match-on", HEADERS_MATCH) as server:
        plain = await read(server.url)
        assert plain[0] == 200 and plain[1] is not None and plain[1]["data"]["id"] == "holiday-list"  # type: ignore[index]
        assert (await read(server.url, ETAG))[0] == 304
        assert (await read(server.url))[0] == 200  # the plain read again, past its one recording
        status, document = await read(server.url, 'W/"8"')
    assert status == 404 and document is not None
    closest = document["errors"][0]["meta"]["closest"]  # type: ignore[index]
    assert closest[0]["differences"] == [
        {"where": "header.If-None-Match", "expected": ETAG, "found": 'W/"8"'}
    ]


@pytest.mark.parametrize("written", ["header:", "method,header: ,path", "header:If None"])
def test_a_header_with_no_name_is_one_line_and_exit_2(tmp_path: Path, written: str) -> None:
    cassette = conditional_and_plain(tmp_path)
    code, lines, _ = refusal_lines("replay", "--cassette", str(cassette), "--match-on", written)
    assert code == 2
    assert len(lines) == 1 and "--match-on" in lines[0] and "header:NAME" in lines[0], lines


@pytest.mark.parametrize("written", ["header:If-None-Match", "header:If-None-Match,header:If-Match"])
async def test_headers_alone_add_to_the_default_fields(tmp_path: Path, written: str) -> None:
    """`--match-on header:NAME` as the issue spells it: method, path, query and body still decide, so
    another path misses (naming its path) instead of getting the entry's answer."""
    cassette = conditional_and_plain(tmp_path)
    async with commerce_proxy("replay", "--cassette", str(cassette), "--match-on", written) as server:
        assert (await read(server.url))[0] == 200
        assert (await read(server.url, ETAG))[0] == 304
        async with aiohttp.ClientSession() as session, session.get(server.url + "/v2/brands") as answer:
            status, document = answer.status, await answer.json(content_type=None)
    assert status == 404
    closest = document["errors"][0]["meta"]["closest"]
    assert [difference["where"] for difference in closest[0]["differences"]] == ["path"]
