"""Writing cassettes and other files atomically, through the one writer (`proxy.store.writing`)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path

from proxy.core.cassette.document import Cassette, dump_cassette
from proxy.core.redaction.book import KNOWN
from proxy.core.redaction.echoes import scrub_exchange
from proxy.errors import CommerceProxyError
from proxy.store.cassette_reader.parse_cache import file_state, remember_cassette
from proxy.store.writing import NewFile, folder_lock, write_file


def save_cassette(
    path: Path, cassette: Cassette, before_replacing: Callable[[str], None] | None = None
) -> None:
    """Write a cassette atomically under the cassette's lock (missing folders are made), and its
    parse cache.

    `before_replacing` is given the SHA-256 of the new file's bytes before they are written (a
    recording seals its journal with it); if it raises, nothing is written. Every exchange is
    scrubbed by the process's book of secrets as it is now: one recorded before a secret was learned
    (a token in a path, then sent as a bearer) does not keep it.
    """
    cassette = scrubbed(cassette)
    raw = dump_cassette(cassette).encode("utf-8")
    with folder_lock(path):
        new = NewFile(path, "the cassette")
        try:
            new.handle.write(raw)
            if before_replacing is not None:
                before_replacing(hashlib.sha256(raw).hexdigest())
        except OSError as error:
            new.abandon()
            raise CommerceProxyError(f"{path}: cannot write the cassette: {error.strerror}") from None
        except BaseException:
            new.abandon()
            raise
        new.commit()
    remember_cassette(path, raw, file_state(path), cassette)


def scrubbed(cassette: Cassette) -> Cassette:
    """The cassette with every secret the process knows replaced wherever it stands."""
    known = KNOWN.values
    if not known:
        return cassette
    exchanges = tuple(scrub_exchange(exchange, known) for exchange in cassette.exchanges)
    unchanged = all(new is old for new, old in zip(exchanges, cassette.exchanges, strict=True))
    return cassette if unchanged else replace(cassette, exchanges=exchanges)


def write_atomically(path: Path, text: str | Iterable[str], what: str = "the file") -> None:
    """Write text (whole, or piece by piece as it is made) through a temporary file and a rename:
    readers see the old file or the new one. A link, folder, FIFO or device at `path` or a link on the
    way to it is refused, never written through or over."""
    write_file(path, text, what)
