"""The parse cache beside each cassette: a warm load skips the YAML; any change to the file is a miss."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from proxy.core.cassette import cache_line
from proxy.core.cassette import document as cassette_format
from proxy.core.cassette.document import Cassette
from proxy.core.model.exchange import Exchange, JSONFromText
from proxy.store.cassette_reader import for_edit, parse_cache, yaml_stream
from proxy.store.cassette_reader.for_edit import load_for_edit
from proxy.store.cassette_reader.loading import read_cassette_file
from proxy.store.saving import save_cassette
from tests.conftest import json_body, make_exchange, make_request


@pytest.fixture(autouse=True)
def beside(monkeypatch: pytest.MonkeyPatch) -> None:
    """Entries beside the cassettes (the default), for cassettes of any size."""
    monkeypatch.delenv("COMMERCE_PROXY_CACHE", raising=False)
    monkeypatch.setattr(parse_cache, "SMALLEST_CACHED", 0)


def cassette_file(tmp_path: Path, name: str = "Gold") -> Path:
    path = tmp_path / "c.yaml"
    exchanges = tuple(
        make_exchange(body=json_body({"data": {"name": name, "n": [number, 2.5, None]}}))
        for number in range(3)
    )
    path.write_text(cassette_format.dump_cassette(Cassette(exchanges, "http://127.0.0.1:9")))
    return path


def entry_of(path: Path) -> Path:
    return path.parent / ".commerce-proxy-cache" / f"{path.name}.json"


def no_yaml(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any parse of the YAML, whole or item by item, fails the test."""

    def refuse(*arguments: object, **options: object) -> Cassette:
        raise AssertionError("the YAML was parsed")

    monkeypatch.setattr(yaml_stream, "parse_cassette", refuse)
    monkeypatch.setattr(for_edit, "parse_cassette", refuse)
    monkeypatch.setattr(yaml_stream, "CassetteItems", refuse)


def test_a_warm_load_is_equal_and_neither_parses_nor_reads_the_yaml(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = cassette_file(tmp_path)
    first = read_cassette_file(path)
    entry = entry_of(path)
    assert entry.stat().st_mode & 0o777 == 0o600
    assert (entry.parent / ".gitignore").read_text().splitlines()[-1] == "*"
    no_yaml(monkeypatch)
    monkeypatch.setattr(parse_cache, "RACY_NS", 0)  # the file is old enough: its stat is trusted
    monkeypatch.setattr(Path, "open", guarded_open(path))
    warm = read_cassette_file(path)
    assert warm == first
    body = warm.exchanges[0].response.body
    assert isinstance(body, JSONFromText)  # parsed when first read, not at load
    assert body.value == {"data": {"name": "Gold", "n": [0, 2.5, None]}}


def guarded_open(forbidden: Path):  # type: ignore[no-untyped-def]
    """`Path.open`, failing the test for `forbidden` (`read_bytes` and the hash open it this way)."""
    original = Path.open

    def opened(self: Path, *arguments, **options):  # type: ignore[no-untyped-def]
        assert self != forbidden, "the YAML was read"
        return original(self, *arguments, **options)

    return opened


def test_a_racy_entry_is_confirmed_by_hashing_the_file_in_chunks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hash that confirms an entry reads the YAML in chunks, never whole (memory stays flat)."""
    path = cassette_file(tmp_path)
    expected = read_cassette_file(path)  # racy: written within RACY_NS of the file
    no_yaml(monkeypatch)

    def whole(self: Path) -> bytes:
        raise AssertionError("the YAML was read whole")

    monkeypatch.setattr(Path, "read_bytes", whole)
    assert read_cassette_file(path) == expected


def test_an_edit_is_a_miss_even_at_the_same_size_and_mtime(tmp_path: Path) -> None:
    path = cassette_file(tmp_path)
    read_cassette_file(path)
    before = path.stat()
    path.write_text(path.read_text().replace("Gold", "Bold"))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # what a careless tool might do
    assert path.stat().st_size == before.st_size
    assert read_cassette_file(path).exchanges[0].response.body.value == {
        "data": {"name": "Bold", "n": [0, 2.5, None]}
    }


def test_a_file_changed_just_before_its_entry_is_confirmed_by_its_hash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = cassette_file(tmp_path)
    expected = read_cassette_file(path)  # written within RACY_NS of the file: racy
    entry = entry_of(path)
    no_yaml(monkeypatch)
    assert read_cassette_file(path) == expected  # the hash matched
    key, _, rest = entry.read_bytes().partition(b"\n")
    entry.write_bytes(key[:-8] + b"00000000\n" + rest)  # as if the bytes had changed under the same stat
    with pytest.raises(AssertionError, match="was parsed"):
        read_cassette_file(path)


def test_a_damaged_or_foreign_entry_falls_back_to_parsing(tmp_path: Path) -> None:
    path = cassette_file(tmp_path)
    expected = read_cassette_file(path)
    entry = entry_of(path)
    key, _, rest = entry.read_bytes().partition(b"\n")
    for damaged in (b"\x00garbage", key + b"\n" + rest[:-9], key + b'\n{"upstream": 1, "exchanges": []}'):
        entry.write_bytes(damaged)
        assert read_cassette_file(path) == expected


def test_save_writes_the_entry_so_the_first_load_after_recording_is_warm(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "recorded.yaml"
    cassette = Cassette((make_exchange(body=json_body({"data": []})),))
    save_cassette(path, cassette)
    assert entry_of(path).exists()
    no_yaml(monkeypatch)
    assert read_cassette_file(path) == cassette
    assert load_for_edit(path).cassette == cassette


def test_cache_off_writes_nothing_and_a_folder_setting_moves_entries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COMMERCE_PROXY_CACHE", "off")
    path = cassette_file(tmp_path)
    read_cassette_file(path)
    assert not entry_of(path).parent.exists()
    monkeypatch.setenv("COMMERCE_PROXY_CACHE", str(tmp_path / "elsewhere"))
    read_cassette_file(path)
    assert not entry_of(path).parent.exists()
    assert len(list((tmp_path / "elsewhere").glob("*-c.yaml.json"))) == 1
    no_yaml(monkeypatch)
    assert read_cassette_file(path).exchanges[0].response.body.value["data"]["name"] == "Gold"  # type: ignore[index,call-overload]


@given(
    method=st.text(max_size=8),
    path=st.text(max_size=30),
    query=st.text(max_size=30),
    recorded_at=st.none() | st.text(max_size=30),
    duration=st.none() | st.floats(allow_nan=False, allow_infinity=False),
)
def test_a_request_line_read_off_an_entry_line_is_the_requests_or_none(
    method: str, path: str, query: str, recorded_at: str | None, duration: float | None
) -> None:
    request = make_request(method=method, path=path, query=query)
    line = cache_line.entry_line(Exchange(request, make_exchange().response, recorded_at, duration))
    read = cache_line.request_line_of(line)
    assert read in (None, (method, path, query))
    written_plainly = all(
        character >= " " and character not in '"\\'
        for character in method + path + query + (recorded_at or "")
    )  # JSON writes these with an escape
    assert (read is not None) == written_plainly


def test_a_request_line_is_not_read_off_what_is_not_an_entry_line() -> None:
    line = cache_line.entry_line(make_exchange(make_request(path="/v2/pröducts", query="a=1")))
    assert cache_line.request_line_of(line) == ("GET", "/v2/pröducts", "a=1")
    for other in (
        b'{"upstream":null,"count":1}\n',
        line[1:],
        line.replace(b'"GET"', b"7"),
        b"[" + b"\xff" * 9,
    ):
        assert cache_line.request_line_of(other) is None
