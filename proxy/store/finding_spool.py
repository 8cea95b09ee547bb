"""Findings kept on disk once there are many, so `check` memory stays flat however many it finds.

Past `held` findings in memory, each rule's are appended to a file of its own in a temporary folder
as pickled batches (pickle: our own data, read back only by this process); a report reads a rule's
file back batch by batch, then what is still in memory. The folder goes when the spool is closed.
"""

from __future__ import annotations

import pickle
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from proxy.core.reports.finding_groups import FindingGroups
from proxy.core.rules.findings import Finding

HELD_FINDINGS = 20_000  # about 20 MB of findings before they go to disk


class FindingSpool(FindingGroups):
    """`FindingGroups` that moves its groups to disk whenever more than `held` findings are in memory."""

    def __init__(self, held: int | None = None) -> None:
        super().__init__()
        self._held = HELD_FINDINGS if held is None else held
        self._in_memory = 0
        self._folder: Path | None = None
        self._files: dict[str, Path] = {}

    def add(self, finding: Finding) -> None:
        super().add(finding)
        self._in_memory += 1
        if self._in_memory > self._held:
            self._spill()

    def _spill(self) -> None:
        if self._folder is None:
            self._folder = Path(tempfile.mkdtemp(prefix="commerce-proxy-findings-"))
        for position, (rule, group) in enumerate(self._groups.items()):
            if not group:
                continue
            file = self._files.setdefault(rule, self._folder / f"{position}.pickle")
            with file.open("ab") as handle:
                pickle.dump(group, handle, protocol=pickle.HIGHEST_PROTOCOL)
            group.clear()
        self._in_memory = 0

    def earlier(self, rule: str) -> Iterator[tuple[int, Finding]]:
        file = self._files.get(rule)
        if file is None:
            return
        with file.open("rb") as handle:
            while batch := _next_batch(handle):
                yield from batch

    def close(self) -> None:
        """Remove the files; the spool holds only what is still in memory afterwards."""
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
        self._folder = None
        self._files.clear()


def _next_batch(handle: Any) -> list[tuple[int, Finding]]:
    try:
        return pickle.load(handle)  # type: ignore[no-any-return]  # written by this process
    except EOFError:
        return []
