"""Every shell and Python example of the README and the docs runs as written, or says why it cannot
run offline: a `<!-- runs -->` or `<!-- not run: REASON -->` line stands right above each one
(`<!-- runs with pytest -->`: a test module, which test_docs_test_modules.py runs with pytest).

Examples that run do so in a fresh folder where `cassettes/` holds the shipped examples and `c.yaml`,
`a.yaml` and `b.yaml` stand for a user's cassettes (the docs say so), with `commerce-proxy` on PATH."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from proxy.store.shipped import shipped_dir
from tests.paths import ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"^```(sh|python)\n(.*?)^```", re.MULTILINE | re.DOTALL)
MARKER = re.compile(r"<!-- (runs|runs with pytest|not run: .+) -->")


def examples() -> list[tuple[str, str, str, str]]:
    """(page:line, language, marker or "", code) for each example."""
    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for block in BLOCK.finditer(text):
            line = text.count("\n", 0, block.start()) + 1
            above = text[: block.start()].rstrip("\n").rsplit("\n", 1)[-1]
            marker = MARKER.fullmatch(above)
            where = f"{page.relative_to(ROOT)}:{line}"
            found.append((where, block[1], marker[1] if marker else "", block[2]))
    return found


EXAMPLES = examples()


def test_every_example_runs_or_says_why_not() -> None:
    unmarked = [where for where, _, marker, _ in EXAMPLES if not marker]
    assert not unmarked, f"examples with no <!-- runs --> or <!-- not run: REASON --> line above: {unmarked}"
    assert any(marker == "runs" for _, _, marker, _ in EXAMPLES)


@pytest.mark.parametrize(
    ("where", "language", "code"),
    [(where, language, code) for where, language, marker, code in EXAMPLES if marker == "runs"],
    ids=[where for where, _, marker, _ in EXAMPLES if marker == "runs"],
)
def test_an_example_runs_as_written(where: str, language: str, code: str, tmp_path: Path) -> None:
    shutil.copytree(shipped_dir("cassettes"), tmp_path / "cassettes")
    shutil.copy(tmp_path / "cassettes" / "pagination-walk.yaml", tmp_path / "c.yaml")
    for name in ("a.yaml", "b.yaml"):
        shutil.copy(tmp_path / "cassettes" / "demo-session.yaml", tmp_path / name)
    command = ["bash", "-e", "-c", code] if language == "sh" else [sys.executable, "-c", code]
    environment = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    environment.pop("CI", None)
    done = subprocess.run(
        command,
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert done.returncode == 0, (
        f"{where}: exit {done.returncode}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
    )
