"""A file named twice among the inputs of the UI (or of `check`, `verify`, `replay`) is one source: every way of spelling it (relative with `./`
or `..`, absolute, a symbolic or hard link, the folder holding it) drawn in pairs and triples, in any
order, gives each file once, as it was first named; the view lists its exchanges once."""

from __future__ import annotations

import itertools
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from proxy.app.project_rules import project_rules
from proxy.app.traffic_sources import sources_of
from proxy.app.traffic_view import offline_view
from proxy.store.cassette_folders import cassette_paths
from proxy.store.shipped import shipped_dir

WALK = shipped_dir("cassettes") / "pagination-walk.yaml"


def _spellings(root: Path) -> dict[str, Callable[[], Path]]:
    """Names of `root/cas/shop.yaml`, each made when asked."""
    shop = root / "cas" / "shop.yaml"

    def linked() -> Path:
        link = root / "link.yaml"
        if not link.exists():
            link.symlink_to(shop)
        return link

    def hard() -> Path:
        other = root / "hard.yaml"
        if not other.exists():
            os.link(shop, other)
        return other

    return {
        "plain": lambda: Path("cas/shop.yaml"),
        "dotted": lambda: Path("./cas/shop.yaml"),
        "up-and-back": lambda: Path("cas/../cas/shop.yaml"),
        "absolute": lambda: shop,
        "symlink": linked,
        "hard link": hard,
        "folder": lambda: Path("cas"),
    }


@pytest.mark.parametrize("size", [2, 3])
def test_a_file_named_twice_is_one_source(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: int) -> None:
    (tmp_path / "cas").mkdir()
    shutil.copyfile(WALK, tmp_path / "cas" / "shop.yaml")
    monkeypatch.chdir(tmp_path)
    spellings = _spellings(tmp_path)
    single = len(
        list(
            offline_view([Path("cas/shop.yaml")], project_rules(tmp_path), cache=False).window(
                *_everything()
            )["exchanges"]
        )
    )
    for names in itertools.permutations(spellings, size):
        paths = [spellings[name]() for name in names]
        sources = sources_of(paths)
        assert len(sources) == 1, names
        assert len(cassette_paths(paths)) == 1, names  # check, verify, replay and the plugin read these
        first = paths[0] if names[0] != "folder" else Path("cas") / "shop.yaml"
        assert sources[0].path == first, names
    view = offline_view(
        [Path("cas/shop.yaml"), tmp_path / "cas" / "shop.yaml"], project_rules(tmp_path), cache=False
    )
    assert len(view.window(*_everything())["exchanges"]) == single > 0
    assert view.sources == ["cas/shop.yaml"]
    view.close()


def _everything() -> tuple[object, int, int]:
    from proxy.core.ui.query import Query

    return Query(), 0, 500
