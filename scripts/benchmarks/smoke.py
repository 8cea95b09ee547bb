"""What `scripts/bench --quick` checks of its own table: every subject measured, each loader timed cold and
warm, verify's row complete, and nothing failed. The quick run is the benchmarks' smoke test (the test
suite does not run it), so a subject that stops producing a figure fails it rather than leaving a gap."""

from __future__ import annotations

SUBJECTS = (
    "direct to nginx (the limit)",
    "baseline: aiohttp pass-through + uvloop",
    "commerce-proxy record (recording, checking)",
    "commerce-proxy spy (checking)",
    "commerce-proxy replay",
    "mitmdump --server-replay",
    "talkback (replay)",
    "WireMock (playback)",
)
LOADERS = ["commerce-proxy", "vcrpy", "cassetter"]


def problems(text: str) -> list[str]:
    """What is missing or failed in a quick run's table, one line each (none: the run is whole)."""
    lines = text.splitlines()
    rows = {line.split(" | ")[0].lstrip("| "): line for line in lines if line.startswith("| ")}
    found = []
    for subject in SUBJECTS:
        if subject not in rows:
            found.append(f"no throughput row for {subject}")
        elif not rows[subject].split(" | ")[1].replace(",", "").isdigit():
            found.append(f"{subject} has no requests/s figure")
    loaders = [line.split(" | ")[1] for line in lines if line.startswith("| 1,000 |")]
    if loaders != LOADERS:
        found.append(f"1,000-exchange loads by {loaders}, expected {LOADERS}")
    for load in ("| cold (YAML parsed) |", "| warm (parse cache) |"):
        if load not in text:
            found.append(f"no {load.strip('| ')} load row")
    verify = [line.split(" | ") for line in lines if line.startswith("| verify |")]
    if len(verify) != 1 or verify[0][2:4] != ["50 ms", "8"] or not verify[0][4].endswith(" s"):
        found.append("no complete verify row (50 ms, 8 connections, a time in s)")
    if "failed" in text:
        found.append("a measurement failed: " + next(line for line in lines if "failed" in line))
    return found


def matrix_problems(lines: list[str]) -> list[str]:
    """What is missing in a quick run's matrix: a cell without a replay or record ratio to each peer."""
    found = []
    rows = [
        [cell.strip() for cell in line.strip().strip("|").split("|")]
        for line in lines
        if line.startswith("| ")
    ]
    cells = [row for row in rows if len(row) == 10 and row[2].isdigit()]
    for row in cells:
        if "-" in (row[4], row[5], row[6], row[9]):
            found.append(f"matrix cell {row[1]} at {row[2]} connections lacks a ratio")
    if not any(row[2] == "16" for row in cells):
        found.append("no matrix cell at 16 connections")
    return found
