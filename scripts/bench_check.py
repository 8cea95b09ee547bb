"""Benchmark `commerce-proxy check` on a large cassette: wall time of the real command, loading included.

The cassette repeats the shipped cassettes' recorded sandbox traffic (lists, feature updates, entry reads,
refusals) up to --exchanges. "cold" is the first run of a fresh process on a newly written cassette (an empty parse cache); "warm"
runs the same command again (the parse cache filled). The split (YAML parse, cache load, rule checking) is
measured in-process. Cycling the recordings splices unrelated histories, so a few stateful findings
(an update that "forgot" a description) are expected.
Figures are ratios within one run on a shared machine: compare them with each other, not across runs.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from proxy.core.cassette import Cassette, parse_cassette
from proxy.core.conformance import Checker
from proxy.store.files import load_cassette, read_cassette_file, save_cassette
from proxy.store.rule_files import load_rules
from proxy.store.shipped import shipped_dir


def build(count: int, path: Path) -> int:
    """Write a cassette of `count` exchanges cycled from the shipped cassettes; returns its size in bytes."""
    recorded = []
    for cassette in sorted(shipped_dir("cassettes").glob("*.yaml")):
        recorded.extend(read_cassette_file(cassette).exchanges)
    exchanges = tuple(recorded[index % len(recorded)] for index in range(count))
    save_cassette(path, Cassette(exchanges, upstream="http://127.0.0.1:9000"))
    return path.stat().st_size


def timed_check(path: Path) -> tuple[float, int]:
    """Wall seconds of `commerce-proxy check --format json PATH` in a new process, and its exit code."""
    started = time.perf_counter()
    done = subprocess.run(  # noqa: S603 - our own command on our own file
        [sys.executable, "-m", "proxy", "check", "--format", "json", "-o", str(path.with_suffix(".json")), str(path)],
        capture_output=True,
        check=False,
    )
    return time.perf_counter() - started, done.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--exchanges", type=int, default=50_000)
    arguments = parser.parse_args()
    count = arguments.exchanges
    with tempfile.TemporaryDirectory() as folder:
        os.environ["COMMERCE_PROXY_CACHE"] = str(Path(folder) / "cache")  # ours, removed at the end
        path = Path(folder) / "large.yaml"
        size = build(count, path)
        print(f"cassette: {count} exchanges, {size / 1e6:.1f} MB of YAML")
        cold, code = timed_check(path)
        warm, _ = timed_check(path)
        started = time.perf_counter()
        parse_cassette(path.read_text(encoding="utf-8"), str(path))
        parsed = time.perf_counter() - started
        started = time.perf_counter()
        cassette = load_cassette(path).cassette
        cached = time.perf_counter() - started
        rules = load_rules(shipped_dir("rules"))
        started = time.perf_counter()
        findings = Checker(rules).check_all(cassette.exchanges)
        checked = time.perf_counter() - started
    print(f"check, cold (new process, first run):  {cold:7.2f} s  {count / cold:9.0f} exchanges/s  (exit {code})")
    print(f"check, warm (same command again):      {warm:7.2f} s  {count / warm:9.0f} exchanges/s")
    print(f"in-process: parsing the YAML           {parsed:7.2f} s  {count / parsed:9.0f} exchanges/s")
    print(f"in-process: loading from the cache     {cached:7.2f} s  {count / cached:9.0f} exchanges/s")
    print(f"in-process: the rules ({len(findings)} findings) {checked:7.2f} s  {count / checked:9.0f} exchanges/s")
    print(f"warm is {cold / warm:.1f}x faster than cold; the YAML parse is {parsed / checked:.0f}x the rule checking")


if __name__ == "__main__":
    main()
