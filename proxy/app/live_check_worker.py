"""Live checking in a child process, so the rules never hold up the traffic that `record` and `spy` carry.

The proxy hands each redacted exchange to a checker process over a pipe, in the order the exchanges
completed, and goes on serving; the child runs every rule (with the session's history) and sends back
each exchange's findings, which are logged and kept as in-process checking does. The two run on two
cores: on this machine checking costs about 190 us an exchange, as much as forwarding and journaling.

Nothing is checked twice or skipped: `/_proxy/findings` and the end of the session wait until the
child has answered for every exchange handed over. If the child dies, the exchanges it had not
answered for are checked in the proxy's own process, and so is everything after (logged as a warning).

Both pipes carry frames (a 4-byte length, then JSON): an exchange travels as its journal line, the
very bytes `record` wrote to its journal; an answer is `[sequence, findings, unjudged]`, the last the
exchange's `Unjudged` verdict or null when a rule about the answer judged it, each finding the list of its
fields (`Finding.to_values`: half the reading of its JSON document; `answer_frame`,
`read_answer`).

For `record` and `spy`, whose process logs in the commands' format (`lines_direct`), the findings of
the answers one read brings are written as lines at once (`command_log.write_lines`: each scrubbed by
the book as it is then, as every log line), not as a log record each: a record a line cost the
proxy's loop, its busiest core, a sixth of its time under load. They are written here, where the
answers arrive, never by the child: the child does not know what the proxy learned since, and a line
it wrote was not yet an answer the proxy had heard (a take-over would write it again).

The proxy never blocks on a full pipe while it could be reading answers, so the two processes cannot
wait on each other: past BACKLOG_BYTES handed over and not yet taken, the proxy reads answers until the
child catches up (the child sets the pace).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import io
import logging
import os
import select
import struct
import subprocess
import sys
from collections import deque
from collections.abc import Callable, Iterator
from itertools import islice
from typing import Any, BinaryIO

import orjson

from proxy.app.checker_entries import (
    ENTRIES,
    CheckerEntry,
    EntryMaker,
    entries_frame,
    exchange_frame,
    read_exchange_frame,
)
from proxy.app.command_log import write_lines
from proxy.core.cassette.document import exchange_from_document
from proxy.core.cassette.journal_line import journal_line, parse_json_line
from proxy.core.model.exchange import Exchange
from proxy.core.redaction.book import KNOWN
from proxy.core.reports.escaping import visible
from proxy.core.rules.engine import (
    Checked,
    Checker,
    Listener,
    LiveChecker,
    finding_lines,
    follow_findings,
    report_findings,
)
from proxy.core.rules.findings import Finding, FindingsLog
from proxy.core.rules.unjudged import Unjudged, UnjudgedTally
from proxy.store.rule_files import RuleSource

log = logging.getLogger(__name__)

FRAME = struct.Struct(">I")
READ_BYTES = 1 << 20
WRITTEN_AT_ONCE = 256  # buffers in one writev (Linux takes 1,024)
PIPE_BYTES = 1 << 20  # each pipe's room (Linux: /proc/sys/fs/pipe-max-size is 1 MiB by default)
BACKLOG_BYTES = 4 << 20  # handed over but not yet in the pipe: past this, wait for the child
ANSWER_WAIT = 60.0  # seconds without an answer, at the end of a session, before giving up on the child


class CheckWorker:
    """A LiveChecker whose checking happens in a child process; findings arrive a moment later."""

    def __init__(
        self,
        source: RuleSource,
        fallback: Callable[[], Checker],
        kept: int = 1000,
        lines_direct: bool = False,
    ) -> None:
        self.log = FindingsLog(kept)
        self.listeners: list[Listener] = []  # added by `follow`
        self._logged = True
        self._lines_direct = lines_direct  # findings' lines written as lines, not log records
        self.unjudged = UnjudgedTally()  # from the child's verdicts (or the take-over's checker)
        self._fallback = fallback
        self._local: LiveChecker | None = None
        # each exchange handed over: its sequence, itself, its journal line, the book of secrets then
        self._unanswered: deque[tuple[int, Exchange, bytes | None, frozenset[str]]] = deque()
        self._outgoing = Outbox()
        self._chunk = bytearray(READ_BYTES)  # each read of answers lands here: no megabyte made a read
        self._incoming = bytearray()
        self._caught_up: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._writing = False
        self._flush_due = False  # a write is scheduled for this turn of the event loop
        self._entries = False  # the child makes each exchange's UI entry (`make_entries`)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "proxy.app.live_check_worker", source.to_argument()],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            cwd=source.start,
            # Out of the terminal's process group: Ctrl-C or a closed terminal stops the proxy, which
            # then closes the pipe (a signal mid-import printed the child's traceback).
            start_new_session=True,
        )
        assert self.process.stdin is not None and self.process.stdout is not None
        self._to_child = self.process.stdin.fileno()
        self._from_child = self.process.stdout.fileno()
        for fd in (self._to_child, self._from_child):
            os.set_blocking(fd, False)
            _widen(fd)

    @property
    def logged(self) -> bool:
        """Whether findings are logged one line each (a follower that shows them turns it off)."""
        return self._logged

    @logged.setter
    def logged(self, value: bool) -> None:
        self._logged = value
        if self._local is not None:
            self._local.logged = value

    def check(self, exchange: Exchange, sequence: int, encoded: bytes | None = None) -> list[Finding]:
        """Hand one exchange over (its findings are reported when they come back); returns none now.

        `encoded` is its journal line when it has one: handed over as it is, not encoded again.
        """
        if self._local is not None:
            return self._local.check(exchange, sequence)
        self._attach()
        line = encoded or journal_line(sequence, exchange)
        self._outgoing.add(exchange_frame(line, exchange) if self._entries else line)
        self._unanswered.append((sequence, exchange, encoded, KNOWN.values))
        if self._caught_up is not None:
            self._caught_up.clear()
        if self._loop is None:
            self._flush()
        elif not (self._writing or self._flush_due):  # else the loop writes when the pipe has room
            self._flush_due = True  # what this turn of the loop hands over goes in one write
            self._loop.call_soon(self._flush_when_due)
        while self._outgoing.size > BACKLOG_BYTES and self._local is None:
            self._wait(1.0)  # reads answers while the child takes what is handed over
        return []

    def make_entries(self, cassette: str | None) -> None:
        """From now on the child answers each exchange with its UI index entry too (`checker_entries`);
        what was handed over before comes without one. Safe from any thread: the loop hands it over."""
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._ask_entries, cassette)
        else:
            self._ask_entries(cassette)

    def _ask_entries(self, cassette: str | None) -> None:
        if self._local is None and not self._entries:
            self._entries = True
            self._outgoing.add(entries_frame(cassette))
            self._flush()

    def follow(self, listener: Listener, *, quiet: bool = False) -> None:
        """`follow_findings` on this checker: findings come as the child answers (or this process, once
        it has taken over; the followers go with it)."""
        follow_findings(self, listener, quiet=quiet)

    async def caught_up(self) -> None:
        """Return once every exchange handed over has its findings reported: by the child, or, when it
        gives no answer for ANSWER_WAIT seconds, by this process (a stuck child never hangs a caller)."""
        if self._caught_up is not None and self._local is None:
            try:
                await asyncio.wait_for(self._caught_up.wait(), ANSWER_WAIT)
            except TimeoutError:
                self.process.kill()
                self._take_over(f"the checker process gave no answer in {ANSWER_WAIT:g} s")

    def close(self) -> None:
        """Wait for the child to answer for everything, then stop it (the end of the session)."""
        self._detach()
        while self._unanswered and self._local is None:
            if not self._wait(ANSWER_WAIT):
                self.process.kill()
                self._take_over(f"the checker process gave no answer in {ANSWER_WAIT:g} s")
        if self.process.stdin is not None:
            with contextlib.suppress(OSError):
                self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()

    # --- the pipes -------------------------------------------------------------------------------

    def _attach(self) -> None:
        """Read answers (and write what is left over) from the event loop, once one is running."""
        if self._loop is not None:
            return
        try:
            self._loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # a synchronous caller: answers are read whenever it hands an exchange over
        self._caught_up = asyncio.Event()
        self._loop.add_reader(self._from_child, self._read_answers)

    def _detach(self) -> None:
        if self._loop is not None:
            with contextlib.suppress(RuntimeError, ValueError, OSError):
                self._loop.remove_reader(self._from_child)
            with contextlib.suppress(RuntimeError, ValueError, OSError):
                self._loop.remove_writer(self._to_child)
            self._loop = None
            self._writing = False
        if self._caught_up is not None:
            self._caught_up.set()

    def _flush_when_due(self) -> None:
        self._flush_due = False
        self._flush()

    def _flush(self) -> None:
        """Write as much of what is handed over as the pipe takes now."""
        try:
            self._outgoing.write_to(self._to_child)
        except BlockingIOError:
            pass
        except OSError:
            self._take_over("the checker process is gone")
            return
        if self._loop is not None and bool(self._outgoing) != self._writing:
            if self._outgoing:
                self._loop.add_writer(self._to_child, self._flush)
            else:
                self._loop.remove_writer(self._to_child)
            self._writing = bool(self._outgoing)

    def _wait(self, seconds: float) -> bool:
        """Block until the child answers or takes more (True), or `seconds` pass with neither (False)."""
        writers = [self._to_child] if self._outgoing else []
        readable, writable, _ = select.select([self._from_child], writers, [], seconds)
        if writable:
            self._flush()
        if readable:
            self._read_answers()
        return bool(readable or writable)

    def _read_answers(self) -> None:
        """Take every answer the pipe holds and report its findings."""
        try:
            while True:
                got = os.readv(self._from_child, [self._chunk])
                if not got:
                    self._take_over("the checker process stopped")
                    return
                self._incoming += memoryview(self._chunk)[:got]
        except BlockingIOError:
            pass
        except OSError:
            self._take_over("the checker process stopped")
            return
        lines: list[str] = []  # the findings' lines of the answers this read brought (`lines_direct`)
        try:
            self._take_answers(lines)
        finally:
            if lines:
                write_lines(lines)
        if not self._unanswered and self._caught_up is not None:
            self._caught_up.set()

    def _take_answers(self, lines: list[str]) -> None:
        """Report each whole answer received (its lines to `lines`); a failed helper's answer: take over."""
        incoming = self._incoming
        start = 0  # what was taken goes at the end in one cut: one cut a frame moved all the rest
        try:
            while len(incoming) - start >= FRAME.size:
                (size,) = FRAME.unpack_from(incoming, start)
                if len(incoming) - start - FRAME.size < size:
                    break
                start += FRAME.size + size
                if not self._take_answer(incoming[start - size : start], lines):
                    return
        finally:
            del incoming[:start]

    def _take_answer(self, payload: bytes | bytearray, lines: list[str]) -> bool:
        """Report one answer (its lines to `lines`); False when it was a failed helper's (taken over)."""
        try:
            sequence, findings, verdict, made = read_answer(payload)
        except (ValueError, TypeError, KeyError) as error:
            # An answer this process cannot read is a failed helper: its exchange is still
            # unanswered, so the take-over checks it here and nothing is lost or waited for.
            self._said(lines)
            self._take_over(f"the checker process's answer could not be read ({error})")
            return False
        if not self._unanswered or self._unanswered[0][0] != sequence:
            # One answer an exchange, in order: another is a failed helper, as above.
            self._said(lines)
            self._take_over(f"the checker process answered #{sequence} out of turn")
            return False
        _, exchange, line, book = self._unanswered.popleft()
        if verdict is not None:
            self.unjudged.add(verdict, exchange=sequence)
        direct = self._lines_direct and self._logged
        if direct:
            lines.extend(finding_lines(findings))
        entry = CheckerEntry(tuple(made[0][0]), tuple(made[0][1]), made[1], book) if made else None
        checked = Checked(sequence, exchange, findings, line, entry)
        report_findings(self, checked, logged=self._logged and not direct)
        return True

    @staticmethod
    def _said(lines: list[str]) -> None:
        """Write the lines of the answers taken so far, before a take-over's own."""
        if lines:
            write_lines(lines)
            lines.clear()

    def _take_over(self, why: str) -> None:
        """Check here from now on, starting with what the child had not answered for."""
        if self._local is not None:
            return
        status = self.process.poll()  # None: not yet reaped (a pipe closed before its exit is seen)
        ended = f" (exit {status})" if status is not None else ""
        log.warning("%s%s; checking goes on in the proxy process", why, ended)
        self._detach()
        self._local = LiveChecker(self._fallback())
        self._local.log = self.log
        self._local.listeners = self.listeners
        self._local.logged = self._logged
        self._local.checker.unjudged = self.unjudged
        self._outgoing.clear()
        while self._unanswered:
            sequence, exchange, line, _ = self._unanswered.popleft()
            self._local.check(exchange, sequence, line)


class Outbox:
    """Frames handed over and not yet in the pipe. Each stays its own bytes, so adding one never copies
    what waits (one buffer grown at its end and cut at its front copied megabytes while the checker
    caught up on 64 KB answers), and many go in one `os.writev`; a frame a full pipe cut resumes where
    it stopped."""

    def __init__(self) -> None:
        self._frames: deque[bytes | memoryview] = deque()
        self.size = 0  # bytes waiting

    def __bool__(self) -> bool:
        return bool(self._frames)

    def add(self, payload: bytes) -> None:
        self._frames.extend((FRAME.pack(len(payload)), payload))
        self.size += FRAME.size + len(payload)

    def clear(self) -> None:
        self._frames.clear()
        self.size = 0

    def write_to(self, fd: int) -> None:
        """Write until all is written or the pipe is full (BlockingIOError) or gone (OSError)."""
        frames = self._frames
        while frames:
            written = os.writev(fd, list(islice(frames, WRITTEN_AT_ONCE)))
            self.size -= written
            while frames and len(frames[0]) <= written:
                written -= len(frames.popleft())
            if written:
                frames[0] = memoryview(frames[0])[written:]


def _widen(fd: int) -> None:
    """Give a pipe PIPE_BYTES of room where the system lets us (Linux's F_SETPIPE_SZ): at its default
    64 KiB, one 64 KB answer filled the pipe, and handing it over took a write and a wake-up of the
    child per 64 KiB. Elsewhere, or past the system's limits, the pipe stays as it is."""
    with contextlib.suppress(AttributeError, OSError):
        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, PIPE_BYTES)


def serve_checks(source: RuleSource, inbox: io.BufferedIOBase, answers: BinaryIO) -> None:
    """The child: check each exchange as it arrives and answer with its findings, until the pipe closes."""
    from proxy.app.contract_inputs import source_contract

    in_force = source.load()
    contract = source_contract(source, in_force.project)  # the parent read the same files: no error
    checker = Checker(in_force.ruleset, in_force.project.config, contract=contract)
    entries: EntryMaker | None = None  # once the proxy's UI asks for them
    for payloads in _frames(inbox):
        said: list[bytes] = []
        for payload in payloads:
            if payload.startswith(ENTRIES):
                entries = EntryMaker(in_force, payload)
                continue
            unjournaled = None
            if entries is not None:
                payload, unjournaled = read_exchange_frame(payload)
            message = parse_json_line(payload)
            sequence = message["seq"]
            # The proxy judged it by the domain gate before journaling it (`journal_line`): a tenth of
            # this process's time went on judging it again.
            exchange = exchange_from_document(message["exchange"], ("exchange",), judged=True)
            findings = checker.check(exchange, sequence)
            answer = answer_frame(sequence, findings, checker.verdict)
            if entries is not None:
                answer = entries.answer(answer, exchange, findings, sequence, unjournaled)
            said.append(FRAME.pack(len(answer)) + answer)
        if said:  # every answer to what one read brought, in one write: one wake-up of the proxy
            answers.write(b"".join(said))
            answers.flush()


def _frames(inbox: io.BufferedIOBase) -> Iterator[list[bytes]]:
    """The frames `inbox` brings, as many as each read gives (a read waits only when no whole frame
    is left), until the pipe closes."""
    pending, chunk = bytearray(), bytearray(READ_BYTES)
    while got := inbox.readinto1(chunk):
        pending += memoryview(chunk)[:got]
        whole: list[bytes] = []
        start = 0
        while len(pending) - start >= FRAME.size:
            (size,) = FRAME.unpack_from(pending, start)
            if len(pending) - start - FRAME.size < size:
                break
            whole.append(bytes(pending[start + FRAME.size : start + FRAME.size + size]))
            start += FRAME.size + size
        del pending[:start]
        if whole:
            yield whole


def answer_frame(sequence: int, findings: list[Finding], verdict: Unjudged | None) -> bytes:
    """The child's answer for one exchange: its sequence, findings and unjudged verdict, as JSON."""
    unjudged = verdict.to_json() if verdict is not None else None
    return orjson.dumps([sequence, [finding.to_values() for finding in findings], unjudged])


Made = tuple[list[Any], bytes]  # an entry the child made (`checker_entries`): its row and rules, its detail


def read_answer(payload: bytes | bytearray) -> tuple[int, list[Finding], Unjudged | None, Made | None]:
    """`answer_frame`'s inverse, with the entry `EntryMaker.answer` put after it when there is one;
    raises ValueError, TypeError or KeyError on anything else."""
    cut = payload.find(b"\0")
    sequence, each, unjudged, *made = orjson.loads(payload if cut == -1 else payload[:cut])
    findings = [Finding.from_values(values) for values in each]
    entry = (made[0], bytes(payload[cut + 1 :])) if made and cut != -1 else None
    return sequence, findings, Unjudged.from_json(unjudged) if unjudged is not None else None, entry


def main() -> int:
    """`python -m proxy.app.live_check_worker SOURCE`: frames in on stdin, answers out on stdout."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the proxy, which then closes the pipe
    answers = os.fdopen(os.dup(1), "wb")
    inbox = os.fdopen(os.dup(0), "rb")  # a BufferedReader, as `_frames` reads it
    os.dup2(2, 1)  # anything printed goes to stderr, never into the answers
    sys.stdout = sys.stderr
    source = RuleSource.of_argument(sys.argv[1])
    try:
        serve_checks(source, inbox, answers)
    except BrokenPipeError:
        return 0  # the proxy is gone
    except Exception as error:  # the proxy checks what is left itself and says so
        problem = visible(f"{type(error).__name__}: {error}")  # a file name cannot add a line
        print(f"commerce-proxy: checker process: {problem}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
