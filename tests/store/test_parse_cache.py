"""The parse cache: a second load of the same bytes skips the YAML; an edit or a damaged entry is a miss."""

from __future__ import annotations

from pathlib import Path

import pytest

from proxy.core.cassette import Cassette
from proxy.store import parse_cache
from proxy.store.files import read_cassette_file, save_cassette
from tests.conftest import json_body, make_exchange


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("COMMERCE_PROXY_CACHE", str(folder))
    monkeypatch.setattr(parse_cache, "SMALLEST_CACHED", 0)
    return folder


def cassette_file(tmp_path: Path, name: str = "Gold") -> Path:
    path = tmp_path / "c.yaml"
    save_cassette(
        path, Cassette((make_exchange(body=json_body({"data": {"name": name, "n": [1, 2.5, None]}})),))
    )
    return path


def test_second_load_comes_from_the_cache_and_is_equal(tmp_path: Path, cache: Path) -> None:
    """The first load writes one private entry; the next returns an equal cassette without parsing."""
    path = cassette_file(tmp_path)
    first = read_cassette_file(path)
    (entry,) = cache.glob("*.marshal")
    assert entry.stat().st_mode & 0o777 == 0o600 and cache.stat().st_mode & 0o777 == 0o700
    assert parse_cache.cached_cassette(path.read_bytes()) == first == read_cassette_file(path)


def test_an_edited_cassette_is_a_miss(tmp_path: Path, cache: Path) -> None:
    """Entries are keyed by the file's bytes, so an edit is parsed afresh."""
    path = cassette_file(tmp_path)
    read_cassette_file(path)
    path.write_text(path.read_text().replace("Gold", "Platinum"))
    assert parse_cache.cached_cassette(path.read_bytes()) is None
    assert read_cassette_file(path).exchanges[0].response.body.value == {
        "data": {"name": "Platinum", "n": [1, 2.5, None]}
    }


def test_a_damaged_entry_falls_back_to_parsing(tmp_path: Path, cache: Path) -> None:
    """A truncated or foreign cache entry is ignored, not an error."""
    path = cassette_file(tmp_path)
    expected = read_cassette_file(path)
    (entry,) = cache.glob("*.marshal")
    entry.write_bytes(b"\x00garbage")
    assert read_cassette_file(path) == expected


def test_cache_off_writes_nothing(tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """COMMERCE_PROXY_CACHE=off parses every time and keeps no entry."""
    monkeypatch.setenv("COMMERCE_PROXY_CACHE", "off")
    read_cassette_file(cassette_file(tmp_path))
    assert not cache.exists()
