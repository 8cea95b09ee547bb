"""Cassettes written fast for the real server's scale test: N exchanges as cassette text (the format of
docs/cassette-format.md), a few thousand to a file, varied methods, statuses and endpoints."""

from __future__ import annotations

import json
from pathlib import Path

PER_FILE = 5_000
UPSTREAM = "http://127.0.0.1:9"
KINDS = (("GET", "/v2/products?page={n}"), ("GET", "/v2/products/{n}"), ("GET", "/v2/carts/{n}"))


def exchange_text(number: int) -> str:
    method, path = KINDS[number % len(KINDS)]
    status = 404 if number % 11 == 0 else 200
    document = {"id": number, "name": f"product {number}", "price": {"amount": f"{number % 97}.00"}}
    body = json.dumps(document, indent=2).replace("\n", "\n      ")
    return (
        f"- recorded_at: '2025-01-02T10:00:00.{number % 1_000_000:06d}Z'\n"
        "  duration_ms: 1.5\n"
        "  request:\n"
        f"    method: {method}\n"
        f"    path: {path.format(n=number)}\n"
        "    headers:\n"
        "      Host: 127.0.0.1:9\n"
        "      Accept: application/json\n"
        "  response:\n"
        f"    status: {status}\n"
        "    headers:\n"
        "      Content-Type: application/json\n"
        "    json: |\n"
        f"      {body}\n"
    )


def write_cassettes(folder: Path, count: int) -> list[Path]:
    """`count` exchanges in cassettes of PER_FILE each under `folder`; their paths."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for first in range(0, count, PER_FILE):
        numbers = range(first + 1, min(count, first + PER_FILE) + 1)
        head = f"cassette_format: 2\nupstream: {UPSTREAM}\nexchanges:\n"
        path = folder / f"part-{first // PER_FILE:03d}.yaml"
        path.write_text(head + "".join(exchange_text(number) for number in numbers))
        written.append(path)
    return written
