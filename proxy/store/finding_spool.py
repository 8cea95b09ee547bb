"""Findings kept on disk once there are many, so `check` memory stays flat however many it finds.

Past `held` findings in memory, each rule's are appended as pickled batches to one temporary file
(pickle: our own data, read back only by this process), where each batch lies kept in memory; a report
reads a rule's batches back one by one, then what is still in memory. The file has no name
(`tempfile.TemporaryFile`: made nameless, or unlinked as soon as made), so it goes with the process
however it ends, a SIGKILL too; closing the spool frees its space at once.
"""

from __future__ import annotations

import os
import pickle
import tempfile
from collections.abc import Iterator
from typing import IO

from proxy.core.reports.finding_groups import FindingGroups
from proxy.core.rules.findings import Finding

HELD_FINDINGS = 20_000  # about 20 MB of findings before they go to disk


class FindingSpool(FindingGroups):
    """`FindingGroups` that moves its groups to disk whenever more than `held` findings are in memory."""

    def __init__(self, held: int | None = None) -> None:
        super().__init__()
        self._held = HELD_FINDINGS if held is None else held
        self._in_memory = 0
        self._file: IO[bytes] | None = None
        self._batches: dict[str, list[tuple[int, int]]] = {}  # each rule's batches: (offset, length)
        self._end = 0

    def add(self, finding: Finding) -> None:
        super().add(finding)
        self._in_memory += 1
        if self._in_memory > self._held:
            self._spill()

    def _spill(self) -> None:
        if self._file is None:
            self._file = tempfile.TemporaryFile("w+b")  # noqa: SIM115  # closed by `close`
        for rule, group in self._groups.items():
            if not group:
                continue
            batch = pickle.dumps(group, protocol=pickle.HIGHEST_PROTOCOL)
            self._file.write(batch)
            self._batches.setdefault(rule, []).append((self._end, len(batch)))
            self._end += len(batch)
            group.clear()
        self._file.flush()  # read back with `os.pread`, beside the writes
        self._in_memory = 0

    def earlier(self, rule: str) -> Iterator[tuple[int, Finding]]:
        if self._file is None:
            return
        descriptor = self._file.fileno()
        for offset, length in list(self._batches.get(rule, ())):
            yield from _batch(os.pread(descriptor, length, offset))

    def close(self) -> None:
        """Close the file (its space freed); the spool holds only what is still in memory afterwards."""
        if self._file is not None:
            self._file.close()
        self._file = None
        self._batches.clear()
        self._end = 0


def _batch(data: bytes) -> list[tuple[int, Finding]]:
    return pickle.loads(data)  # type: ignore[no-any-return]  # written by this process
