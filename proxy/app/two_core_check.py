"""`check` of one large cassette on two cores, with the same findings as on one.

The rules cost about five times what reading a cached exchange does, and a process runs them on one core.
So when the parse cache says how many exchanges a cassette has, a forked child checks the last part of
them while this process checks the first. The stateful rules need the history before the child's part:
the child goes through those exchanges too and runs only the observers over them (what they keep does
not depend on what the checks read, see `Session`). It reads only those an observer watches, judged
from each line's request (4 to 5 us an exchange, against 15 to read it and 85 to check it). Its findings come
back pickled through a temporary file this process made, then its count of the exchanges no rule about
the answer judged. If the child fails or hangs, this process, whose history is then exactly the child's
starting point, checks the rest itself.
"""

from __future__ import annotations

import mmap
import pickle
import struct
import time
from collections.abc import Callable, Iterator
from itertools import islice
from pathlib import Path
from typing import BinaryIO

from proxy.core.contract.findings import ContractJudge
from proxy.core.model.exchange import Exchange
from proxy.core.redaction.book import KNOWN
from proxy.core.redaction.echoes import secret_values
from proxy.core.redaction.policy import RedactionPolicy
from proxy.core.rules.engine import PROGRESS_EVERY, Checker
from proxy.core.rules.findings import Finding
from proxy.core.rules.unjudged import UnjudgedTally
from proxy.store.cassette_reader.streaming import stream_history, warm_count
from proxy.workers.choice import runner
from proxy.workers.trailer import trailer_of, write_trailer

# Exchanges (32 MB of bench YAML); below this a fork costs more than it saves: checking costs 85 to 110
# us an exchange, so the first part alone takes 0.2 s here, beside which the fork and the child's pass
# over the history (4 to 5 us an exchange) are small.
SMALLEST_SPLIT = 4000
SHARE = 0.53  # of the exchanges checked here: the child also passes over the history before its part
PATIENCE_S = 30.0  # and twice this process's checking time: then the child is given up
COUNTER = struct.Struct("q")
BATCH_FINDINGS = 1000


def check_stream(
    checker: Checker,
    path: Path,
    exchanges: Iterator[Exchange],
    progress: Callable[[int], None],
    take: Callable[[list[Finding]], None],
    policy: RedactionPolicy | None = None,
) -> None:
    """Check the cassette at `path`, whose exchanges `exchanges` streams, on two cores when it is large
    and cached; its findings go to `take` in exchange order; `progress` hears how many are checked.
    With `policy`, the child learns the secrets of the exchanges it reads and hands them back to this
    process's book (`exchanges` is expected to teach this process those of its own part)."""
    count = warm_count(path)
    if count is None or count < SMALLEST_SPLIT:
        checker.check_into(exchanges, take, progress)
        return
    split = int(count * SHARE)
    shared = mmap.mmap(-1, COUNTER.size)  # the child's progress, written where this process reads it
    child = runner().start(lambda output: _check_from(checker, path, split, shared, output, policy))
    if child is None:
        checker.check_into(exchanges, take, progress)
        return
    started = time.monotonic()
    try:
        checked = 0
        for index, exchange in enumerate(islice(exchanges, split)):
            found = checker.check(exchange, index)
            if found:
                take(found)
            checked = index + 1
            if index % PROGRESS_EVERY == 0:
                progress(checked + COUNTER.unpack_from(shared)[0])
        patience = PATIENCE_S + 2 * (time.monotonic() - started)
        output = child.result(patience, lambda: progress(checked + COUNTER.unpack_from(shared)[0]))
        theirs = trailer_of(output)
        if checked == split and output is not None and theirs is not None:
            checker.checked, batches = theirs
            for _ in range(batches):
                take(pickle.load(output))  # our own child's output, in a file we made
            checker.unjudged.merge(pickle.load(output))
            KNOWN.add(pickle.load(output))
            if isinstance(checker.contract, ContractJudge):
                checker.contract.merge_tally(pickle.load(output))
            return
        # The child failed: this process, having checked exactly the child's history, goes on from there.
        checker.checked = checked
        checker.check_into(exchanges, take, progress, first=checked)
    finally:
        child.stop()
        shared.close()


def _check_from(
    checker: Checker,
    path: Path,
    split: int,
    shared: mmap.mmap,
    output: BinaryIO,
    policy: RedactionPolicy | None,
) -> None:
    """The child's work: observe the exchanges before `split` (those its observers watch: the others
    are passed over unread), check the rest, write its findings in pickled batches as they come (so
    neither process holds them all), its tally of the exchanges it checked that no rule about the
    answer judged, the secrets it learned, what the contract counted (when there is one), then a
    trailer: the count and the number of batches. The count falls short only when the cassette has no
    more than `split` exchanges, and then this process does not take the findings."""
    batch: list[Finding] = []
    batches = count = 0
    checker.unjudged = UnjudgedTally()  # only what this child checks goes back
    contract = checker.contract if isinstance(checker.contract, ContractJudge) else None
    if contract is not None:  # and only what it counts of the contract's coverage
        contract.restart_tally()
    for index, exchange in stream_history(path, split, checker.remembers):
        if index < split:
            checker.observe(exchange, index)
        else:
            if policy is not None:
                KNOWN.add(secret_values(exchange.request, exchange.response, policy))
            batch.extend(checker.check(exchange, index))
            if len(batch) >= BATCH_FINDINGS:
                pickle.dump(batch, output, protocol=pickle.HIGHEST_PROTOCOL)
                batch, batches = [], batches + 1
            if index % PROGRESS_EVERY == 0:
                COUNTER.pack_into(shared, 0, index + 1 - split)
        count = index + 1
    if batch:
        pickle.dump(batch, output, protocol=pickle.HIGHEST_PROTOCOL)
        batches += 1
    pickle.dump(checker.unjudged, output, protocol=pickle.HIGHEST_PROTOCOL)
    pickle.dump(sorted(KNOWN.values), output, protocol=pickle.HIGHEST_PROTOCOL)
    if contract is not None:
        pickle.dump(contract.tally(), output, protocol=pickle.HIGHEST_PROTOCOL)
    write_trailer(output, count, batches)
