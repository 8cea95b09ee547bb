"""A parse cache is used only when it is the user's own: a folder (or entry) of another owner, one group
or others may write, or a link, is neither read nor written, whatever entry is planted in it."""

from __future__ import annotations

import logging
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from proxy.core.cassette import document as cassette_format
from proxy.core.cassette.document import Cassette
from proxy.store.cassette_reader import parse_cache
from proxy.store.cassette_reader.loading import read_cassette_file
from proxy.store.saving import save_cassette
from tests.conftest import json_body, make_exchange
from tests.reliability.figures import write_figure

MODES = [0o700, 0o750, 0o755, 0o770, 0o775, 0o777, 0o757, 0o722, 0o702]
Shape = Callable[[Path, Path, pytest.MonkeyPatch], None]


def _shapes() -> dict[str, Shape]:
    """Each way a cache folder can be not the user's own: (folder, a folder outside) -> made so. A
    folder of another owner is the user's folder while the process runs as the next uid."""
    shapes: dict[str, Shape] = {}
    for owner in ("the user", "another user"):
        for mode in MODES:
            if owner == "the user" and not mode & 0o022:
                continue  # the user's own: trusted

            def shape(
                folder: Path, _: Path, monkeypatch: pytest.MonkeyPatch, owner: str = owner, mode: int = mode
            ) -> None:
                folder.chmod(mode)
                if owner == "another user":
                    uid = os.geteuid()
                    monkeypatch.setattr(os, "geteuid", lambda: uid + 1)

            shapes[f"{owner}'s, mode {mode:o}"] = shape

    def linked(folder: Path, outside: Path, _: pytest.MonkeyPatch) -> None:
        shutil.copytree(folder, outside, dirs_exist_ok=True)
        shutil.rmtree(folder)
        folder.symlink_to(outside, target_is_directory=True)

    shapes["a link to a folder of the user's own"] = linked
    return shapes


SHAPES = _shapes()


def _cassette(folder: Path) -> Path:
    path = folder / "c.yaml"
    exchanges = tuple(make_exchange(body=json_body({"name": "Gold", "n": number})) for number in range(3))
    path.write_text(cassette_format.dump_cassette(Cassette(exchanges, "http://127.0.0.1:9")))
    return path


def _cache_folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, Path]]:
    """Where entries go: beside the cassette, and in a COMMERCE_PROXY_CACHE folder."""
    return [("beside", tmp_path / "cassettes" / ".commerce-proxy-cache"), ("DIR", tmp_path / "shared")]


def _use(where: str, folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if where == "beside":
        monkeypatch.delenv("COMMERCE_PROXY_CACHE", raising=False)
    else:
        monkeypatch.setenv("COMMERCE_PROXY_CACHE", str(folder))


@pytest.fixture(autouse=True)
def small(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parse_cache, "SMALLEST_CACHED", 0)
    monkeypatch.setattr(parse_cache, "_warned", set())


def _planted(path: Path, folder: Path) -> None:
    """A valid entry for the cassette as it is, its body changed: read, it would answer 'Evil'."""
    read_cassette_file(path)  # made by a cold load, in the folder while it is still the user's own
    [entry] = [item for item in folder.iterdir() if item.name.endswith(".json")]
    entry.write_bytes(entry.read_bytes().replace(b"Gold", b"Evil"))


def test_a_planted_entry_in_a_folder_not_the_users_own_is_never_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Each cache place by each shape: the cassette loads as its YAML says, with a warning."""
    cases = 0
    for where, folder in _cache_folders(tmp_path, monkeypatch):
        for name, shape in SHAPES.items():
            shutil.rmtree(tmp_path, ignore_errors=True)
            (tmp_path / "cassettes").mkdir(parents=True)
            _use(where, folder, monkeypatch)
            path = _cassette(tmp_path / "cassettes")
            _planted(path, folder)
            with monkeypatch.context() as pretend:
                shape(folder, tmp_path / "outside", pretend)
                parse_cache._warned.clear()
                caplog.clear()
                with caplog.at_level(logging.WARNING):
                    loaded = read_cassette_file(path)
            case = (where, name)
            assert "Evil" not in repr(loaded) and "Gold" in repr(loaded.exchanges[0].response.body.value), (
                case
            )
            assert "neither read nor written" in caplog.text, case
            cases += 1
    write_figure(
        "cache_folders_distrusted", cases, "parse-cache folders not the user's own, none read or written"
    )


def test_a_planted_entry_in_the_users_own_folder_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The control: the same planted entry in a folder of the user's own is what a load gives (so each
    case above could fail). Such an entry is the schema checks' to judge, not the folder's."""
    for where, folder in _cache_folders(tmp_path, monkeypatch):
        _use(where, folder, monkeypatch)
        (tmp_path / "cassettes").mkdir(parents=True, exist_ok=True)
        path = _cassette(tmp_path / "cassettes")
        _planted(path, folder)
        assert "Evil" in repr(read_cassette_file(path).exchanges[0].response.body.value), where


def test_no_entry_is_written_into_a_folder_not_the_users_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A save and a cold load with the cache folder of each shape: no entry appears in it or outside."""
    for where, folder in _cache_folders(tmp_path, monkeypatch):
        for name, shape in SHAPES.items():
            shutil.rmtree(tmp_path, ignore_errors=True)
            (tmp_path / "cassettes").mkdir(parents=True)
            (tmp_path / "outside").mkdir()
            folder.mkdir()
            _use(where, folder, monkeypatch)
            path = _cassette(tmp_path / "cassettes")
            with monkeypatch.context() as pretend:
                shape(folder, tmp_path / "outside", pretend)
                read_cassette_file(path)
                save_cassette(path, read_cassette_file(path))
            written = [item.name for item in (tmp_path / "outside").iterdir()] + [
                item.name for item in folder.iterdir()
            ]
            assert not [item for item in written if item.endswith(".json")], (where, name, written)
