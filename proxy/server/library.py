"""The books a replay server answers from: the default one, and one per cassette a request names with
the X-Commerce-Cassette header, loaded on first use."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from proxy.app.replay_setup import ReplayOptions
from proxy.core.replay.book import ReplayBook
from proxy.errors import CommerceProxyError
from proxy.store.cassette_names import resolve_cassette_name
from proxy.store.cassette_reader.loading import load_cassette

log = logging.getLogger(__name__)
CASSETTE_HEADER = "X-Commerce-Cassette"


class Library:
    """The default book, and one book per cassette a request names by header, loaded on first use."""

    def __init__(self, book: ReplayBook, options: ReplayOptions) -> None:
        self.default = book
        self.options = options
        self.chosen: dict[Path, ReplayBook] = {}
        self._loading = asyncio.Lock()

    async def book_for(self, name: str | None) -> ReplayBook:
        """The book that answers a request with this header value (None: no header)."""
        if name is None:
            return self.default
        if self.options.folder is None:
            raise CommerceProxyError(
                f"{CASSETTE_HEADER} needs a cassette folder: start replay with --cassette-dir DIR "
                "(or a folder as --cassette)"
            )
        path = resolve_cassette_name(self.options.folder, name)
        async with self._loading:
            book = self.chosen.get(path)
            if book is None:
                loaded = await asyncio.to_thread(load_cassette, path)
                for note in loaded.notes:
                    log.warning("%s", note)
                book = ReplayBook.build(
                    [
                        (
                            str(self.options.folder / path.relative_to(self.options.folder.resolve())),
                            loaded.cassette,
                        )
                    ],
                    self.default.policy,
                    self.default.redaction,
                    simulate=self.default.simulate,
                )
                book.label = name
                self.chosen[path] = book
        return book

    def books(self) -> list[ReplayBook]:
        """Every book in use, the default first."""
        return [self.default, *self.chosen.values()]

    def reset(self) -> None:
        """Rewind every sequence and simulated state."""
        for book in self.books():
            book.reset()
