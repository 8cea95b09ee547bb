"""The forked runner: a child that does one part of a job while this process does the other: two
cores, and nothing to send it, since the child starts with everything this process had.

Its result is what it wrote to a temporary file, taken only when it exited cleanly, in time. Any
failure (no fork, no temporary file, an error in the child, a child that hangs) is None to the caller,
which then does the child's part itself: a job comes out the same on one core or two.
"""

from __future__ import annotations

import contextlib
import os
import signal
import tempfile
import time
from collections.abc import Callable, Iterator
from typing import BinaryIO, cast

from proxy.workers.base import ChildFailed, Work
from proxy.workers.trailer import RECORD_HEAD

POLL_S = 0.002
OUTPUT_BUFFER_BYTES = 64 * 1024  # the child writes lines of about 5 KB: fewer write calls
READ_BYTES = 1 << 20


class Forked:
    """One child process running `work(output)`; `result` waits for it, `stop` kills it if need be."""

    def __init__(self, pid: int, output: BinaryIO) -> None:
        self.pid: int | None = pid
        self._output = output
        self._status = 1

    @classmethod
    def start(cls, work: Work) -> Forked | None:
        """Fork a child that runs `work` on a temporary file and exits; None when the system cannot
        (`proxy.workers.choice` picks this runner only where `os.fork` exists)."""
        try:
            # Closed by `stop`; typeshed types a temporary file with a buffer size as IO[Any] ("w+b": binary).
            output = cast(BinaryIO, tempfile.TemporaryFile("w+b", OUTPUT_BUFFER_BYTES))  # noqa: SIM115
        except OSError:
            return None
        try:
            pid = os.fork()
        except OSError:  # no memory or processes to spare: one core it is
            output.close()
            return None
        if pid == 0:  # the child: never returns, runs no exit handlers, prints no traceback
            status = 1
            try:
                work(output)
                output.flush()
                status = 0
            finally:
                os._exit(status)
        return cls(pid, output)

    def result(self, patience: float, waiting: Callable[[], None] | None = None) -> BinaryIO | None:
        """The child's output from its start, once it has exited cleanly; None when it failed or has not
        finished `patience` seconds from now (`stop` then kills it). `waiting` is called as it waits."""
        deadline = time.monotonic() + patience
        while self.pid is not None:
            self._reap()
            if self.pid is None:
                break
            if time.monotonic() > deadline:
                return None
            if waiting is not None:
                waiting()
            time.sleep(POLL_S)
        if self._status != 0:
            return None
        self._output.seek(0)
        return self._output

    def lines(self, patience: float) -> Iterator[bytes]:
        """The child's output line by line as it writes it, each line as soon as it is complete (it
        flushes as it goes); ends once the child has exited cleanly and all it wrote is read.

        Raises ChildFailed when it failed, or has not exited `patience` seconds from now (`stop` then
        kills it); the lines given before came from a clean part of its work.
        """
        partial: list[bytes] = []  # a line read in pieces so far (one longer than a read is joined once)
        for chunk in self._written(patience):
            cut = chunk.rfind(b"\n") + 1
            if cut:
                yield from b"".join([*partial, chunk[:cut]]).splitlines(keepends=True)
                partial = []
            partial.append(chunk[cut:])
        if b"".join(partial):
            yield b"".join(partial)  # a last line without its end: the reader judges it

    def records(self, patience: float) -> Iterator[bytes]:
        """The child's output as the records it wrote with `trailer.write_record`, each as soon as it is whole
        (the child flushes after each); ends once the child has exited cleanly and all is read.
        ChildFailed as for `lines`, and when a clean child left a record cut short."""
        held = bytearray()
        for chunk in self._written(patience):
            held += chunk
            while len(held) >= RECORD_HEAD.size:
                (size,) = RECORD_HEAD.unpack_from(held)
                end = RECORD_HEAD.size + size
                if len(held) < end:
                    break
                yield bytes(held[RECORD_HEAD.size : end])
                del held[:end]
        if held:
            raise ChildFailed

    def _written(self, patience: float) -> Iterator[bytes]:
        """What the child writes, in pieces as they come, until it has exited cleanly and all is read.
        Read with pread: the file position is the child's, which it still writes at."""
        deadline = time.monotonic() + patience
        fd = self._output.fileno()
        offset = 0
        while True:
            chunk = os.pread(fd, READ_BYTES, offset)
            if chunk:
                offset += len(chunk)
                yield chunk
                continue
            if self.pid is None:  # exited, and everything it wrote has been read
                if self._status != 0:
                    raise ChildFailed
                return
            self._reap()
            if self.pid is not None:
                if time.monotonic() > deadline:
                    raise ChildFailed
                time.sleep(POLL_S)

    def _reap(self) -> None:
        """Note the child's exit status if it has exited."""
        assert self.pid is not None
        pid, status = os.waitpid(self.pid, os.WNOHANG)
        if pid:
            self.pid, self._status = None, os.waitstatus_to_exitcode(status)

    def stop(self) -> None:
        """Stop the child if it still runs, and drop its output."""
        if self.pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
            self.pid = None
        self._output.close()
