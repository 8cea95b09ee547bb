"""Every generated bomb (tests/codings.py: 1 GiB of zeros in each coding, in many small members, and at
the start of every chain of two and three codings) is refused at the 50 MiB limit, each decoded in a
fresh process whose peak RSS stays under the ceiling the docs promise."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from proxy.core.model.bodies import MAX_DECODED_BYTES
from tests.codings import bombs
from tests.reliability.bomb_runner import REFUSED
from tests.reliability.figures import write_figure

CEILING_MB = 200
ROOT = Path(__file__).resolve().parents[2]


def test_every_bomb_is_refused_within_the_memory_ceiling(tmp_path: Path) -> None:
    """Each bomb in a process of its own: refused (BodyTooLarge), its peak RSS under 200 MB."""
    made = bombs()
    for number, bomb in enumerate(made):
        (tmp_path / f"{number}.body").write_bytes(bomb.body)
        (tmp_path / f"{number}.json").write_text(json.dumps(bomb.lines))
    run = subprocess.run(
        [sys.executable, "-m", "tests.reliability.bomb_runner", str(tmp_path), str(MAX_DECODED_BYTES)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    results = {int(row["body"]): row for row in map(json.loads, run.stdout.splitlines())}
    assert sorted(results) == list(range(len(made)))
    not_refused = [made[number].name for number, row in results.items() if row["exit"] != REFUSED]
    assert not not_refused, not_refused
    peaks = {made[number].name: row["peak_kb"] / 1024 for number, row in results.items()}
    worst = max(peaks, key=peaks.__getitem__)
    print(f"{len(made)} bombs refused; highest peak RSS {peaks[worst]:.0f} MB ({worst})")
    assert peaks[worst] < CEILING_MB, (worst, peaks[worst])
    write_figure(
        "inflation_bombs",
        len(made),
        f"compressed bodies inflating past the limit, refused under {CEILING_MB} MB RSS",
    )
