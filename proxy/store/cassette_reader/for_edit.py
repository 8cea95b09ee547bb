"""A cassette read to be rewritten by an edit: its text as on disk beside what it holds."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from proxy.core.cassette.comments import comment_line
from proxy.core.cassette.document import Cassette, parse_cassette
from proxy.store import clock
from proxy.store.cassette_reader.loading import load_cassette
from proxy.store.cassette_reader.parse_cache import cached_cassette, file_state
from proxy.store.journal import is_locked, journal_path
from proxy.store.regular_files import file_bytes, text_of


@dataclass(frozen=True, slots=True)
class Editable:
    """A cassette about to be rewritten: its text as on disk and the line of a hand-written comment."""

    path: Path
    cassette: Cassette
    text: str
    comment_line: int | None


def load_for_edit(path: Path) -> Editable:
    """Read a cassette for an edit (the file alone: a `record` writing it meanwhile adds its exchanges
    to the file as the edit leaves it, under the lock every writer takes)."""
    journal = journal_path(path)
    if journal.exists() and not is_locked(journal):
        load_cassette(path)  # fold the journal of a recording that died into the file first
    state = file_state(path)
    raw = file_bytes(path)
    text = text_of(raw, path)
    cassette = cached_cassette(path, state) or parse_cassette(text, str(path), clock.now())
    return Editable(path, cassette, text, comment_line(text))
