"""A cassette's `confirmed_at` reaches every exchange by every reader (the whole-document parse, the
streamed YAML with its forked second half, the warm parse cache, `check`'s stream), and a value outside
its domain is refused by each of them with the file and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from proxy.core.cassette import document as cassette_format
from proxy.core.cassette.document import Cassette
from proxy.errors import CassetteFormatError
from proxy.store.cassette_reader import parse_cache, second_half
from proxy.store.cassette_reader.loading import read_cassette_file
from proxy.store.cassette_reader.streaming import stream_cassette
from tests.conftest import json_body, make_exchange

DATE = "2026-03-04"


@pytest.fixture(autouse=True)
def cached(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COMMERCE_PROXY_CACHE", raising=False)
    monkeypatch.setattr(parse_cache, "SMALLEST_CACHED", 0)


def cassette_file(tmp_path: Path, confirmed_at: str | None, count: int = 3) -> Path:
    path = tmp_path / "c.yaml"
    exchanges = tuple(make_exchange(body=json_body({"data": {"n": number}})) for number in range(count))
    path.write_text(cassette_format.dump_cassette(Cassette(exchanges, "http://127.0.0.1:9", confirmed_at)))
    return path


@pytest.mark.parametrize("split", [False, True])
def test_every_reader_gives_every_exchange_the_cassettes_confirmed_at(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, split: bool
) -> None:
    started: list[object] = []
    if split:  # the second half read by a forked child, whatever the size
        monkeypatch.setattr(second_half, "SMALLEST_SPLIT", 0)
        start = second_half.SecondHalf.start
        monkeypatch.setattr(
            second_half.SecondHalf, "start", lambda *a, **k: started.append(start(*a, **k)) or started[-1]
        )
    path = cassette_file(tmp_path, DATE, count=40)
    assert f"confirmed_at: '{DATE}'\nexchanges:" in path.read_text()
    whole = cassette_format.parse_cassette(path.read_text(), str(path))
    cold = read_cassette_file(path)  # streamed, and the cache entry written
    warm = read_cassette_file(path)  # from the cache
    streamed = list(stream_cassette(path).exchanges)
    for cassette in (whole, cold, warm):
        assert cassette.confirmed_at == DATE
        assert {exchange.confirmed_at for exchange in cassette.exchanges} == {DATE}
    assert {exchange.confirmed_at for exchange in streamed} == {DATE} and len(streamed) == 40
    assert cassette_format.dump_cassette(warm) == path.read_text()  # written back as it was
    assert any(started) == split


def test_a_cassette_without_it_reads_and_writes_as_before(tmp_path: Path) -> None:
    path = cassette_file(tmp_path, None)
    text = path.read_text()
    assert "confirmed_at" not in text
    for cassette in (read_cassette_file(path), read_cassette_file(path)):
        assert cassette.confirmed_at is None and cassette_format.dump_cassette(cassette) == text


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("'2026-02-30'", "expected a date like '2026-11-22'"),
        ("'yesterday'", "expected a date like '2026-11-22'"),
        ("'2026-03-04T10:00:00Z'", "expected a date like '2026-11-22'"),
        ("12", "expected a date like '2026-11-22'"),
        ("'2999-01-01'", "expected a day before now"),
    ],
)
def test_a_confirmed_at_outside_its_domain_is_refused_with_its_line(
    tmp_path: Path, value: str, problem: str
) -> None:
    path = cassette_file(tmp_path, DATE)
    path.write_text(path.read_text().replace(f"'{DATE}'", value))
    for read in (read_cassette_file, lambda p: list(stream_cassette(p).exchanges)):
        with pytest.raises(CassetteFormatError) as caught:
            read(path)
        assert f"{path}:4: confirmed_at: {problem}" in str(caught.value)
