"""Cassette loading: commerce-proxy against vcrpy's loader and cassetter on the same content, and `check`.

Each cassette holds N GET exchanges with about 4 KB JSON bodies (the throughput benchmark's list pages),
written in each tool's own format. Every load runs in a fresh process (`--measure`), which prints its
wall time and peak memory. "cold" is a load in a new process with no parse cache of ours (its entry
beside the YAML removed first: the YAML is parsed, and the entry written); "warm" is the same load again
(from the entry; vcrpy and cassetter have no cache, so for them it is the same work with the file in the
OS page cache).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from common import ROOT, cpu_reference, median, table

UPSTREAM = "http://127.0.0.1:9000"


def documents(count: int) -> list[tuple[str, str]]:
    from upstream import PAGES, RECORDS_PER_PAGE, page_document

    pages = [json.dumps(page_document(number, UPSTREAM)) for number in range(PAGES)]
    return [
        (
            # The request asks for the page it got back, so the cassette is conformant (few findings).
            f"/v2/products?page[limit]={RECORDS_PER_PAGE}&page[offset]={(index % PAGES) * RECORDS_PER_PAGE}",
            pages[index % PAGES],
        )
        for index in range(count)
    ]


def write_ours(path: Path, count: int) -> None:
    sys.path.insert(0, str(ROOT))
    from proxy.core.cassette.document import Cassette
    from proxy.core.model.bodies import body_from_bytes
    from proxy.core.model.exchange import EMPTY_BODY, Exchange, Request, Response
    from proxy.store.saving import save_cassette

    exchanges = []
    for target, text in documents(count):
        path_part, _, query = target.partition("?")
        headers = (("Content-Type", "application/json"),)
        exchanges.append(
            Exchange(
                Request(
                    "GET",
                    path_part,
                    query,
                    (("Accept", "application/json"), ("Authorization", "Bearer <redacted>")),
                    EMPTY_BODY,
                ),
                Response(200, headers, body_from_bytes(text.encode(), headers)),
                "2026-01-01T00:00:00.000000Z",
                1.0,
            )
        )
    save_cassette(path, Cassette(tuple(exchanges), upstream=UPSTREAM))


def write_vcrpy(path: Path, count: int) -> None:
    from vcr.serializers import yamlserializer

    interactions = [
        {
            "request": {
                "body": None,
                "headers": {"Accept": ["application/json"]},
                "method": "GET",
                "uri": UPSTREAM + target,
            },
            "response": {
                "body": {"string": text},
                "headers": {"Content-Type": ["application/json"]},
                "status": {"code": 200, "message": "OK"},
            },
        }
        for target, text in documents(count)
    ]
    path.write_text(yamlserializer.serialize({"interactions": interactions, "version": 1}))


def write_cassetter(path: Path, count: int) -> None:
    from cassetter._core import Body, Cassette, HttpInteraction, HttpRequest, HttpResponse

    cassette = Cassette()
    for target, text in documents(count):
        cassette.add_interaction(
            HttpInteraction(
                HttpRequest("GET", UPSTREAM + target, {"Accept": ["application/json"]}, Body("none")),
                HttpResponse(
                    200, {"Content-Type": ["application/json"]}, Body("text", text)
                ),  # its node budget refuses 50,000 parsed bodies
                "2026-01-01T00:00:00Z",
            )
        )
    cassette.save(str(path))


WRITERS: dict[str, tuple[str, Callable[[Path, int], None]]] = {
    "commerce-proxy": ("yaml", write_ours),
    "vcrpy": ("vcrpy.yaml", write_vcrpy),
    "cassetter": ("cassetter.yaml", write_cassetter),
}


def loader(kind: str) -> Callable[[Path], int]:
    """How the tool loads a cassette before its first request (returning the number of exchanges),
    imported here so that the timing covers the load call alone."""
    if kind == "commerce-proxy":
        sys.path.insert(0, str(ROOT))
        from proxy.store.cassette_reader.loading import load_cassette

        return lambda path: len(load_cassette(path).cassette.exchanges)
    if kind == "vcrpy":
        from vcr.persisters.filesystem import FilesystemPersister
        from vcr.serializers import yamlserializer

        return lambda path: len(FilesystemPersister.load_cassette(str(path), yamlserializer)[0])
    from cassetter._core import Cassette

    return lambda path: len(Cassette.load(str(path)))


class LoadFailed(Exception):
    """The tool could not load the cassette (cassetter refuses more than 250,000 YAML nodes, say)."""


def without_cache() -> dict[str, str]:
    """The environment for our loads: the parse cache in its default place, beside the YAML."""
    return {name: value for name, value in os.environ.items() if name != "COMMERCE_PROXY_CACHE"}


def forget_cache(path: Path) -> None:
    """Remove our parse cache entry for `path`, so the next load is cold."""
    (path.parent / ".commerce-proxy-cache" / f"{path.name}.json").unlink(missing_ok=True)


def measured(kind: str, path: Path) -> tuple[float, int]:
    """Wall seconds and peak resident KB of one load in a fresh process."""
    env = without_cache()
    command = [sys.executable, __file__, "--measure", kind, str(path)]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=1800, check=False)
    if done.returncode != 0:
        errors = [line.strip() for line in done.stderr.splitlines() if "Error:" in line]
        raise LoadFailed(errors[-1] if errors else f"exit {done.returncode}")
    result = json.loads(done.stdout)
    return result["seconds"], result["max_rss_kb"]


# Runs the check and prints its peak memory: a small process of its own forks it, so the figure is the
# check's, not the copy of this (large) process that a fork makes before it becomes the check.
PEAK_OF_CHILD = (
    "import resource, subprocess, sys\n"
    "done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)\n"
    "print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
)


def check_wall(path: Path, *options: str) -> tuple[float, int]:
    """Wall seconds and peak resident KB of `commerce-proxy check` on `path` (with `options`, such as
    `--spec DIR`), in a fresh process."""
    started = time.perf_counter()
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            PEAK_OF_CHILD,
            sys.executable,
            "-m",
            "proxy",
            "check",
            str(path),
            "-q",
            *options,
        ],
        cwd=ROOT,
        env=without_cache(),
        capture_output=True,
        text=True,
        timeout=3600,
        check=False,
    )
    seconds = time.perf_counter() - started
    status, peak_kb = (int(part) for part in done.stdout.split()) if done.returncode == 0 else (-1, 0)
    if status not in (0, 1):  # 1: findings of error severity, still a whole check
        last = done.stderr.strip().splitlines()[-1:] or [f"exit {status}"]
        raise RuntimeError(f"check on {path} failed: {last[0]}")
    return seconds, peak_kb


def run(work: Path, sizes: list[int], rounds: int, log: Callable[[str], None]) -> list[str]:
    """The loading table and the check figures.

    Rounds are interleaved (each round loads every tool's cassette once cold and once warm) and a tool's
    "x vcrpy cold" is the median of same-round ratios: this machine's speed drifts over minutes, and
    loads timed minutes apart compared the drift as much as the loaders.
    """
    rows = []
    refused: list[str] = []
    for count in sizes:
        files = {}
        for kind, (suffix, write) in WRITERS.items():
            files[kind] = work / f"{count}.{suffix}"
            write(files[kind], count)
        os.sync()  # written back before any load is timed (see main.settle)
        rounds_of: dict[str, list[tuple[float, float, int, int]]] = {kind: [] for kind in files}
        failed: set[str] = set()
        for _ in range(rounds):
            for kind, path in files.items():
                if kind in failed:
                    continue
                try:
                    forget_cache(path)
                    cold, cold_kb = measured(kind, path)
                    warm, warm_kb = measured(kind, path)
                except LoadFailed as failure:
                    failed.add(kind)
                    refused.append(f"- {kind} could not load {count:,} exchanges: {failure}")
                    log(f"  load {count:,} {kind}: failed: {failure}")
                    continue
                rounds_of[kind].append((cold, warm, cold_kb, warm_kb))
        for kind, path in files.items():
            if kind in failed:
                continue
            measured_rounds = rounds_of[kind]
            colds = [item[0] for item in measured_rounds]
            warms = [item[1] for item in measured_rounds]
            ratios = [
                theirs[0] / ours[0] for ours, theirs in zip(measured_rounds, rounds_of["vcrpy"], strict=False)
            ]
            size_mb = path.stat().st_size / 1e6
            rows.append(
                (
                    count,
                    kind,
                    size_mb,
                    median(colds),
                    median(warms),
                    median(ratios) if ratios else float("nan"),
                    median([item[2] for item in measured_rounds]),
                    median([item[3] for item in measured_rounds]),
                )
            )
            log(f"  load {count:,} {kind}: cold {median(colds):.2f} s, warm {median(warms):.2f} s")
    lines = table(
        ["exchanges", "loader", "file MB", "cold s", "warm s", "x vcrpy cold", "peak MB cold / warm"],
        [
            [
                f"{count:,}",
                kind,
                f"{size:.1f}",
                f"{cold:.2f}",
                f"{warm:.3f}",
                f"{ratio:.1f}",
                f"{cold_kb / 1024:.0f} / {warm_kb / 1024:.0f}",
            ]
            for count, kind, size, cold, warm, ratio, cold_kb, warm_kb in rows
        ],
    )
    if refused:
        lines += ["", *refused]
    biggest = max(sizes)
    path = work / f"{biggest}.yaml"
    forget_cache(path)
    before = cpu_reference()
    cold, cold_kb = check_wall(path)
    warms = [check_wall(path) for _ in range(rounds)]
    after = cpu_reference()
    warm, warm_kb = median([item[0] for item in warms]), median([item[1] for item in warms])
    log(
        f"  check {biggest:,}: cold {cold:.1f} s, warm {warm:.1f} s"
        f" (CPU reference {before:.0f}, {after:.0f} ms)"
    )
    lines += [
        "",
        *table(
            [f"`check` on {biggest:,} exchanges, load included", "wall s", "exchanges/s", "peak MB"],
            [
                ["cold (YAML parsed)", f"{cold:.2f}", f"{biggest / cold:,.0f}", f"{cold_kb / 1024:.0f}"],
                ["warm (parse cache)", f"{warm:.2f}", f"{biggest / warm:,.0f}", f"{warm_kb / 1024:.0f}"],
            ],
        ),
        "",
        f"- CPU reference (a fixed pure-Python loop, best of three; lower is faster) just before these "
        f"`check` runs: {before:.0f} ms, just after: {after:.0f} ms. Exchanges/s is not a ratio: it moves "
        "with this machine's speed, which drifts within the hour.",
    ]
    return lines


if __name__ == "__main__" and sys.argv[1:2] == ["--measure"]:
    kind, where = sys.argv[2], Path(sys.argv[3])
    load = loader(kind)
    started = time.perf_counter()
    loaded = load(where)
    seconds = time.perf_counter() - started
    # VmHWM, not ru_maxrss: Linux carries ru_maxrss over from the parent across fork and exec.
    status = Path("/proc/self/status").read_text().splitlines()
    peak = next((int(line.split()[1]) for line in status if line.startswith("VmHWM:")), 0)
    print(json.dumps({"seconds": seconds, "max_rss_kb": peak, "exchanges": loaded}))
