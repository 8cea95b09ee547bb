"""A cassette as committed, for a test session's replay: the journal a killed recording left beside it
is found and left unread (what to do with it is the user's choice), while a live recording's journal is
read along, as every reader does. Nothing is written. `Loaded` is the type the adapters name for it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from proxy.errors import JournalError
from proxy.store.cassette_reader.loading import Loaded as Loaded
from proxy.store.cassette_reader.loading import load_cassette, read_cassette_file
from proxy.store.journal import is_locked, journal_path, read_journal


def leftover_journal(cassette: Path) -> Path | None:
    """The journal of a recording that did not end (a killed run) beside `cassette`; None when there is
    none, or when a recording is writing it right now (its lock is held)."""
    journal = journal_path(cassette)
    if not journal.exists() or is_locked(journal):
        return None
    return journal


def holds_nothing(journal: Path) -> bool:
    """Whether a leftover journal has no exchange in it (a run stopped as it started, before it recorded
    anything): nothing to fold in or to lose, so a new recording may start over it (its writer empties
    the file first). One that cannot be read is not judged empty."""
    try:
        return not read_journal(journal).exchanges
    except JournalError:
        return False


def load_committed(path: Path, leftover_note: Callable[[Path], str]) -> Loaded:
    """The cassette as it is on disk: a leftover journal is left where it is, unread, and named in the
    note `leftover_note(journal)` says; a live recording's journal is read along, as `load_cassette`
    does, without writing."""
    journal = leftover_journal(path)
    if journal is None:
        return load_cassette(path)
    return Loaded(path, read_cassette_file(path), (leftover_note(journal),))
