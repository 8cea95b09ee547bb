"""Reading a large cassette's YAML on two cores: a forked child reads the second half of the exchanges.

Reading the YAML is the whole cost of a cold load (the items the writer makes, read without the parser,
and anything else through PyYAML's events), and it cannot be spread over threads. A cassette's
exchanges are a block list at column 0, so a line that starts with "- " splits it into two lists that
parse on their own: this process reads the items before the split while a child it forks reads those
after it, writes them as parse cache lines to a temporary file and exits. The result is used only when
both halves parse cleanly and the split fell inside the list; otherwise the caller reads the file the
ordinary way, so a cassette loads the same either way.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import BinaryIO

from proxy.core.cassette.cache_line import closing_line, entry_line
from proxy.core.cassette.document import FORMAT_VERSION, NotStreamed, streamed_exchange
from proxy.core.cassette.format_keys import FORMAT_KEY
from proxy.core.cassette.plain_items import CassetteItems
from proxy.core.model.exchange import Exchange
from proxy.store import clock
from proxy.store.cassette_reader.parse_cache import CachedExchanges
from proxy.workers.base import Child, ChildFailed
from proxy.workers.choice import runner

# Bytes of YAML (about 500 bench exchanges); below this a fork costs more than it saves. It pays with
# a free second core: 10,000 bench exchanges (79 MB) cold in 1.44-1.76 s against 3.1-3.2 s on one; at
# 6 MB with both cores busy with other work it gained nothing (0.60 s against 0.54).
SMALLEST_SPLIT = 4 * 1024 * 1024
HEAD_BYTES = 64 * 1024  # where the top-level keys before the list must be
WINDOW_BYTES = 1024 * 1024  # where after the middle an item must start
SHARE = 0.45  # of the file read here: this process also takes in the child's exchanges afterwards
# Read here when each exchange is also checked here: the checks of this share and of the child's
# exchanges, taken in as it writes them, last about as long as the child's parse of the rest.
CHECKED_SHARE = 0.2
PATIENCE_S = 30.0  # and twice the time the child's share should take: then the child is given up
FLUSH_EVERY = 64  # exchanges the child writes between flushes: this process reads them as they come


def split_point(fd: int, size: int, share: float = SHARE) -> int | None:
    """The offset of an item line ("- " at column 0) just after `share` of the file, when the head is
    plain top-level keys and then `exchanges:` (no directives or document markers); else None."""
    if size < SMALLEST_SPLIT:
        return None
    head = os.pread(fd, HEAD_BYTES, 0)
    listed = head.find(b"\nexchanges:\n")
    if listed < 0 or head.startswith((b"%", b"---")) or b"\n%" in head or b"\n---" in head:
        return None
    middle = max(int(size * share), listed + 1)
    window = os.pread(fd, WINDOW_BYTES, middle)
    found = window.find(b"\n- ")
    return None if found < 0 else middle + found + 1


class SecondHalf:
    """The exchanges after `split`, read by a child process while this one reads those before it."""

    def __init__(self, child: Child, split: int, share: float) -> None:
        self.child = child
        self.split = split
        self.share = share

    @classmethod
    def start(cls, fd: int, size: int, share: float = SHARE) -> SecondHalf | None:
        """Fork the child that reads the file open at `fd` (`size` bytes) after a split point near
        `share` of it; None when the file has no split point or the system cannot fork."""
        split = split_point(fd, size, share)
        if split is None:
            return None
        child = runner().start(lambda output: _read_into(fd, split, size, output))
        return None if child is None else cls(child, split, share)

    def patience(self, took: float) -> float:
        """How long to wait for the child once this process took `took` seconds for its part: its share
        should take it (1 - share) / share as long; given twice that, and PATIENCE_S more, something is
        wrong."""
        return PATIENCE_S + 2 * took * (1 - self.share) / self.share

    def exchanges(self, patience: float, confirmed_at: str | None = None) -> Iterator[tuple[bytes, Exchange]]:
        """The child's exchanges with their parse cache lines, each as soon as the child has written it
        (`confirmed_at`: the cassette's, read by this process before the list);
        NotStreamed when it could not read its half, or is not done `patience` seconds from now, and
        ValueError if its output is damaged. Those given before either come from its clean part."""
        try:
            followed = _Followed(self.child.lines(patience))
            yield from CachedExchanges(followed, confirmed_at).with_lines()  # type: ignore[arg-type]  # reads lines only
        except (ChildFailed, OSError):  # `stop` kills it; OSError: the temporary file, not the cassette
            raise NotStreamed from None

    def stop(self) -> None:
        """Stop the child if it still runs, and drop its output."""
        self.child.stop()


def _read_into(fd: int, split: int, size: int, output: BinaryIO) -> None:
    """The child's work: the items after `split` as parse cache lines, then the closing line; raises at
    anything the first half's reader would not take the same way."""
    header = f"{FORMAT_KEY}: {FORMAT_VERSION}\nexchanges:\n".encode()
    items = CassetteItems(_Range(fd, split, size, header), size, "exchanges")
    count = 0
    now = clock.now()
    for top, item in items:
        output.write(entry_line(streamed_exchange(top, item, count, now)))
        count += 1
        if count % FLUSH_EVERY == 0:
            output.flush()
    if list(items.top) != [FORMAT_KEY, "exchanges"]:  # keys after the list: read the file whole
        raise NotStreamed
    output.write(closing_line(None, count))
    output.flush()


class _Followed:
    """The child's lines as a stream for `CachedExchanges`: iterated line by line as they come, and
    `read` after the closing line gives any line after it (b"" at the end)."""

    def __init__(self, lines: Iterator[bytes]) -> None:
        self._lines = lines

    def __enter__(self) -> _Followed:
        return self

    def __exit__(self, *exception: object) -> None:
        return None

    def __iter__(self) -> Iterator[bytes]:
        return self._lines

    def read(self, size: int = -1) -> bytes:
        return next(self._lines, b"")


class _Range:
    """`prefix`, then bytes `start` to `end` of the file open at `fd`, read with pread (the parent's
    file position is shared and stays its own)."""

    def __init__(self, fd: int, start: int, end: int, prefix: bytes) -> None:
        self._fd = fd
        self._at = start
        self._end = end
        self._prefix = prefix

    def read(self, size: int = -1) -> bytes:
        if self._prefix:
            chunk, self._prefix = self._prefix, b""
            return chunk
        wanted = self._end - self._at if size < 0 else min(size, self._end - self._at)
        if wanted <= 0:
            return b""
        chunk = os.pread(self._fd, wanted, self._at)
        self._at += len(chunk)
        return chunk
