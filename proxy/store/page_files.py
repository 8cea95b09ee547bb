"""The UI page's files (package data in `proxy/ui_page/`), read once: the server answers only a name in
this listing, so no path a client writes can reach another file."""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable

MAX_DEPTH = 3  # ui_page/lib/module.js at most


def page_files(root: Traversable | None = None) -> dict[str, bytes]:
    """Every regular file under `root` (the package's `ui_page` folder by default) by its relative
    name with `/`; empty when there is no such folder. Names starting with `.` or `_` are left out."""
    folder = root if root is not None else resources.files("proxy") / "ui_page"
    found: dict[str, bytes] = {}
    if folder.is_dir():
        _read(folder, "", found, MAX_DEPTH)
    return found


def _read(folder: Traversable, prefix: str, found: dict[str, bytes], depth: int) -> None:
    for entry in folder.iterdir():
        if entry.name.startswith((".", "_")):
            continue
        if entry.is_file():
            found[prefix + entry.name] = entry.read_bytes()
        elif entry.is_dir() and depth > 1:
            _read(entry, f"{prefix}{entry.name}/", found, depth - 1)
