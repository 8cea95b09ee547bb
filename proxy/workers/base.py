"""What a helper is to its caller: a runner starts a child on a piece of work, or says it cannot (None),
and the caller then does that part itself (the one failure contract, see `proxy.workers`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import BinaryIO, Protocol

Work = Callable[[BinaryIO], None]  # the child's part: it writes its result to the file it is given


class ChildFailed(Exception):
    """The child exited with an error, was killed, or did not finish in time."""


class Child(Protocol):
    """A started helper: its output once it is done, or line by line as it writes it."""

    def result(self, patience: float, waiting: Callable[[], None] | None = None) -> BinaryIO | None:
        """The output from its start once the child exited cleanly; None when it failed or is late."""

    def lines(self, patience: float) -> Iterator[bytes]:
        """The output line by line as it is written; ChildFailed when the child failed or is late."""

    def records(self, patience: float) -> Iterator[bytes]:
        """The output as the records it wrote (`trailer.write_record`), each as soon as it is whole."""

    def stop(self) -> None:
        """Stop the child if it still runs, and drop its output."""


class Runner(Protocol):
    """Starts a child on `work`; None means no child: the caller does the part in this process."""

    def start(self, work: Work) -> Child | None: ...
