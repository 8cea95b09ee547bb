"""A cassette's exchanges one at a time, for a single pass in order (`check`), from its parse cache or
its YAML."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from proxy.core.cassette.cache_line import request_line_of
from proxy.core.model.exchange import Exchange
from proxy.store.cassette_reader import second_half
from proxy.store.cassette_reader.loading import load_cassette
from proxy.store.cassette_reader.parse_cache import cached_count, cached_exchanges, file_state
from proxy.store.cassette_reader.yaml_stream import YamlExchanges
from proxy.store.journal import journal_path

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Streamed:
    """A cassette's exchanges for one pass, read as they are used, and anything worth telling."""

    path: Path
    exchanges: Iterator[Exchange]
    notes: tuple[str, ...] = field(default=())


def stream_cassette(path: Path) -> Streamed:
    """A cassette's exchanges one at a time, for a single pass in order (`check`): memory holds about
    one exchange, not the cassette, however many it has.

    They come from the parse cache when it has the file, else from the YAML read item by item (which
    fills the cache as it goes). Anything that way of reading does not take (an older format, merge
    keys or tags, any problem at all) is read by the whole-document parse instead, from where it got to,
    so a cassette gives the same exchanges and the same errors, with their lines, either way. A cassette
    with a journal beside it is loaded whole, as `load_cassette` recovers it.
    """
    if journal_path(path).exists():
        loaded = load_cassette(path)
        return Streamed(path, iter(loaded.cassette.exchanges), loaded.notes)
    return Streamed(path, (exchange for _, exchange in _numbered(path, second_half.CHECKED_SHARE)))


def stream_history(
    path: Path, split: int, wanted: Callable[[str, str, str], bool]
) -> Iterator[tuple[int, Exchange]]:
    """`stream_cassette`'s exchanges numbered, less those before number `split` whose request (method,
    path, query) is not `wanted`, passed over unread when the parse cache has them: a checker catching
    up on the history before its part needs only what its observers watch."""
    if journal_path(path).exists():
        return enumerate(stream_cassette(path).exchanges)

    def passed_over(index: int, line: bytes) -> bool:
        request = request_line_of(line) if index < split else None
        return request is not None and not wanted(*request)

    return _numbered(path, second_half.CHECKED_SHARE, passed_over)


def warm_count(path: Path) -> int | None:
    """How many exchanges `stream_cassette` will give from the parse cache, known before reading them;
    None when the cassette is not streamed from the cache (a miss, a journal beside it)."""
    if journal_path(path).exists():
        return None
    return cached_count(path, file_state(path))


def _numbered(
    path: Path, share: float, passed_over: Callable[[int, bytes], bool] | None = None
) -> Iterator[tuple[int, Exchange]]:
    """The exchanges with their numbers, from the cache (less the lines `passed_over` names) or else
    from the YAML."""
    state = file_state(path)
    given = 0  # lines of the cache entry gone through
    cached = cached_exchanges(path, state)
    if cached is not None:
        try:
            for line in cached.lines():
                if passed_over is None or not passed_over(given, line):
                    yield given, cached.exchange(line)
                given += 1
            return
        except (OSError, ValueError, TypeError) as error:  # a damaged entry: the YAML has the rest
            log.debug("cache entry for %s is damaged: %s", path, error)
    yield from enumerate(YamlExchanges(path, state, given, share), start=given)
