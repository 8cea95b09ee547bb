"""Where the shipped `rules/` and `cassettes/` folders are: inside the wheel, or in the checkout."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

PACKAGE = Path(__file__).resolve().parents[1]


def shipped_dir(name: Literal["rules", "cassettes"]) -> Path:
    """The folder as installed with the package, else the one at the top of a source checkout."""
    inside = PACKAGE / "_shipped" / name
    if inside.is_dir():
        return inside
    return PACKAGE.parent / name
