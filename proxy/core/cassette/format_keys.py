"""The cassette format's keys, level by level, and how an older version's document becomes today's.
`document.py`'s writer writes no other key, and its reader refuses any other where it is read, since a
command that rewrites the cassette (an edit, a recording into it) would drop it without a word. Pure."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from proxy.core.model.confirmation import CONFIRMED_KEY

FORMAT_KEY = "cassette_format"
BODY_KINDS = ("json", "text", "base64")
TOP_KEYS = frozenset((FORMAT_KEY, "upstream", CONFIRMED_KEY, "exchanges"))
EXCHANGE_KEYS = frozenset(("recorded_at", "duration_ms", "request", "response"))
REQUEST_KEYS = frozenset(("method", "path", "query", "headers", "decoded_from", *BODY_KINDS))
RESPONSE_KEYS = frozenset(("status", "reason", "headers", "decoded_from", *BODY_KINDS))


def key_outside(keys: Iterable[object], allowed: frozenset[str]) -> tuple[str, str] | None:
    """The first of `keys` not in `allowed`, with the line that refuses it; None when all are."""
    for key in keys:
        if key not in allowed:
            return str(key), (
                f"not a key of the cassette format (here: {', '.join(sorted(allowed))}); a command that "
                "rewrites the cassette would drop it: keep notes in YAML comments"
            )
    return None


# Each entry turns a document of version N into one of version N + 1.
MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {}


def _from_format_1(document: dict[str, Any]) -> dict[str, Any]:
    """Format 1 held JSON bodies as YAML structure, which is what format 2's texts parse to: no change."""
    return document


MIGRATIONS[1] = _from_format_1
