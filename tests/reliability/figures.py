"""The reliability figures: each test that proves one writes it to `reliability-results.json` and checks
that the docs' reliability page quotes the same value, so the two cannot drift apart.

Only counts and ceilings go in (inputs tried, faults survived, exchanges lost, the memory ceiling a run
stayed under): they are the same on every run. Measured times and sizes go to the test's output.
"""

from __future__ import annotations

import fcntl
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "reliability-results.json"
PAGE = ROOT / "docs" / "reliability.md"


def page_rows() -> dict[str, str]:
    """The `| figure | what | value |` rows of the reliability page, by figure."""
    text = PAGE.read_text(encoding="utf-8")
    rows = re.findall(r"^\| `([a-z0-9_]+)` \| (.+?) \| (.+?) \|$", text, re.MULTILINE)
    return {key: value for key, _, value in rows}


def row_value(value: int | str) -> str:
    return f"{value:,}" if isinstance(value, int) else value


def write_figure(key: str, value: int | str, what: str) -> None:
    """Record one figure in the results file (kept sorted; safe from parallel test workers) and fail
    when the reliability page quotes another value for it."""
    with open(RESULTS, "a+", encoding="utf-8") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        handle.seek(0)
        text = handle.read()
        figures = json.loads(text) if text.strip() else {}
        figures[key] = {"value": value, "what": what}
        handle.seek(0)
        handle.truncate()
        handle.write(json.dumps(dict(sorted(figures.items())), indent=2, ensure_ascii=False) + "\n")
    quoted = page_rows().get(key)
    assert quoted == row_value(value), (
        f"docs/reliability.md quotes {key} as {quoted!r}; the tests measured {row_value(value)!r}"
    )
