"""A cassette key the format does not have (a note, a typo, another tool's field) is refused where the
cassette is read, one line naming the file, its line and the key, by every reader (the streaming
reader, the whole-document parse, a journal's fold), so no command that rewrites the cassette (an
edit, a recording into it) drops it without a word. Before, `cassette set` silently wrote the
cassette back without it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from proxy.core.cassette.document import parse_cassette
from proxy.errors import CommerceProxyError
from proxy.store.cassette_reader.loading import load_cassette

EXCHANGE = """\
- recorded_at: '2026-11-01T10:00:00Z'
  request:
    method: GET
    path: /v2/x
    headers:
      Accept: application/json
  response:
    status: 200
    headers:
      Content-Type: text/plain
    text: hello
"""
# (where, the line a key is put after, its indent)
PLACES = {
    "top": ("cassette_format: 2\n", ""),
    "exchange": ("  request:\n", "  "),
    "request": ("    path: /v2/x\n", "    "),
    "response": ("    status: 200\n", "    "),
}
KEYS = ["note", "my_annotation", "Request", "jsn", "x-trace", "interactions", "'42'"]


def cassette_text(place: str, key: str, exchanges: int = 3) -> str:
    text = "cassette_format: 2\nexchanges:\n" + EXCHANGE * exchanges
    after, indent = PLACES[place]
    at = text.index(after) + len(after) if place != "exchange" else text.index(after)
    return text[:at] + f"{indent}{key}: kept by the user\n" + text[at:]


@pytest.mark.parametrize("place", sorted(PLACES))
def test_every_reader_refuses_a_key_outside_the_format_naming_it(tmp_path: Path, place: str) -> None:
    for number, key in enumerate(KEYS):
        path = tmp_path / f"c{number}.yaml"
        text = cassette_text(place, key)
        path.write_text(text)
        line = text[: text.index(f"{key}: kept")].count("\n") + 1
        shown = key.strip("'")
        for reader in ("streaming", "whole"):
            with pytest.raises(CommerceProxyError) as refused:
                load_cassette(path) if reader == "streaming" else parse_cassette(text, str(path))
            said = str(refused.value)
            assert f":{line}:" in said and shown in said and "not a key of the cassette format" in said, said
            assert "\n" not in said


@pytest.mark.parametrize("place", sorted(PLACES))
def test_an_edit_of_such_a_cassette_is_refused_and_the_file_left_as_it_was(
    tmp_path: Path, place: str
) -> None:
    path = tmp_path / "c.yaml"
    text = cassette_text(place, "note")
    path.write_text(text)
    done = subprocess.run(
        [sys.executable, "-m", "proxy", "cassette", "set", str(path), "0", "status", "201"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2 and "not a key of the cassette format" in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and path.read_text() == text
