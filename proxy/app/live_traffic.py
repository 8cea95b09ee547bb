"""The live side of the UI's traffic view: a running `record`, `spy` or `replay` hands each exchange
the live checker follows over cheaply (a list append), and it is indexed in batches, at most
`FLUSH_SECONDS` later (`proxy/app/traffic_view.py` answers the reads).

A view made by the server's loop (its first UI request) is indexed by that loop, not by a thread
beside it: Python runs one thread at a time, and a second thread with work to do made the loop wait
for the interpreter after its system calls (a page following `record` at full rate cost the server
about twice as much CPU a request that way). Adding a batch is light SQLite work until a page first
searches the bodies' text; from then on each body is tokenized for the text index (about 230 us of
a 4 KB exchange, which SQLite does without the interpreter's lock), and the batches the loop makes
are added by a writer thread (`BackgroundAdds`); so is a batch whenever the view or its index is held
(a page's large filter counted a step at a time, a fill's chunk of text): the loop never waits for
them. A view made elsewhere (tests) has a thread of its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable, Sequence
from typing import Protocol

from proxy.app.checker_entries import CheckerEntry
from proxy.app.project_rules import shown_baseline
from proxy.app.traffic_rows import searched_texts
from proxy.app.traffic_view import NO_BASELINE, BackgroundAdds, Endpoints, TrafficView, _entry, rules_of
from proxy.core.model.domain import exchange_problem
from proxy.core.model.exchange import Exchange
from proxy.core.redaction.book import KNOWN
from proxy.core.redaction.policy import RedactionPolicy
from proxy.core.rules.config import Baseline
from proxy.core.rules.engine import Checked, Listener
from proxy.core.rules.findings import Finding
from proxy.errors import CommerceProxyError
from proxy.store import clock
from proxy.store.rule_files import RulesInForce
from proxy.store.traffic_entries import Answered, prepared
from proxy.store.traffic_index import TrafficIndex, temporary_index

log = logging.getLogger(__name__)
__all__ = ["LiveView", "live_view"]

FLUSH_SECONDS = 0.05  # how long a live exchange waits, at most, to be indexed
# Exchanges held for the index at once. Past it the serving path indexes them itself: a burst faster
# than the indexing thread slows the server a little rather than holding every exchange in memory
# (3,000 replayed 20 KB answers held about 300 MB, which the allocator kept after they were indexed).
MOST_PENDING = 64
# Batches the loop hands the writer before it waits for it: a first text search over a long session
# holds the index for seconds (about 1.7 s over 100 MB of bodies), and two batches waiting stalled
# the traffic behind it. 64 batches of about 50 exchanges: 2 s of `record` at full rate, about 20 MB
# of 4 KB exchanges (each detail compressed, its bodies' text as is).
WRITER_WAITING = 64


# One exchange waiting for the index: as it was handed over, or (replay) how to make it, called when
# its batch is indexed so the serving path only appends.
Made = Callable[[], tuple[Exchange, list[Finding], Answered]]
# (exchange, findings, sequence, how replay answered it, to redact, judged by the domain gate already,
# its entry as the checker's process made it)
Ready = tuple[Exchange, list[Finding], int | None, Answered | None, bool, bool, object]
Pending = Ready | Made


class LiveIndexer:
    """Takes each exchange from the serving path (a list append) and indexes it, every FLUSH_SECONDS,
    in one transaction per batch: from `loop` when given, else from a thread of its own (a full batch,
    MOST_PENDING, by the thread that brought its last exchange)."""

    def __init__(
        self,
        view: TrafficView,
        endpoints: Endpoints,
        policy: RedactionPolicy | None,
        cassette: str | None,
        loop: asyncio.AbstractEventLoop | None = None,
        accepted: Baseline = NO_BASELINE,
    ) -> None:
        self.view = view
        self._endpoints = endpoints
        self._accepted = accepted  # the findings `check` would not report: left out of the rows
        self._policy = policy
        self._cassette = cassette  # what a checked exchange's row names as its cassette
        self._pending: list[Pending] = []
        self._lock = threading.Lock()
        self._flushing = threading.Lock()
        self._broken = False  # the index failed (a full disk): nothing more is taken
        self._stop = threading.Event()
        self._loop = loop
        self._due = False  # a flush is scheduled on the loop
        self._writer: BackgroundAdds | None = None  # adds the loop's batches once they are heavy
        self._thread: threading.Thread | None = None
        if loop is None:
            self._thread = threading.Thread(target=self._run, name="commerce-proxy-ui-index", daemon=True)
            self._thread.start()

    def checked(self, checked: Checked) -> None:
        """A live checker's follower: the exchange is already redacted."""
        # One with its journal line passed the domain gate when the line was made (`journal_line`).
        judged = checked.line is not None
        self._take((checked.exchange, checked.findings, checked.sequence, None, False, judged, checked.made))

    def answered(self, exchange: Exchange, findings: list[Finding], answered: Answered) -> None:
        """An exchange replay answered (its request as the client sent it: redacted before indexing)."""
        self._take((exchange, findings, None, answered, True, False, None))

    def answered_later(self, made: Made) -> None:
        """As `answered`, the exchange made by `made` when it is indexed."""
        self._take(made)

    def _take(self, item: Pending) -> None:
        with self._lock:
            if self._broken:
                return
            self._pending.append(item)
            full = len(self._pending) >= MOST_PENDING
        # A full batch is indexed by the thread that brought it (the loop's own, or a backlog handed over
        # at once), unless another flush runs (a settle's, off the loop): the loop never waits for one.
        if full and not self._flushing.locked():
            self._flush_safely(settle=False)
        self._schedule()

    def _schedule(self) -> None:
        """A flush on the loop FLUSH_SECONDS from now, unless one is due."""
        loop = self._loop
        with self._lock:
            if loop is None or self._due:
                return
            self._due = True
        with contextlib.suppress(RuntimeError):  # the loop has closed: `stop` indexes what is left
            loop.call_soon_threadsafe(loop.call_later, FLUSH_SECONDS, self._when_due)

    def _when_due(self) -> None:
        with self._lock:
            self._due = False
        if self._flushing.locked():  # a flush off the loop runs: what it did not take, later
            self._schedule()
            return
        self._flush_safely(settle=False)

    def flush(self, settle: bool = True) -> None:
        """Index what is pending now (one flush at a time, so ids keep the order exchanges came in); with
        `settle`, return once it is in the index."""
        with self._flushing:
            with self._lock:
                taken, self._pending = self._pending, []
            now = clock.now()
            made = [item for item in map(_pending, taken) if item[5] or _inside_domain(item[0], item[2], now)]
            book = KNOWN.values
            items = [
                entry.prepared(searched_texts(exchange))
                if isinstance(entry, CheckerEntry) and (entry.book is book or entry.book == book)
                else prepared(
                    _entry(
                        exchange,
                        findings,
                        self._policy if redact else None,
                        self._endpoints,
                        None if redact else self._cassette,
                        number,
                        answered,
                        accepted=self._accepted,
                    )
                )
                for exchange, findings, number, answered, redact, _, entry in made
            ]
            if self._loop is None:
                self.view._add(items)
                return
            # The loop adds a light batch itself when nothing waits for the writer and the view is free
            # now; else the writer thread adds it, after those handed over before.
            writer = self._writer
            idle = writer is None or not writer.busy
            if idle and self.view.adds_are_light and self.view._add(items, wait=False):
                return
            if writer is None:
                writer = self._writer = BackgroundAdds(self.view._add, WRITER_WAITING)
            writer.add(items)
            if settle:
                writer.settle()

    def stop(self) -> None:
        """Index what is pending, then stop: its thread, or the loop's flushes and the writer."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._flush_safely()
        # From now on a late exchange's full batch is added by the thread that brings it, as a view
        # with no loop and no thread would.
        self._loop, writer, self._writer = None, self._writer, None
        if writer is not None:
            with contextlib.suppress(CommerceProxyError):  # said when it happened
                writer.finish()

    def _flush_safely(self, settle: bool = True) -> bool:
        """`flush`, and on a failure (a full disk) the proxy goes on and the UI stops growing."""
        try:
            self.flush(settle)
        except CommerceProxyError as error:
            with self._lock:
                already, self._broken, self._pending = self._broken, True, []
            if not already:
                log.warning("the UI's index stopped taking exchanges: %s", error)
            return False
        return True

    def _run(self) -> None:
        while not self._stop.wait(FLUSH_SECONDS):
            if not self._flush_safely():
                return


def _pending(item: Pending) -> Ready:
    if callable(item):
        exchange, findings, answered = item()
        return exchange, findings, None, answered, True, False, None
    return item


class LiveView(TrafficView):
    """A live server's view: its index a nameless temporary database (`temporary_index`), fed by a
    `LiveIndexer`."""

    def __init__(self, mode: str, index: TrafficIndex, sources: Sequence[str]) -> None:
        super().__init__(mode, index, sources)
        self.indexer: LiveIndexer | None = None

    def add_answered(self, exchange: Exchange, findings: list[Finding], answered: Answered) -> None:
        """Replay (without --check) hands each answered exchange with how it was answered."""
        if self.indexer is not None:
            self.indexer.answered(exchange, findings, answered)

    def add_checked(self, checked: Checked) -> None:
        """A recording's exchange, checked (`LiveIndexer.checked`)."""
        if self.indexer is not None:
            self.indexer.checked(checked)

    def add_answered_later(self, made: Made) -> None:
        """As `add_answered`, the exchange made by `made` off the serving path (replay's hook)."""
        if self.indexer is not None:
            self.indexer.answered_later(made)

    def flush(self) -> None:
        """Index what is pending now (tests, and the end of a session)."""
        if self.indexer is not None:
            self.indexer.flush()

    def close(self) -> None:
        if self.indexer is not None:
            self.indexer.stop()
            self.indexer = None
        super().close()


class Followed(Protocol):
    """What tells a live view of each exchange checked: a live checker, or a recording session (which
    tells of each exchange it keeps even when nothing checks them)."""

    def follow(self, listener: Listener) -> None: ...


def live_view(
    mode: str,
    live: Followed | None,
    in_force: RulesInForce,
    *,
    sources: Sequence[str] = (),
    policy: RedactionPolicy | None = None,
    cassette: str | None = None,
    loop: asyncio.AbstractEventLoop | None = None,
) -> LiveView:
    """The view of a running `record`, `spy` or `replay`: every exchange `live` tells of (a recording
    session's or a live checker's; its row's index is the sequence number, its cassette `cassette`),
    and every one handed to `add_answered`, redacted with `policy` (default: the project's)."""
    index = temporary_index()
    index.defer_text(until_asked=True)  # tokenized for the text search once a page first asks for it
    view = LiveView(mode, index, sources)
    view.cassettes = [cassette] if cassette else []
    view.rules = rules_of(in_force)
    redaction = policy or in_force.project.redaction
    accepted = shown_baseline(in_force)
    indexer = LiveIndexer(view, Endpoints(in_force.ruleset), redaction, cassette, loop, accepted)
    view.indexer = indexer
    if live is not None:
        live.follow(indexer.checked)
    return view


def _inside_domain(exchange: Exchange, number: int | None, now: float) -> bool:
    """The cassette-domain gate for a live exchange (the files' is `Source.exchanges`): one outside it
    is not indexed, and a warning names it."""
    problem = exchange_problem(exchange, now)
    if problem is not None:
        log.warning("the UI leaves out exchange %s: %s", "?" if number is None else number, problem)
    return problem is None
