"""The one writer: the user's permissions, nothing left behind, a link refused wherever it is on the way."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from proxy.errors import CommerceProxyError, UsageError
from proxy.store.writing import LinkRefused, write_file


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002, 0o000])
def test_a_file_is_made_with_the_users_permissions(tmp_path: Path, umask: int) -> None:
    old = os.umask(umask)
    try:
        write_file(tmp_path / "new.yaml", "a\n", "the file")
        existing = tmp_path / "old.yaml"
        existing.write_text("old\n")
        existing.chmod(0o600)
        write_file(existing, "b\n", "the file")
    finally:
        os.umask(old)
    for path in (tmp_path / "new.yaml", existing):
        assert path.stat().st_mode & 0o777 == 0o666 & ~umask, path
    assert sorted(path.name for path in tmp_path.iterdir()) == ["new.yaml", "old.yaml"]


def test_a_failed_write_leaves_the_old_file_and_no_temporary_one(tmp_path: Path) -> None:
    target = tmp_path / "c.yaml"
    target.write_text("old\n")

    def pieces():  # type: ignore[no-untyped-def]
        yield "new"
        raise RuntimeError("the maker failed")

    with pytest.raises(RuntimeError):
        write_file(target, pieces(), "the file")
    assert target.read_text() == "old\n" and [path.name for path in tmp_path.iterdir()] == ["c.yaml"]


@pytest.mark.parametrize("depth", range(4))
@pytest.mark.parametrize("relative", [False, True])
def test_a_link_at_any_folder_on_the_way_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, depth: int, relative: bool
) -> None:
    """a/b/c/d/f.yaml with one of a..d a link to a folder outside holding the rest of the path."""
    names = ["a", "b", "c", "d"]
    outside = tmp_path / "outside"
    (outside / Path(*names[depth + 1 :]) if depth < 3 else outside).mkdir(parents=True)
    (tmp_path / Path(*names[:depth])).mkdir(parents=True, exist_ok=True)
    (tmp_path / Path(*names[: depth + 1])).symlink_to(outside, target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    target = Path(*names, "f.yaml") if relative else tmp_path / Path(*names, "f.yaml")
    with pytest.raises(LinkRefused, match=f"{names[depth]}: is a symbolic link"):
        write_file(target, "x", "the file", create_folders=True)
    assert not list(outside.rglob("f.yaml"))


def test_a_fifo_or_folder_at_the_name_is_refused_without_waiting(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo.yaml")
    (tmp_path / "folder.yaml").mkdir()
    with pytest.raises(UsageError, match="not a regular file"):
        write_file(tmp_path / "fifo.yaml", "x", "the file")
    with pytest.raises(CommerceProxyError, match="is a folder"):
        write_file(tmp_path / "folder.yaml", "x", "the file")
