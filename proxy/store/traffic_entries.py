"""What an exchange is in the UI's index: the `Entry` the view hands in (already redacted), the form it
is stored in (`prepared`: its row, its detail packed, its rules, its bodies' text), and the row
document the API answers with. Pure data and encoding; `traffic_index.py` does the storing."""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson
import zstandard

BODY_TEXT_LONGEST = 1 << 20  # characters of each body the text search sees
ROW_COLUMNS = (
    "id, cassette, idx, method, target, status, time, duration, size, endpoint, errors, warnings, infos, "
    "answered_by, recording, answered_detail"
)


@dataclass(frozen=True, slots=True)
class Answered:
    """How replay answered a request: by "recording", "simulated", "fault", "miss" or "upstream";
    `recording` "cassette#index" when a recording did; `detail` the near-miss text of a miss."""

    by: str
    recording: str | None = None
    detail: str | None = None


@dataclass(frozen=True, slots=True)
class Entry:
    """One exchange as the index keeps it, redacted: its row's fields, the distinct rules it broke,
    the text of its bodies for the search, and its detail document (stored as zstd-compressed JSON:
    the detail is most of an index's size; a test of the file for secrets decompresses every one)."""

    method: str
    target: str  # path and query, as sent
    route: str  # the path alone, which `path` patterns match
    size: int
    cassette: str | None = None
    index: int | None = None
    status: int | None = None
    time: str | None = None
    duration_ms: float | None = None
    endpoint: str | None = None
    severities: tuple[int, int, int] = (0, 0, 0)  # errors, warnings, infos
    rules: frozenset[str] = frozenset()
    answered: Answered | None = None
    request_text: str = ""
    response_text: str = ""
    detail: dict[str, Any] = field(default_factory=dict)


# An entry as it is stored, less its id: its row, its packed detail, its rules, its bodies' text.
Prepared = tuple[tuple[Any, ...], bytes, tuple[str, ...], str, str]


def prepared(entry: Entry) -> Prepared:
    """What `add` stores of an entry (the detail packed), made where the entry is (a child process)."""
    answered = entry.answered
    row = (
        entry.cassette, entry.index, entry.method, entry.target, entry.status, entry.time,
        entry.duration_ms, entry.size, entry.endpoint, *entry.severities,
        answered.by if answered else None,
        answered.recording if answered else None,
        answered.detail if answered else None,
        entry.route,
    )  # fmt: skip
    return (
        row,
        packed(entry.detail),
        tuple(entry.rules),
        entry.request_text[:BODY_TEXT_LONGEST],
        entry.response_text[:BODY_TEXT_LONGEST],
    )


def packed(document: dict[str, Any]) -> bytes:
    """A detail document as stored: its JSON, compressed with zstd at level 1 (zlib's level 1 made
    about the same size in three times the time: 22 us of a 1 KB exchange's, a tenth of its build)."""
    try:
        text = orjson.dumps(document)  # a fifth of json's time
    except (orjson.JSONEncodeError, TypeError):  # a lone surrogate, an integer past 64 bits...
        text = json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode(
            "utf-8", "surrogatepass"
        )
    return _compressor().compress(text)


def unpacked(stored: bytes) -> dict[str, Any]:
    """A stored detail document back."""
    text = zstandard.ZstdDecompressor().decompress(stored)
    try:
        document: dict[str, Any] = orjson.loads(text)
    except orjson.JSONDecodeError:  # what only json wrote (a lone surrogate)
        document = json.loads(text.decode("utf-8", "surrogatepass"))
    return document


_COMPRESSORS = threading.local()  # a compressor is not thread-safe: the building and live threads


def _compressor() -> zstandard.ZstdCompressor:
    found: zstandard.ZstdCompressor | None = getattr(_COMPRESSORS, "one", None)
    if found is None:
        found = _COMPRESSORS.one = zstandard.ZstdCompressor(level=1)
    return found


def row_document(row: Sequence[Any]) -> dict[str, Any]:
    """A row of `ROW_COLUMNS` as the API's row document."""
    (number, cassette, index, method, target, status, time, duration, size, endpoint, errors, warnings,
     infos, by, recording, detail) = row  # fmt: skip
    return {
        "id": number,
        "cassette": cassette,
        "index": index,
        "method": method,
        "path": target,
        "status": status,
        "time": time,
        "duration_ms": duration,
        "size": size,
        "endpoint": endpoint,
        "findings": {"error": errors, "warning": warnings, "info": infos},
        "answered": None if by is None else {"by": by, "recording": recording, "detail": detail},
    }
