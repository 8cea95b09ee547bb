"""The UI's offline index of one large cassette built on two cores, with the same rows as on one.

As `check` does (`two_core_check.py`): when the parse cache says how many exchanges a cassette has, a
forked child redacts, checks and prepares the rows of the last part of them while this process does the
first part and adds its rows to the index (SQLite, in a thread of its own). The child catches up on the
history before its part through the observers only (redacting the exchanges they watch, since this
process checks redacted exchanges), then sends its prepared rows (their detail documents compressed
already) back in pickled batches through a temporary file this process made, one record each
(`trailer.write_record`), then the secrets it learned. Once its own part is in, this process adds each
batch as soon as it is whole, while the child works on the next: only the child's last batch waits for
the child's end, not all of them.

Redaction depends on the secrets learned before each exchange (`KNOWN`, the book every output is scrubbed
with). The child starts with the book as it is at the fork, so its rows are those one core makes only
when this process's part teaches the book nothing new; otherwise (a cassette holding secrets that were
not redacted when it was written), this process, whose checker has then seen exactly the child's
history, indexes the rest itself. When the child fails or hangs after some batches were added, this
process catches up on their exchanges as the child did on its history (redacted, so the book learns
their secrets; observed) and indexes the rest.
"""

from __future__ import annotations

import contextlib
import pickle
import time
from collections.abc import Callable, Iterator
from itertools import islice
from pathlib import Path
from typing import BinaryIO

from proxy.core.model.exchange import Exchange
from proxy.core.redaction.book import KNOWN
from proxy.core.redaction.policy import RedactionPolicy
from proxy.core.redaction.redact import redact_exchange
from proxy.core.rules.engine import Checker
from proxy.store.cassette_reader.streaming import stream_history, warm_count
from proxy.store.traffic_entries import Entry, Prepared, prepared
from proxy.workers.base import ChildFailed
from proxy.workers.choice import runner
from proxy.workers.trailer import write_record

SMALLEST_SPLIT = 4000  # exchanges; below, a fork costs more than it saves (as for `check`)
SHARE = 0.45  # of the exchanges indexed here: this process also adds every row to SQLite (its thread)
PATIENCE_S = 30.0  # and twice this process's own time: then the child is given up
BATCH = 2000

Build = Callable[[Exchange, int], Entry]  # a redacted exchange, checked, as the index keeps it


def index_stream(
    checker: Checker,
    path: Path | None,
    exchanges: Iterator[Exchange],
    build: Build,
    policy: RedactionPolicy,
    add: Callable[[list[Prepared]], None],
) -> None:
    """Index the exchanges of the cassette at `path` (None: not a cassette) in order: `build` redacts and
    checks one with `checker`; `add` takes batches of them `prepared` (here or by the child)."""
    count = warm_count(path) if path is not None else None
    if path is None or count is None or count < SMALLEST_SPLIT:
        _index_here(enumerate(exchanges), build, add)
        return
    split = int(count * SHARE)
    known = KNOWN.values
    child = runner().start(lambda output: _index_from(checker, path, split, build, policy, output))
    if child is None:
        _index_here(enumerate(exchanges), build, add)
        return
    started = time.monotonic()
    try:
        done = _index_here(enumerate(islice(exchanges, split)), build, add)
        taken = 0
        if done == split and KNOWN.values == known:
            with contextlib.suppress(ChildFailed):
                for record in child.records(PATIENCE_S + 2 * (time.monotonic() - started)):
                    item = pickle.loads(record)  # our own child's output, in a file we made
                    if isinstance(item, tuple):  # its last record: the secrets it learned
                        KNOWN.add(item[1])
                        return
                    add(item)
                    taken += len(item)
        # The child failed, or this part taught the book a secret the child did not know: this
        # process, its checker having seen exactly the child's history, goes on from there, past the
        # rows of the child's it added (their secrets learned and their history observed here).
        for number, exchange in enumerate(islice(exchanges, taken), start=done):
            checker.observe(redact_exchange(exchange, policy), number)
        _index_here(enumerate(exchanges, start=done + taken), build, add)
    finally:
        child.stop()


def _index_here(
    numbered: Iterator[tuple[int, Exchange]], build: Build, add: Callable[[list[Prepared]], None]
) -> int:
    """Index exchanges in this process, in batches `prepared` as they are built: a batch waiting for
    the adding thread holds flat records, not an entry's tree of dicts and lists, which the cyclic
    collector would walk again and again; how many (the last number + 1)."""
    batch: list[Prepared] = []
    count = 0
    for number, exchange in numbered:
        batch.append(prepared(build(exchange, number)))
        count = number + 1
        if len(batch) >= BATCH:
            add(batch)
            batch = []
    add(batch)
    return count


def _index_from(
    checker: Checker, path: Path, split: int, build: Build, policy: RedactionPolicy, output: BinaryIO
) -> None:
    """The child's work: observe the (redacted) exchanges before `split` that the observers watch, build
    and prepare the rest, write them in pickled batches as it goes, then the secrets it learned."""
    batch: list[Prepared] = []
    for index, exchange in stream_history(path, split, checker.remembers):
        if index < split:
            checker.observe(redact_exchange(exchange, policy), index)
        else:
            batch.append(prepared(build(exchange, index)))
            if len(batch) >= BATCH:
                write_record(output, pickle.dumps(batch, protocol=pickle.HIGHEST_PROTOCOL))
                batch = []
    if batch:
        write_record(output, pickle.dumps(batch, protocol=pickle.HIGHEST_PROTOCOL))
    write_record(output, pickle.dumps(("learned", sorted(KNOWN.values)), protocol=pickle.HIGHEST_PROTOCOL))
