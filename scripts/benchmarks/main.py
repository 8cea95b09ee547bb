"""`scripts/bench`: throughput against the peers, cassette loading against vcrpy and cassetter, `check`, the
web UI at scale (`--only ui`), and the throughput matrix (`--only matrix`).

Everything runs on 127.0.0.1 with bounded durations and stops by itself; only processes it started are
stopped, by PID. A full run writes the docs page docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import contract
import loading
import matrix
import smoke
import throughput
import ui
import verifying
import workloads
from common import ROOT, TOOLS, cpu_reference, tool_version
from page import kept_matrix, matrix_section, page, with_matrix

DOCS_PAGE = ROOT / "docs" / "benchmarks.md"


def stop_on_sigterm(signum: int, frame: object) -> None:
    """SIGTERM unwinds like Ctrl-C, so every server the run started is stopped by its PID."""
    raise KeyboardInterrupt


def main() -> int:
    signal.signal(signal.SIGTERM, stop_on_sigterm)
    # Started in the background by a shell without job control, this process and every server it
    # starts would ignore SIGINT, and the servers stopped on SIGINT (WireMock) would wait out their
    # timeout: a handler here is reset to the default in each server it starts.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    parser = argparse.ArgumentParser(prog="scripts/bench", description=__doc__)
    parser.add_argument(
        "--quick", action="store_true", help="one round, 16 connections, 1 s each, 1,000 exchanges"
    )
    parser.add_argument("--rounds", type=int, default=None, help="interleaved rounds (default 3; --quick 1)")
    parser.add_argument("--seconds", type=float, default=None, help="each wrk run (default 5; --quick 1)")
    parser.add_argument(
        "--only",
        choices=("throughput", "loading", "verify", "ui", "contract", "matrix"),
        help="run one part",
    )
    parser.add_argument(
        "--subjects",
        metavar="REGEX",
        help="throughput: only subjects whose name matches (the limit and the baseline always run)",
    )
    parser.add_argument(
        "--ui-exchanges",
        type=int,
        default=None,
        metavar="N",
        help="ui: the cassette set's exchanges (default 1,000,000; --quick 20,000)",
    )
    parser.add_argument(
        "-o",
        "--output",
        type=Path,
        default=None,
        help="the results (default: a full run writes docs/benchmarks.md, a partial one bench-results.md)",
    )
    arguments = parser.parse_args()
    rounds = arguments.rounds or (1 if arguments.quick else 3)
    seconds = arguments.seconds or (1.0 if arguments.quick else 5.0)
    connections = [16] if arguments.quick else [16, 64]
    sizes = [1_000] if arguments.quick else [1_000, 10_000, 50_000]
    missing = [tool for tool in ("nginx", "wrk", "node", "java") if shutil.which(tool) is None]
    if (
        not (TOOLS / "node_modules" / "talkback").is_dir()
        or not (TOOLS / "node_modules" / "wiremock").is_dir()
    ):
        missing.append("npm packages talkback and wiremock in .bench/")
    if missing and arguments.only in (None, "throughput", "matrix"):
        print(
            f"scripts/bench: missing {', '.join(missing)} (scripts/bench installs them when run as root)",
            file=sys.stderr,
        )
        return 2

    def log(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    started = time.perf_counter()
    lines = header(rounds, seconds, connections)
    reference = cpu_reference()
    lines[-1:-1] = [
        "",
        f"CPU reference at the start (a fixed pure-Python loop, lower is faster): {reference:.0f} ms.",
    ]
    with tempfile.TemporaryDirectory(prefix="commerce-proxy-bench-") as folder:
        work = Path(folder)
        if arguments.only in (None, "throughput"):
            log(f"throughput: {rounds} round(s), {seconds:g} s per run, connections {connections}")
            measured = throughput.run(work, rounds, connections, seconds, log, arguments.subjects)
            lines += ["## Throughput (wrk, 2 threads, rotating over 20 list pages of 4 KB)", ""]
            lines += throughput.report(measured, connections)
            lines.append("")
        if arguments.only in (None, "verify"):
            log(f"verify: {verifying.EXCHANGES:,} exchanges, {rounds} round(s)")
            lines += [
                f"## verify against a slow service ({verifying.LATENCY_MS} ms an answer; at most 10 s asked)",
                "",
            ]
            (work / "verify").mkdir()
            lines += verifying.run(work / "verify", rounds, log)
            lines.append("")
        if arguments.only in (None, "loading"):
            settle(work)
            log(f"loading: {sizes} exchanges, {rounds} round(s)")
            lines += ["## Cassette loading (fresh process each; time of the load call, imports excluded)", ""]
            (work / "loading").mkdir()
            lines += loading.run(work / "loading", sizes, rounds, log)
            lines.append("")
        if arguments.only in (None, "contract"):
            settle(work)
            count = sizes[-1]
            log(f"contract: --spec on {count:,} exchanges, {rounds} round(s)")
            lines += ["## `check --spec`: the published specs' size, against the issue's goals", ""]
            (work / "contract").mkdir()
            lines += contract.run(work / "contract", rounds, log, count)
            lines.append("")
        if arguments.only in (None, "ui"):
            settle(work)
            count = arguments.ui_exchanges or (20_000 if arguments.quick else 1_000_000)
            log(f"ui: {count:,} exchanges, {rounds} round(s)")
            lines += ["## The web UI at scale (`commerce-proxy ui` and `record`'s page)", ""]
            (work / "ui").mkdir()
            lines += ui.run(work / "ui", count, rounds, seconds, log)
            lines.append("")
        section: list[str] = []
        below: list[str] = []
        if arguments.only == "matrix" or (arguments.quick and arguments.only is None):
            section, below = run_matrix(work, arguments.quick, arguments.rounds, arguments.seconds, log)
            lines += ["## The throughput matrix", "", *section, ""]
    lines.append(f"Whole run: {time.perf_counter() - started:.0f} s.")
    full = (
        not arguments.quick
        and arguments.only is None
        and arguments.subjects is None
        and arguments.ui_exchanges is None
    )
    whole_matrix = not arguments.quick and arguments.only == "matrix"
    output = arguments.output or (DOCS_PAGE if full or whole_matrix else ROOT / "bench-results.md")
    if output == DOCS_PAGE and whole_matrix:  # its own section of the page; the rest stays
        output.write_text(with_matrix(output.read_text(), matrix_section(section)))
    elif output == DOCS_PAGE:  # a full run keeps the matrix section the last matrix run wrote
        output.write_text(page(lines, kept_matrix(output.read_text())))
    else:
        output.write_text("\n".join(lines) + "\n")
    log(f"scripts/bench: wrote {output}")
    # --quick is the benchmarks' smoke test: an incomplete table fails it (scripts/benchmarks/smoke.py).
    whole = arguments.quick and arguments.only is None and arguments.subjects is None
    missing = smoke.problems("\n".join(lines)) if whole else []
    missing += smoke.matrix_problems(section) if arguments.quick and section else []
    for problem in missing:
        log(f"scripts/bench: error: {problem}")
    for shortfall in below:  # last, so a regression is the last thing the run says
        log(f"scripts/bench: below its goal: {shortfall}")
    return 1 if missing else 0


def run_matrix(
    work: Path, quick: bool, rounds: int | None, seconds: float | None, log: Callable[[str], None]
) -> tuple[list[str], list[str]]:
    """The matrix part's lines and the goals it did not meet (its own rounds and durations; --quick: one
    round of 1 s runs on two workloads)."""
    plan = workloads.matrix(quick)
    rounds = rounds or (1 if quick else 2)
    seconds = seconds or (1.0 if quick else 5.0)
    warmup = 1.0 if quick else 2.0  # wrk takes whole seconds
    load = matrix.load_average()
    log(f"matrix: {len(plan)} workloads, {rounds} round(s), {seconds:g} s runs, load {load}")
    (work / "matrix").mkdir()
    groups = matrix.run(work / "matrix", plan, rounds, seconds, warmup, log)
    ended = matrix.load_average()
    lines = [
        f"{datetime.date.today().isoformat()}, {platform.machine()} with {os.cpu_count()} cores; talkback "
        f"{package_version('talkback')}, WireMock {package_version('wiremock')}.",
        "",
        *matrix.report(groups, rounds, seconds, warmup, f"{load} at the start, {ended} at the end"),
    ]
    return lines, matrix.shortfalls(groups)


def settle(work: Path) -> None:
    """Remove the throughput part's files and write back what is dirty before loads are timed: the
    recordings (gigabytes) left the page cache over its dirty limit, and the kernel then throttles any
    process that writes, which a cold load of ours does (its parse cache entry) and vcrpy's does not.
    A 1,000-exchange cold load took 0.24-0.33 s with 1.5 GB dirty, 0.18 s without."""
    for entry in work.iterdir():
        if entry.is_dir():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)
    os.sync()


def header(rounds: int, seconds: float, connections: list[int]) -> list[str]:
    python = ROOT / ".venv" / "bin"
    versions = {
        "commerce-proxy": tool_version([sys.executable, "-m", "proxy", "--version"]),
        "Python": platform.python_version(),
        "nginx": tool_version(["nginx", "-v"]),
        "wrk": tool_version(["wrk", "--version"]),
        "mitmdump": tool_version([str(python / "mitmdump"), "--version"]),
        "talkback": package_version("talkback"),
        "WireMock": package_version("wiremock"),
        "java": tool_version(["java", "-version"]),
        "node": tool_version(["node", "--version"]),
    }
    for package in ("aiohttp", "uvloop", "vcrpy", "cassetter", "PyYAML"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = "not installed"
    versions = {
        name: version.removeprefix("nginx version: ").split(" Copyright")[0]
        for name, version in versions.items()
    }
    return [
        "# commerce-proxy benchmarks",
        "",
        f"{datetime.date.today().isoformat()}, {platform.machine()} with {os.cpu_count()} cores, "
        f"{platform.platform()}; {rounds} interleaved round(s), {seconds:g} s per wrk run, connections "
        f"{', '.join(map(str, connections))}. Medians over rounds; ratios are medians of same-round ratios "
        "(shared, noisy machine: compare within this run).",
        "",
        "Versions: " + ", ".join(f"{name} {version}" for name, version in versions.items()) + ".",
        "",
    ]


def package_version(name: str) -> str:
    import json

    manifest = TOOLS / "node_modules" / name / "package.json"
    return json.loads(manifest.read_text())["version"] if manifest.exists() else "not installed"


if __name__ == "__main__":
    sys.exit(main())
