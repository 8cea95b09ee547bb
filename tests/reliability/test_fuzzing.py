"""Coverage-guided fuzzing (atheris) as `scripts/fuzz --target loader|heads|redaction` runs it: every
input loads and writes back the same or is one error line; none escapes the request parser or spoils a
journal; none makes redaction write a planted token."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.reliability.figures import ROOT, write_figure

# Inputs per target. Redaction costs three times what a request head does an input, so it gets
# fewer within the CI budget; `scripts/fuzz --target redaction --runs N` runs as many as wanted.
RUNS = {"heads": 20_000, "redaction": 5_000}


@pytest.mark.long
@pytest.mark.parametrize(
    ("target", "figure", "what"),
    [
        (
            "heads",
            "fuzzed_request_heads",
            "atheris inputs through the request parser and journal, none failing",
        ),
        (
            "redaction",
            "fuzzed_redaction",
            "atheris inputs through redaction with a planted token, none leaking",
        ),
    ],
)
def test_atheris_fuzzes_without_a_failure(tmp_path: Path, target: str, figure: str, what: str) -> None:
    """scripts/fuzz's target runs its inputs with none failing."""
    figures = tmp_path / "figures.json"
    completed = subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "fuzz_cassettes.py"),
            f"--target={target}",
            f"--runs={RUNS[target]}",
            "--seconds=240",
            f"--figures={figures}",
        ],
        capture_output=True,
        text=True,
        timeout=400,
        stdin=subprocess.DEVNULL,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    result = json.loads(figures.read_text(encoding="utf-8"))
    assert result["failures"] == 0 and result["inputs_tried"] == RUNS[target], result
    write_figure(figure, result["inputs_tried"], what)


def test_a_secret_split_between_two_bodies_is_not_written_whole() -> None:
    """An input the redaction fuzzer once reported: the request body ends with `tok` and the response
    body starts with the rest of the token. Neither holds it whole, and each body is searched on its
    own (the harness had joined them end to start)."""
    sys.path.insert(0, str(ROOT / "scripts"))
    from fuzz_targets import TOKEN, redaction_input

    data = b'11\xff\xff\xff\xffen_secret=sh_token": tok' + TOKEN.removeprefix("tok").encode()
    data += b"tok-Fz9q2X7w" + b"\xff" * 9
    assert TOKEN.encode() in data
    redaction_input(data)  # raises when the token is written whole anywhere
