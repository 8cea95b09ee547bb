"""Spellings of a first path segment that a server in front of an upstream (or the upstream) may read
as another: the class `access.ours` and `access.unreadable_target` decide, drawn for the tests."""

from __future__ import annotations

import random
from dataclasses import dataclass
from urllib.parse import quote

# Characters NFKC folds into each letter of `_proxy` (full-width, superscript, mathematical, ordinal).
EQUIVALENTS = {
    "_": ["_", "\uff3f"],
    "p": ["p", "P", "\uff50", "\u1d56", "\U0001d429"],
    "r": ["r", "R", "\uff52", "\u02b3"],
    "o": ["o", "O", "\uff4f", "\u1d52", "\u00ba"],
    "x": ["x", "X", "\uff58", "\u02e3"],
    "y": ["y", "Y", "\uff59", "\u02b8"],
}
SUFFIXES = ["", ".", "..", "%2e", "%2E", "%00", "%20", "%09", " ", "\t", "\x00", ";a", "#x", "?q", ". %00"]
PREFIXES = ["/", "//", "//127.0.0.1:{port}/", "//localhost/", "/./", "/x/../", "\\", "/%2F"]
RESTS = ["/ui/", "/ui/api/info", "/health", "/", ""]
NOT_OURS = ["_proxyx", "_prox", "proxy", "x_proxy", "_pro_xy", "v2", "_proxy_"]


@dataclass(frozen=True)
class Spelling:
    target: str
    level: int  # how many times the first segment was percent-encoded as a whole


def _escape(text: str, upper: bool) -> str:
    escaped = quote(text, safe="")
    return escaped if upper else escaped.lower()


def segment(rng: random.Random, name: str | None = None) -> str:
    """`_proxy` (or `name`) with each character drawn from its NFKC equivalents, some escaped."""
    chars = []
    for char in name or "_proxy":
        drawn = rng.choice(EQUIVALENTS.get(char, [char])) if name is None else char
        escaped = not drawn.isascii() or rng.random() < 0.3
        chars.append(_escape(drawn, rng.random() < 0.5) if escaped else drawn)
    return "".join(chars)


def draw(
    rng: random.Random, port: int, name: str | None = None, wire: bool = False, rest: str | None = None
) -> Spelling:
    """One member: a prefix, the segment with a suffix encoded 0-6 times, the rest. `wire`: only what a
    request line can carry (no raw space, tab or NUL: those go escaped)."""
    first = segment(rng, name) + rng.choice(SUFFIXES)
    if wire:
        first = first.replace(" ", "%20").replace("\t", "%09").replace("\x00", "%00")
    level = rng.choice([0, 0, 1, 2, 3, 4, 5, 6])
    for _ in range(level):
        first = _escape(first, rng.random() < 0.5)
    prefix = rng.choice(PREFIXES).format(port=port)
    return Spelling(prefix + first + (rng.choice(RESTS) if rest is None else rest), level)
