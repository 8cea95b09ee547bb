"""The live UI's indexing cost, in-process: the CPU time (every thread, SQLite's too) a live view spends
on each exchange `record` hands it, the bench's 4 KB list pages, added in batches of what `record` takes
in one flush of the indexing thread at its full rate. Measured with no text filter asked yet, and after
one was (the body text then goes to the text index as each exchange is added). Less moved by other work
on the machine than the requests/s of `ui_live.py`: run it before and after a change, side by side.

    python scripts/benchmarks/ui_live_cpu.py [EXCHANGES]
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable

from upstream import page_document, targets

BATCH = 30  # record's ~600 exchanges/s over the indexer's 50 ms between flushes
EXCHANGES = 6000
ROUNDS = 3


def exchanges() -> list[object]:
    """One exchange a bench target, as record hands it to the UI (redacted, checked)."""
    from proxy.core.model.bodies import body_from_bytes
    from proxy.core.model.exchange import Exchange, Request, Response

    heads = (
        ("Server", "nginx"),
        ("Date", "Fri, 27 Nov 2026 18:00:00 GMT"),
        ("Content-Type", "application/json"),
        ("Connection", "keep-alive"),
    )
    made: list[object] = []
    for number, target in enumerate(targets()):
        raw = json.dumps(page_document(number, "http://127.0.0.1:8080")).encode()
        path, _, query = target.partition("?")
        request = Request("GET", path, query, (("Host", "127.0.0.1"), ("User-Agent", "wrk")))
        response = Response(200, heads, body_from_bytes(raw, heads), "OK")
        made.append(Exchange(request, response, "2026-11-27T18:00:00.000000Z", 1.5))
    return made


def cpu_per_exchange(count: int, text_asked: bool) -> float:
    """Microseconds of CPU an exchange, the best of ROUNDS."""
    from proxy.app.live_traffic import live_view
    from proxy.app.record_setup import shipped_rules_in_force
    from proxy.core.rules.engine import Checked
    from proxy.core.ui.query import Query

    in_force = shipped_rules_in_force()
    made = exchanges()
    best = float("inf")
    for _ in range(ROUNDS):
        view = live_view("record", None, in_force, cassette="record.yaml")
        assert view.indexer is not None
        if text_asked:
            view.window(Query(text="Product"), 0, 1, wait=True)
        started = time.process_time()
        for number in range(count):
            view.indexer.checked(Checked(number, made[number % len(made)], []))  # type: ignore[arg-type]
            if number % BATCH == BATCH - 1:
                view.flush()
        view.flush()
        best = min(best, time.process_time() - started)
        if view.cursor != count:
            raise RuntimeError(f"the live view indexed {view.cursor} of {count} exchanges")
        view.close()
    return best / count * 1e6


def measure(log: Callable[[str], None], count: int = EXCHANGES) -> dict[str, float]:
    figures = {
        "live_cpu_us": cpu_per_exchange(count, text_asked=False),
        "live_cpu_text_us": cpu_per_exchange(count, text_asked=True),
    }
    log(
        f"  live indexing, CPU an exchange: {figures['live_cpu_us']:.0f} us "
        f"({figures['live_cpu_text_us']:.0f} us once a text filter was asked)"
    )
    return figures


if __name__ == "__main__":
    measure(lambda line: print(line.strip()), int(sys.argv[1]) if len(sys.argv) > 1 else EXCHANGES)
