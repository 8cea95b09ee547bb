"""Benchmark replay's core: recorded answers against simulated ones, side by side in one process.

Requests are answered by `ReplayBook.respond` (matching, sequences, simulation) on the shipped cassettes,
without HTTP. Figures are ratios within one run on a shared machine: compare them with each other.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from proxy.core.model.exchange import Body, Request
from proxy.core.redaction.redact import RedactionPolicy
from proxy.core.replay.book import Answer, ReplayBook
from proxy.core.replay.matching import MatchPolicy
from proxy.core.replay.simulation.answers import Simulated
from proxy.store.cassette_reader.loading import load_cassettes
from proxy.store.shipped import shipped_dir

AUTH = (("Authorization", "Bearer bench"),)
NOW = "2026-11-22T00:00:00.000000Z"
FEATURE = "/v2/subscriptions/features/3f8e2a4c-9b1d-4c6e-8f0a-1b2c3d4e5f60"


def rate(label: str, count: int, ask: Callable[[int], object], kind: type) -> float:
    """Requests per second for `count` calls; every answer must be of the expected kind."""
    started = time.perf_counter()
    for number in range(count):
        answer = ask(number)
        if not isinstance(answer, kind):
            raise SystemExit(f"{label}: request {number} got {answer!r}")
    per_second = count / (time.perf_counter() - started)
    print(f"{label:<44} {per_second:>10,.0f} requests/s")
    return per_second


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--requests", type=int, default=20_000)
    count = parser.parse_args().requests
    loaded = load_cassettes([shipped_dir("cassettes")])
    book = ReplayBook.build(
        [(str(one.path), one.cassette) for one in loaded], MatchPolicy(), RedactionPolicy(), simulate=True
    )
    recorded = Request("GET", "/v2/products", "page[limit]=10&page[offset]=10&page[total_method]=exact", AUTH)

    def window(number: int) -> Request:
        limit = (3, 4, 6, 7, 9)[number % 5]  # no recording asked these page lengths
        return Request("GET", "/v2/products", f"page[limit]={limit}&page[offset]={number % 11}", AUTH)

    def update(number: int) -> Request:
        attributes = {"name": f"Bench feature {number}", "description": None}
        payload = {
            "data": {
                "id": FEATURE.rsplit("/", 1)[1],
                "type": "subscription_feature",
                "attributes": attributes,
            }
        }
        return Request("PUT", FEATURE, "", AUTH, Body("json", payload))  # type: ignore[arg-type]

    base = rate("recorded answer (matched)", count, lambda n: book.respond(recorded, NOW), Answer)
    windows = rate(
        "simulated list window (3-9 of 30 records)", count, lambda n: book.respond(window(n), NOW), Simulated
    )
    updates = rate("simulated feature update", count, lambda n: book.respond(update(n), NOW), Simulated)
    print(
        f"ratios to a recorded answer: list window {windows / base:.2f}, feature update {updates / base:.2f}"
    )


if __name__ == "__main__":
    main()
