"""`scripts/bench --only ui`: the web UI at scale, side by side in one run.

On a generated cassette set of N exchanges of about 1 KB (`ui_data.py`): a warm `check` against the UI's
offline index build (each in a fresh process, the same cassettes, the parse cache warm), the index's
size; then `commerce-proxy ui` serving the built index (cache on) on 127.0.0.1: the first paint of the
list in Chromium (`ui_browser.py`), the JS heap after scrolling, and the p95 of a fixed set of filters and
scroll positions asked of the API; then `record` against nginx at full rate (wrk) with the UI off, on
with no page, and on with one page open, and the live lag (answer to row in the page) under that load.
Every server is started here and stopped by its PID.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from pathlib import Path

from common import ROOT, Process, free_port, median, table, wait_until_up

PYTHON = sys.executable
# Filters (the API's query strings) and scroll positions (fractions of the matching rows) timed.
FILTERS = (
    "",
    "method=POST",
    "status=4xx",
    "text=charlie",
    "text=SKU-0001234",
    "method=GET&text=alpha",
    "has_findings=true",
)
SCROLLS = (0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 0.999)
WINDOW = 100  # rows a page asks for at once

# Builds the offline index as `commerce-proxy ui` does, less its cache of built indexes (always built;
# the parse cache of the cassettes stays on, as for `check`), and prints its figures: when its rows
# answered (the page usable) and when its bodies' text did (indexed after the rows, in the background).
BUILD = """
import json, os, sys, time
from proxy.app.traffic_view import offline_view
from proxy.cli.inputs import load_rules_in_force
from proxy.cli.main import build_parser
arguments = build_parser().parse_args(["ui", *sys.argv[1:]])
in_force = load_rules_in_force(arguments)
started = time.perf_counter()
view = offline_view(tuple(arguments.paths), in_force, cache=False, text_later=True)
rows = time.perf_counter()
view._index.text_wait()
text = time.perf_counter()
figures = {"exchanges": view.cursor, "bytes": view._index.size(), "text_after_s": text - rows}
print(json.dumps(figures))
view.close()
"""
PEAK_OF_CHILD = (
    "import resource, subprocess, sys, time\n"
    "started = time.perf_counter()\n"
    "done = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, text=True)\n"
    "use = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
    "print(done.returncode, time.perf_counter() - started, use.ru_utime + use.ru_stime, use.ru_maxrss)\n"
    "print(done.stdout)\n"
)


def timed(command: list[str], env: dict[str, str] | None = None) -> tuple[float, float, int, str]:
    """Wall seconds, CPU seconds (with its children), peak KB and stdout of a fresh process."""
    done = subprocess.run(
        [PYTHON, "-c", PEAK_OF_CHILD, *command],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=3600,
        check=False,
    )
    first, _, rest = done.stdout.partition("\n")
    status, wall, cpu, peak = first.split()
    if int(status) not in (0, 1):
        raise RuntimeError(f"{command[:4]} failed: {done.stderr.strip().splitlines()[-1:]}")
    return float(wall), float(cpu), int(peak), rest


def check_and_build(paths: list[Path], rounds: int, log: Callable[[str], None]) -> dict[str, float]:
    """Warm `check` against the index build, interleaved over rounds (medians; ratio of same-round)."""
    env = {name: value for name, value in os.environ.items() if name != "COMMERCE_PROXY_CACHE"}
    names = [str(path) for path in paths]
    timed([PYTHON, "-m", "proxy", "check", *names, "-q"], env)  # warms the parse cache
    checks, builds, rows, ratios, text_ratios, cpu_ratios = [], [], [], [], [], []
    built: dict[str, float] = {}
    for _ in range(rounds):
        check = timed([PYTHON, "-m", "proxy", "check", *names, "-q"], env)
        build = timed([PYTHON, "-c", BUILD, *names], env)
        built = json.loads(build[3])
        checks.append(check)
        builds.append(build)
        rows.append(build[0] - built["text_after_s"])  # the process's wall until its rows answered
        ratios.append(rows[-1] / check[0])
        text_ratios.append(build[0] / check[0])
        cpu_ratios.append(build[1] / check[1])
        log(
            f"  check {check[0]:.1f} s ({check[1]:.1f} s CPU), build: rows {rows[-1]:.1f} s, "
            f"text {build[0]:.1f} s ({build[1]:.1f} s CPU)"
        )
    return {
        "check_s": median([one[0] for one in checks]),
        "check_cpu": median([one[1] for one in checks]),
        "rows_s": median(rows),
        "build_s": median([one[0] for one in builds]),
        "build_cpu": median([one[1] for one in builds]),
        "ratio": median(ratios),
        "text_ratio": median(text_ratios),
        "cpu_ratio": median(cpu_ratios),
        "index_mb": built["bytes"] / 1e6,
        "build_peak_mb": median([one[2] for one in builds]) / 1e3,
    }


class UiServer:
    """`commerce-proxy ui` on the cassettes (its index from the cache the build left), on 127.0.0.1."""

    def __init__(self, paths: list[Path], work: Path) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        log = work / "ui.log"
        command = [PYTHON, "-m", "proxy", "ui", *map(str, paths), "--port", str(self.port)]
        self.process = Process("commerce-proxy ui", command, log, cwd=ROOT)
        try:
            wait_until_up(self.base + "/_proxy/health", self.process, timeout=600)
            self.address = ui_address(log)
        except BaseException:
            self.process.stop()
            raise
        self.token = urllib.parse.parse_qs(urllib.parse.urlsplit(self.address).query)["token"][0]
        self.wait_for_text()

    def wait_for_text(self, timeout: float = 1800.0) -> None:
        """Wait until text filters answer (a large set's bodies' text is indexed after its rows: until
        then they are a 503), so the figures are those of the index built."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                probe = "/_proxy/ui/api/exchanges?text=alpha&limit=0"
                until_known(self, probe, self.get(probe)[1])  # its total counted too: none left behind
                return
            except urllib.error.HTTPError as error:
                if error.code != 503 or time.monotonic() > deadline:
                    self.stop()
                    raise
            time.sleep(0.5)

    def get(self, path: str) -> tuple[float, dict[str, object]]:
        """Milliseconds and the JSON document of one API call."""
        request = urllib.request.Request(self.base + path, headers={"X-Commerce-Proxy-Token": self.token})
        started = time.perf_counter()
        with urllib.request.urlopen(request, timeout=60) as answer:
            document = json.loads(answer.read())
        return (time.perf_counter() - started) * 1000, document

    def stop(self) -> None:
        self.process.stop()


def ui_address(log: Path, timeout: float = 30.0) -> str:
    """The `ui: URL?token=...` line a server prints."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = re.search(r"ui: (http://\S+token=\S+)", log.read_text(errors="replace"))
        if found:
            return found.group(1)
        time.sleep(0.1)
    raise RuntimeError(f"no ui address in {log}")


def filter_and_scroll(server: UiServer) -> dict[str, float]:
    """p95 and worst of the API's answers: each filter first (a filter change: its first rows, its
    total maybe still being counted), the time until its total is known (asked again every 50 ms, as a
    page would), then its scroll positions (each a window of WINDOW rows), and the counts of each
    filter (the left column): their first answer and the time until they are counted."""
    changes, totals, scrolls, counts, counted = [], [], [], [], []
    for query in FILTERS:
        joined = f"{query}&" if query else ""
        first_window = f"/_proxy/ui/api/exchanges?{joined}offset=0&limit={WINDOW}"
        started = time.perf_counter()
        took, first = server.get(first_window)
        changes.append(took)
        first = until_known(server, first_window, first)
        totals.append((time.perf_counter() - started) * 1000)
        total = int(first["total"])  # type: ignore[call-overload]
        for share in SCROLLS:
            offset = max(0, min(total - WINDOW, int(total * share)))
            scrolls.append(server.get(f"/_proxy/ui/api/exchanges?{joined}offset={offset}&limit={WINDOW}")[0])
        started = time.perf_counter()
        took, document = server.get(f"/_proxy/ui/api/counts?{query}")
        counts.append(took)
        until_known(server, f"/_proxy/ui/api/counts?{query}", document)
        counted.append((time.perf_counter() - started) * 1000)
    return {
        "filter_p95": p95(changes),
        "filter_worst": max(changes),
        "total_p95": p95(totals),
        "total_worst": max(totals),
        "scroll_p95": p95(scrolls),
        "counts_p95": p95(counts),
        "counts_worst": max(counts),
        "counted_p95": p95(counted),
        "counted_worst": max(counted),
    }


def until_known(server: UiServer, path: str, document: dict[str, object]) -> dict[str, object]:
    """The document of `path` once its `total` is known (asked again every 50 ms, at most 10 minutes)."""
    deadline = time.monotonic() + 600
    while document["total"] is None and time.monotonic() < deadline:
        time.sleep(0.05)
        document = server.get(path)[1]
    if document["total"] is None:
        raise RuntimeError(f"{path}: no total after 10 minutes")
    return document


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))] if ordered else float("nan")


def run(work: Path, count: int, rounds: int, seconds: float, log: Callable[[str], None]) -> list[str]:
    """The UI table for a set of `count` exchanges."""
    import ui_browser
    import ui_data
    import ui_live
    import ui_live_cpu

    started = time.perf_counter()
    paths = ui_data.write_set(work / "set", count)
    size = sum(path.stat().st_size for path in paths)
    took = time.perf_counter() - started
    log(f"ui: {count:,} exchanges in {len(paths)} cassette(s), {size / 1e6:.0f} MB, written in {took:.0f} s")
    figures = check_and_build(paths, rounds, log)
    server = UiServer(paths, work)
    try:
        figures.update(filter_and_scroll(server))
        figures.update(ui_browser.measure(server.address, log))
    finally:
        server.stop()
    figures.update(ui_live.measure(work / "live", rounds, seconds, log))
    figures.update(ui_live_cpu.measure(log))
    return report(count, len(paths), size, figures)


def report(count: int, cassettes: int, size: int, figures: dict[str, float]) -> list[str]:
    def ms(name: str) -> str:
        value = figures.get(name)
        return "n/a" if value is None else f"{value:.0f} ms"

    def ratio(name: str) -> str:
        value = figures.get(name)
        return "n/a" if value is None else f"{value:.2f}"

    def pair(first: str, second: str, unit: str = "s") -> str:
        return f"{figures[first]:.1f} {unit} / {figures[second]:.1f} {unit}"

    index_mb = figures["index_mb"]
    rows = [
        ["warm `check` (wall / CPU)", pair("check_s", "check_cpu"), ""],
        ["index build, findings included: rows answer (wall)", f"{figures['rows_s']:.1f} s", "at most check"],
        ["... and body text searchable (wall / CPU)", pair("build_s", "build_cpu"), ""],
        [
            "build / check (wall: rows; text) (CPU: all)",
            f"{figures['ratio']:.2f}; {figures['text_ratio']:.2f} ({figures['cpu_ratio']:.2f})",
            "at most 1",
        ],
        ["index file", f"{index_mb:.0f} MB ({index_mb * 1e6 / count:.0f} B an exchange)", ""],
        ["first paint of the list (index built)", ms("first_paint"), "at most 1 s"],
        [
            "filter change, p95 (worst) of the API",
            f"{ms('filter_p95')} ({ms('filter_worst')})",
            "at most 200 ms",
        ],
        ["scroll window of 100 rows, p95", ms("scroll_p95"), "at most 200 ms"],
        ["... its total known after, p95 (worst)", f"{ms('total_p95')} ({ms('total_worst')})", ""],
        ["counts of a filter, first answer, p95 (worst)", f"{ms('counts_p95')} ({ms('counts_worst')})", ""],
        ["... counted after, p95 (worst)", f"{ms('counted_p95')} ({ms('counted_worst')})", ""],
        ["JS heap after scrolling", f"{figures.get('heap_mb', float('nan')):.0f} MB", "at most 200 MB"],
        ["live lag, answer to row drawn, p95 (worst)", f"{ms('lag_p95')} ({ms('lag_worst')})", "at most 1 s"],
        ["live: probes listed in the page (scrolled after) / sent", figures.get("listed", "n/a"), "all"],
        ["... drawn as they came (its view and a margin) / sent", figures.get("lag_seen", "n/a"), ""],
        ["`record` req/s, UI off", f"{figures.get('rps_off', float('nan')):.0f}", ""],
        ["`record`, UI on with no page / off", ratio("ratio_no_page"), "at least 0.95"],
        ["`record`, UI on with one page / off", ratio("ratio_one_page"), "at least 0.85"],
        ["`record` CPU a request, UI off", f"{figures.get('cpu_off_us', float('nan')):.0f} us", ""],
        [
            "... UI on with no page; with one page (/ off)",
            f"{ratio('cpu_no_page')}; {ratio('cpu_one_page')}",
            "",
        ],
        [
            "live indexing CPU a 4 KB exchange, in-process (once a text filter was asked)",
            f"{figures['live_cpu_us']:.0f} us ({figures['live_cpu_text_us']:.0f} us)",
            "",
        ],
    ]
    return [
        f"N = {count:,} exchanges of about 1 KB in {cassettes} cassette(s) ({size / 1e6:.0f} MB of YAML); "
        f"filters timed: {', '.join(query or '(none)' for query in FILTERS)}; scroll positions at "
        f"{', '.join(f'{share:g}' for share in SCROLLS)} of each filter's rows.",
        "",
        *table(["", "measured", "target"], [[str(cell) for cell in row] for row in rows]),
    ]
