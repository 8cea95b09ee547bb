"""The matrix's workloads (pure: no I/O): which URLs wrk asks in turn, how large their answers are, and how
wrk asks them. Each varies one dimension of BASE, the workload of issue 40: 50 distinct URLs (40 list pages
with bracketed, not percent-encoded, page parameters and answers of about 4 KB; 10 custom API entry reads of
about 0.3 KB), one wrk thread, 16 and 64 keep-alive connections, only Host and Accept sent."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, replace

LIST_LIMIT = 25
LIST_PATHS = ("/v2/products", "/v2/brands", "/v2/categories")  # lists the documentation names
PAGES_PER_LIST = 10_000 // LIST_LIMIT  # the documented offset limit is 10,000 records
LIST_BYTES = 4_000
ENTRY_BYTES = 300
FILLER = "Benchmark catalogue text. "


@dataclass(frozen=True)
class Workload:
    """One row group of the matrix. `size` None: the base mix's sizes (lists 4 KB, entries 0.3 KB)."""

    varied: str  # the dimension varied from BASE ("base" for BASE itself)
    urls: int = 50
    size: int | None = None
    connections: tuple[int, ...] = (16, 64)
    threads: int = 1
    keep_alive: bool = True

    @property
    def label(self) -> str:
        size = "4 KB lists, 0.3 KB entries" if self.size is None else f"{self.size / 1000:g} KB"
        connection = "keep-alive" if self.keep_alive else "Connection: close"
        return f"{self.urls:,} URLs, {size}, {self.threads} thread(s), {connection}"

    @property
    def headers(self) -> tuple[str, ...]:
        """Only Accept beside the request line and Host (wrk sends Host); close asks a new connection."""
        return (
            ("Accept: application/json",)
            if self.keep_alive
            else ("Accept: application/json", "Connection: close")
        )


BASE = Workload("base")


def matrix(quick: bool = False) -> list[Workload]:
    """BASE at 1, 16, 64 and 256 connections, then one dimension at a time at 64 connections (the whole
    matrix in 30 minutes on a 2-core machine): URL mix, answer size, wrk threads, keep-alive."""
    if quick:
        return [
            replace(BASE, connections=(16,)),
            replace(BASE, varied="URL mix", urls=1_000, connections=(16,)),
        ]
    variant = replace(BASE, connections=(64,))
    return [
        replace(BASE, connections=(1, 16, 64, 256)),
        replace(variant, varied="URL mix", urls=1),
        replace(variant, varied="URL mix", urls=1_000),
        *(replace(variant, varied="answer size", size=size) for size in (300, 4_000, 64_000)),
        replace(variant, varied="wrk threads", threads=2),
        replace(variant, varied="keep-alive", keep_alive=False),
    ]


def targets(urls: int) -> list[str]:
    """`urls` distinct URLs in the order asked: four list pages, then an entry read, and again. List pages
    stay within the documented offset limit: past it they go on in the next list (`LIST_PATHS`)."""
    found = []
    for number in range(urls):
        if number % 5 == 4:
            found.append(f"/v2/extensions/wishlists/{entry_id(number // 5)}")
        else:
            page = number - number // 5
            path = LIST_PATHS[page // PAGES_PER_LIST]
            offset = page % PAGES_PER_LIST * LIST_LIMIT
            found.append(f"{path}?page[limit]={LIST_LIMIT}&page[offset]={offset}")
    return found


def entry_id(number: int) -> str:
    return f"00000000-0000-4000-9000-{number:012d}"


def documents(urls: int, size: int | None, base: str) -> dict[str, object]:
    """Each target's answer, links naming the upstream at `base`, of about `size` bytes as JSON."""
    found: dict[str, object] = {}
    listed = targets(urls)
    pages = Counter(target.partition("?")[0] for target in listed if "?" in target)
    for number, target in enumerate(listed):
        path, _, query = target.partition("?")
        if query:
            offset = int(query.rsplit("=", 1)[1])
            found[target] = list_page(offset, base, LIST_BYTES if size is None else size, pages[path], path)
        else:
            found[target] = entry(number // 5, base, ENTRY_BYTES if size is None else size)
    return found


def list_page(
    offset: int, base: str, size: int, pages: int = 1, path: str = LIST_PATHS[0]
) -> dict[str, object]:
    """A list page of up to LIST_LIMIT product records (fewer when `size` is small), padded to `size`,
    one of `pages`, with the documented envelope: the traffic of a service that follows its
    documentation, so what is measured is checking, not logging findings on every page. A page too
    small for LIST_LIMIT records is short before the last page, which the rules report."""
    link = f"{base}{path}?page[limit]={LIST_LIMIT}&page[offset]="
    last = (pages - 1) * LIST_LIMIT

    def document(count: int, padding: list[int]) -> dict[str, object]:
        records = [
            {
                "id": f"00000000-0000-4000-8000-{offset + index:012d}",
                "type": "product",
                "attributes": {"sku": f"SKU-{offset + index:06d}", "description": filler(padding[index])},
            }
            for index in range(count)
        ]
        return {
            "data": records,
            "links": {
                "current": f"{link}{offset}",
                "first": f"{link}0",
                "last": f"{link}{last}",
                "prev": f"{link}{offset - LIST_LIMIT}" if offset else None,
                "next": f"{link}{offset + LIST_LIMIT}" if offset < last else None,
            },
            "meta": {
                "page": {
                    "limit": LIST_LIMIT,
                    "offset": offset,
                    "current": offset // LIST_LIMIT + 1,
                    "total": pages,
                },
                "results": {"total": pages * LIST_LIMIT},
            },
        }

    count = LIST_LIMIT
    while count > 1 and length(document(count, [0] * count)) > size:
        count -= 1
    spare = max(0, size - length(document(count, [0] * count)))
    return document(count, [spare // count + (index < spare % count) for index in range(count)])


def entry(number: int, base: str, size: int) -> dict[str, object]:
    """A custom API entry (a wishlist), its description padded to `size`."""

    def document(padding: int) -> dict[str, object]:
        return {
            "data": {
                "id": entry_id(number),
                "type": "wishlist",
                "attributes": {"name": f"Wishlist {number}", "description": filler(padding)},
                "links": {"self": f"{base}/v2/extensions/wishlists/{entry_id(number)}"},
            }
        }

    return document(max(0, size - length(document(0))))


def filler(characters: int) -> str:
    return (FILLER * (characters // len(FILLER) + 1))[:characters]


def length(document: object) -> int:
    return len(json.dumps(document))
