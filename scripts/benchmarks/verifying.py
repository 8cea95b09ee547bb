"""`verify` against a slow service: 1,000 recorded reads sent again to an upstream that takes 50 ms an
answer (`replay --latency 50` serving the same cassette, so nothing drifts and every answer is checked).

The time is set beside the floor the concurrency allows (exchanges x latency / concurrency) in the same
run: their ratio is what the run says, since absolute times drift on a shared machine.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from common import Process, free_port, median, table, wait_until_up

from proxy.core.cassette.document import Cassette
from proxy.core.model.exchange import Body, Exchange, Request, Response
from proxy.store.saving import save_cassette

EXCHANGES = 1_000
LATENCY_MS = 50
CONCURRENCY = 8
LISTS = ("brands", "carts", "categories", "collections", "customers", "files", "inventory", "orders",
         "products", "accounts")  # fmt: skip
BEARER = (("Authorization", "Bearer <redacted>"),)
JSON = (("Content-Type", "application/json"),)


def session_cassette(count: int) -> Cassette:
    """A client's session: list walks over ten endpoints with an entry read every tenth request."""
    exchanges = []
    for number in range(count):
        if number % 10 == 9:
            path = f"/v2/extensions/wishlists/{number:08d}-0000-4000-8000-000000000000"
            entry = {"id": path.rsplit("/", 1)[1], "type": "wishlist", "name": f"List {number}"}
            body: object = {"data": entry}
            request = Request("GET", path, "", BEARER, Body())
        else:
            name = LISTS[number % len(LISTS)]
            offset = (number // len(LISTS)) * 10
            ids = [f"{name}-{offset + item}" for item in range(10)]
            records = [{"id": one, "name": one.replace("-", " ")} for one in ids]
            body = {"data": records, "meta": {"page": {"limit": 10, "offset": offset}}}
            request = Request("GET", f"/v2/{name}", f"page[limit]=10&page[offset]={offset}", BEARER, Body())
        answer = Response(200, JSON, Body("json", body))  # type: ignore[arg-type]
        exchanges.append(Exchange(request, answer, "2026-11-24T00:00:00.000000Z", float(LATENCY_MS)))
    return Cassette(tuple(exchanges))


def run(work: Path, rounds: int, log: Callable[[str], None]) -> list[str]:
    """Time `verify` over the cassette against the delaying upstream, `rounds` times."""
    cassette = work / "verify-session.yaml"
    save_cassette(cassette, session_cassette(EXCHANGES))
    port = free_port()
    serving = ["replay", "--cassette", str(cassette), "--latency", str(LATENCY_MS), "--port", str(port)]
    upstream = Process(
        "replay --latency", [sys.executable, "-m", "proxy", *serving], work / "verify-upstream.log"
    )
    url = f"http://127.0.0.1:{port}"
    verifying = ["verify", str(cassette), "--upstream", url, "--token", "bench", "--format", "json"]
    seconds: list[float] = []
    try:
        wait_until_up(url + "/", upstream)
        for round_number in range(rounds):
            started = time.perf_counter()
            done = subprocess.run(
                [sys.executable, "-m", "proxy", *verifying, "--concurrency", str(CONCURRENCY)],
                capture_output=True,
                text=True,
                timeout=300,
                stdin=subprocess.DEVNULL,
                check=False,
            )
            elapsed = time.perf_counter() - started
            report = json.loads(done.stdout) if done.stdout.startswith("{") else {}
            if done.returncode != 0 or report.get("exchanges") != EXCHANGES or report["counts"]["breaking"]:
                raise RuntimeError(f"verify failed ({done.returncode}): {done.stderr.strip()[-300:]}")
            seconds.append(elapsed)
            log(f"verify: round {round_number + 1}: {elapsed:.2f} s")
    finally:
        upstream.stop()
    floor = EXCHANGES * LATENCY_MS / 1000 / CONCURRENCY
    taken = median(seconds)
    header = ["command", "exchanges", "upstream latency", "--concurrency", "time (median, whole command)"]
    row = ["verify", f"{EXCHANGES:,}", f"{LATENCY_MS} ms", str(CONCURRENCY), f"{taken:.2f} s"]
    return table([*header, "floor", "ratio"], [[*row, f"{floor:.2f} s", f"{taken / floor:.2f}x"]])
