"""The UI bench's live side: `record` in front of nginx at full rate (wrk), with the UI off (`--no-ui`), on
with no page open, and on with one page open (ratios of requests/s, interleaved rounds), and the live lag
while the page is open: probe requests, each with a marker in its query, sent beside the load; the lag is
the time from the probe's answer to its row drawn in the page."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from common import ROOT, Process, free_port, median, wait_until_up
from throughput import COMMERCE_PROXY, TOKEN, wrk
from ui import p95, ui_address
from ui_browser import watching
from upstream import Nginx, targets

CONNECTIONS = 16
PROBES_PER_S = 10


def record(work: Path, upstream: str, ui: bool) -> tuple[Process, str, Path]:
    port = free_port()
    work.mkdir(parents=True, exist_ok=True)
    log = work / "record.log"
    command = [*COMMERCE_PROXY, "record", "--upstream", upstream, "--cassette", str(work / "record.yaml")]
    command += ["--mode", "all", "--port", str(port)] + ([] if ui else ["--no-ui"])
    process = Process("commerce-proxy record", command, log, cwd=ROOT)
    try:
        wait_until_up(f"http://127.0.0.1:{port}/_proxy/health", process)
    except BaseException:
        process.stop()
        raise
    return process, f"http://127.0.0.1:{port}", log


def cpu_seconds(pid: int) -> float:
    """The CPU time a process (every thread of it) has used so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


def probes(base: str, seconds: float, sent: dict[str, float], stop: threading.Event) -> None:
    """Requests with a unique marker, PROBES_PER_S a second; `sent` maps each path to its answer time."""
    number = 0
    target = targets()[0]
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not stop.is_set():
        path = f"{target}&probe={number}"
        request = urllib.request.Request(base + path, headers={"Authorization": f"Bearer {TOKEN}"})
        try:
            with urllib.request.urlopen(request, timeout=10) as answer:
                answer.read()
            sent[path] = time.time() * 1000
        except OSError as error:
            sent.setdefault("failed", f"{path}: {type(error).__name__}: {error}")
        number += 1
        time.sleep(1 / PROBES_PER_S)


def measure(work: Path, rounds: int, seconds: float, log: Callable[[str], None]) -> dict[str, float]:
    script = work / "rotate.lua"
    work.mkdir(parents=True, exist_ok=True)
    paths = ", ".join(json.dumps(target) for target in targets())
    script.write_text(
        f"local paths = {{{paths}}}\nlocal i = 0\n"
        "request = function()\n  i = i % #paths + 1\n  return wrk.format(nil, paths[i])\nend\n"
    )
    # nginx's worker runs unprivileged when started as root: its pages live in a folder of their own
    # under /tmp, readable (the bench's own folder is private).
    pages = Path(tempfile.mkdtemp(prefix="commerce-proxy-bench-nginx-"))
    upstream = Nginx(pages)
    off, no_page, one_page, lags = [], [], [], []
    cpu: dict[str, list[float]] = {"off": [], "no page": [], "one page": []}  # record's, a request
    seen_count = listed_count = sent_count = 0
    try:
        for round_number in range(rounds):
            folder = work / f"round{round_number}"
            for case in ("off", "no page", "one page"):
                process, base, log_file = record(folder / case.replace(" ", "-"), upstream.url, case != "off")
                try:
                    if case == "one page":
                        with watching(ui_address(log_file)) as watched:
                            sent: dict[str, Any] = {}
                            stop = threading.Event()
                            prober = threading.Thread(target=probes, args=(base, seconds, sent, stop))
                            prober.start()
                            used = cpu_seconds(process.pid)
                            figure = wrk(base + "/", CONNECTIONS, seconds, script)
                            used = cpu_seconds(process.pid) - used
                            stop.set()
                            prober.join()
                            time.sleep(2)  # the last probes' rows: within the 1 s target, or late
                            drawn = watched.seen()
                            listed = watched.listed()
                        if "failed" in sent:
                            log(f"  a probe failed: {sent.pop('failed')}")
                        lags += [drawn[path] - at for path, at in sent.items() if path in drawn]
                        seen_count += sum(1 for path in sent if path in drawn)
                        listed_count += sum(1 for path in sent if path in listed)
                        sent_count += len(sent)
                        one_page.append(figure.requests_per_s)
                    else:
                        used = cpu_seconds(process.pid)
                        figure = wrk(base + "/", CONNECTIONS, seconds, script)
                        used = cpu_seconds(process.pid) - used
                        (off if case == "off" else no_page).append(figure.requests_per_s)
                    cpu[case].append(used / max(figure.requests_per_s * seconds, 1))
                finally:
                    process.stop()
                each = cpu[case][-1] * 1e6
                log(f"  record, UI {case}: {figure.requests_per_s:.0f} req/s, {each:.0f} us CPU each")
                if figure.non_2xx or figure.errors:
                    raise RuntimeError(f"record, UI {case}: {figure.non_2xx} non-2xx, {figure.errors} errors")
    finally:
        upstream.stop()
        shutil.rmtree(pages, ignore_errors=True)
    figures: dict[str, float] = {
        "rps_off": median(off),
        "ratio_no_page": median([on / base for on, base in zip(no_page, off, strict=True)]),
        "ratio_one_page": median([on / base for on, base in zip(one_page, off, strict=True)]),
        "lag_seen": f"{seen_count} / {sent_count}",  # type: ignore[dict-item]
        "listed": f"{listed_count} / {sent_count}",  # type: ignore[dict-item]
        # record's CPU a request while wrk runs (its live checker's process apart), UI on over off: less
        # moved than requests/s by other work on the machine (one page's has its probes, 10 a second)
        "cpu_no_page": median([on / base for on, base in zip(cpu["no page"], cpu["off"], strict=True)]),
        "cpu_one_page": median([on / base for on, base in zip(cpu["one page"], cpu["off"], strict=True)]),
        "cpu_off_us": median(cpu["off"]) * 1e6,
    }
    if lags:
        figures["lag_p95"] = p95(lags)
        figures["lag_worst"] = max(lags)
    return figures
