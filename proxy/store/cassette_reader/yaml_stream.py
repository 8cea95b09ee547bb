"""A cassette file's exchanges read from its YAML: item by item, filling the parse cache as it goes,
a large file's second half read by a forked child meanwhile; whatever that way of reading does not
take is read by the whole-document parse instead, from where it got to."""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

import yaml

from proxy.core.cassette.document import (
    Cassette,
    NotStreamed,
    parse_cassette,
    streamed_exchange,
    streamed_top,
)
from proxy.core.cassette.plain_items import CassetteItems
from proxy.core.cassette.safe_yaml import NotStreamable
from proxy.core.model.exchange import Exchange
from proxy.errors import CommerceProxyError
from proxy.store import clock
from proxy.store.cassette_reader import second_half
from proxy.store.cassette_reader.parse_cache import EntryWriter, remember_cassette
from proxy.store.cassette_reader.second_half import SecondHalf
from proxy.store.regular_files import file_bytes, opened, text_of


def parsed_whole(path: Path, state: os.stat_result | None) -> Cassette:
    """The whole-document parse, which reports any problem with its line; its result is cached."""
    raw = file_bytes(path)
    cassette = parse_cassette(text_of(raw, path), str(path), clock.now())
    remember_cassette(path, raw, state, cassette)
    return cassette


class YamlExchanges:
    """The YAML's exchanges from number `skip` on, read item by item while the cache entry is written
    (about as fast as the whole-document parse, in memory for one item); once they are all read,
    `top` holds the cassette's own fields (upstream, confirmed_at). A large file is split at `share` of
    it: a child reads the rest, whose exchanges are given as it writes them (`stream_cassette` reads
    less here: it checks each)."""

    def __init__(
        self, path: Path, state: os.stat_result | None, skip: int = 0, share: float = second_half.SHARE
    ) -> None:
        self.path = path
        self.state = state
        self.skip = skip
        self.share = share
        self._top: Cassette | None = None

    @property
    def top(self) -> Cassette:
        """The cassette's own fields, its exchanges aside; known once every exchange has been read."""
        if self._top is None:
            raise RuntimeError("the cassette's fields are known once its exchanges are all read")
        return self._top

    def __iter__(self) -> Iterator[Exchange]:
        path, state, skip, share = self.path, self.state, self.skip, self.share
        index = 0
        writer = EntryWriter.start(path, state)
        second: SecondHalf | None = None
        try:
            with opened(path) as stream:
                if stream.read(2) in (b"\xff\xfe", b"\xfe\xff"):  # UTF-16: the whole parse refuses it
                    raise NotStreamed
                stream.seek(0)
                size = state.st_size if state else 0
                started, now = time.monotonic(), clock.now()
                second = SecondHalf.start(stream.fileno(), size, share)  # a child reads the rest meanwhile
                hashing = _Hashing(stream, second.split if second is not None else None)
                # The writer's items read without the YAML parser: twice as fast as its events from
                # 100 bench exchanges (0.8 MB: 10 ms against 21), 1.7 times at 2,000 (0.29 s against 0.48).
                items = CassetteItems(hashing, size, "exchanges")
                for top, item in items:
                    exchange = streamed_exchange(top, item, index, now)
                    if writer is not None:
                        writer.add(exchange)
                    if index >= skip:
                        yield exchange
                    index += 1
                top = items.top
                found = streamed_top(top)
                if second is not None:
                    if not isinstance(top, dict) or list(top)[-1:] != ["exchanges"]:
                        raise NotStreamed  # the split was not inside the list: read the file whole
                    hashing.rest()
                    patience = second.patience(time.monotonic() - started)
                    for line, exchange in second.exchanges(patience, found.confirmed_at):
                        if writer is not None:
                            writer.add(exchange, line)
                        if index >= skip:
                            yield exchange
                        index += 1
            if writer is not None:
                writer.finish(hashing.digest.hexdigest(), found.upstream, found.confirmed_at)
        except (NotStreamable, NotStreamed, yaml.YAMLError, ValueError):
            if writer is not None:
                writer.abandon()
            # The whole-document parse reports any problem with its line, or reads what streaming does not.
            cassette = parsed_whole(path, state)
            found = cassette
            yield from cassette.exchanges[max(index, skip) :]
        except OSError as error:  # the file could not be read to its end
            if writer is not None:
                writer.abandon()
            raise CommerceProxyError(f"{path}: cannot read: {error.strerror or error}") from None
        except BaseException:
            if writer is not None:
                writer.abandon()
            raise
        finally:
            if second is not None:
                second.stop()
        self._top = found


class _Hashing:
    """A binary stream, ending at `end` when given, that hashes what is read from it (the cache entry's
    key is the YAML's SHA-256)."""

    def __init__(self, stream: BinaryIO, end: int | None = None) -> None:
        self._stream = stream
        self._left = end
        self.digest = hashlib.sha256()

    def read(self, size: int = -1) -> bytes:
        if self._left is not None:
            size = self._left if size < 0 else min(size, self._left)
        chunk = self._stream.read(size)
        if self._left is not None:
            self._left -= len(chunk)
        self.digest.update(chunk)
        return chunk

    def rest(self) -> None:
        """Hash the bytes past the end as well (another process parsed them)."""
        while chunk := self._stream.read(1 << 20):
            self.digest.update(chunk)
