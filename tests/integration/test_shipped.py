"""Every shipped cassette loads, is in the normal layout, holds no secret, and replays itself."""

from __future__ import annotations

from pathlib import Path

import pytest

from proxy.core.cassette.document import dump_cassette
from proxy.core.redaction.redact import RedactionPolicy
from proxy.core.replay.book import ReplayBook
from proxy.core.replay.matching import MatchPolicy
from proxy.store.cassette_folders import cassette_files
from proxy.store.cassette_reader.loading import read_cassette_file
from proxy.store.shipped import shipped_dir
from tests.paths import ROOT

SHIPPED = cassette_files(shipped_dir("cassettes"))


def test_cassettes_are_shipped() -> None:
    """There are example cassettes to replay out of the box."""
    assert len(SHIPPED) >= 2


@pytest.mark.parametrize("path", SHIPPED, ids=lambda path: path.name)
def test_shipped_cassette_is_normal_redacted_and_self_replaying(path: Path) -> None:
    """Loads, re-saves byte for byte, has no sandbox secret, and every request finds its own answer."""
    text = path.read_text()
    cassette = read_cassette_file(path)
    assert dump_cassette(cassette) == text
    assert "sandbox-secret" not in text
    for line in text.splitlines():
        if "Authorization:" in line:
            assert line.strip() == "Authorization: Bearer <redacted>"
    book = ReplayBook.build([(path.name, cassette)], MatchPolicy(), RedactionPolicy())
    for exchange in cassette.exchanges:
        answer = book.answer(exchange.request)
        assert answer is not None and answer.recording.exchange.request == exchange.request


def test_the_example_suites_cassettes_were_recorded_from_the_port_its_sandbox_takes() -> None:
    """tests/example re-records on the port its cassettes name, so re-recording an unchanged sandbox
    changes no byte; a cassette recorded elsewhere would get a new `upstream:` line every time."""
    from tests.example.conftest import SANDBOX_PORT

    folder = ROOT / "tests" / "example" / "cassettes"
    heads = {line for path in folder.rglob("*.yaml") for line in path.read_text().splitlines()[:3]}
    assert {line for line in heads if line.startswith("upstream:")} == {
        f"upstream: http://127.0.0.1:{SANDBOX_PORT}"
    }
