"""The README's quick start, run as a new user runs it: `scripts/run demo`."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_scripts_run_demo(tmp_path: Path) -> None:
    """`scripts/run demo` exits 0 and reports the full offline replay, from any working directory."""
    finished = subprocess.run(
        [str(ROOT / "scripts" / "run"), "demo", "--cassette", str(tmp_path / "demo.yaml")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )
    assert finished.returncode == 0, finished.stderr
    assert "replayed 18/18 requests offline" in finished.stdout
    assert (tmp_path / "demo.yaml").is_file()
