"""`check` memory does not grow with the number of findings: they go to a spool on disk and the report
is written piece by piece (a report of 100,000 findings took 260 MB when they were all kept)."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.reliability.figures import write_figure

FINDINGS = 100_000  # one info finding an exchange: an undocumented endpoint
RSS_CEILING_MB = 160
TIME_CEILING_S = 120


def many_findings(path: Path) -> None:
    with path.open("w", encoding="utf-8") as handle:
        handle.write("cassette_format: 2\nexchanges:\n")
        for number in range(FINDINGS):
            handle.write(
                f"- request: {{method: GET, path: /v2/unknown/{number}}}\n"
                "  response: {status: 404, json: '{\"errors\": []}'}\n"
            )


def check_peak_mb(arguments: list[str], cwd: Path) -> int:
    """Run `check` (exit 0 expected: info findings only); its peak RSS in MB, from VmHWM read while it
    runs (ru_maxrss would start at this test process's size: Linux carries it across fork and exec)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "proxy", "check", "--per-rule", "0", *arguments],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    status = Path(f"/proc/{process.pid}/status")
    deadline = time.monotonic() + TIME_CEILING_S
    peak_kb = 0
    while process.poll() is None and time.monotonic() < deadline:
        with contextlib.suppress(OSError):  # gone between poll and read
            for line in status.read_text().splitlines():
                if line.startswith("VmHWM:"):
                    peak_kb = max(peak_kb, int(line.split()[1]))
        time.sleep(0.02)
    if process.poll() is None:
        process.kill()
    assert process.wait() == 0
    return peak_kb // 1024


@pytest.mark.long
def test_check_memory_stays_flat_with_a_hundred_thousand_findings(tmp_path: Path) -> None:
    """Cold (one core, building the parse cache) and warm (two cores, the child's findings in batches),
    JSON and text: every finding reported, each run under the ceiling."""
    many_findings(tmp_path / "many.yaml")
    peaks = {}
    for run, report_format in (("cold", "json"), ("warm", "json"), ("warm-text", "text")):
        output = f"{run}.{report_format}"
        arguments = ["many.yaml", "--format", report_format, "-o", output]
        peaks[run] = check_peak_mb(arguments, tmp_path)
    print(f"peak RSS of check, MB: {peaks}")
    cold = json.loads((tmp_path / "cold.json").read_text(encoding="utf-8"))
    warm = json.loads((tmp_path / "warm.json").read_text(encoding="utf-8"))
    assert cold == warm
    assert len(cold["findings"]) == cold["counts"]["info"] == FINDINGS
    assert [finding["exchange"] for finding in warm["findings"]] == list(range(FINDINGS))
    text = (tmp_path / "warm-text.text").read_text(encoding="utf-8")
    assert f"coverage.undocumented-endpoint  ({FINDINGS}x)" in text
    assert text.count("\n    #") == FINDINGS
    assert max(peaks.values()) < RSS_CEILING_MB, peaks
    write_figure(
        "check_findings_flat", FINDINGS, f"findings one `check` reported, peak RSS under {RSS_CEILING_MB} MB"
    )
