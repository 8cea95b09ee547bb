"""A file the tool keeps for a cassette under a name it derives from the cassette's path (its journal,
lock, parse cache entry, temporary file...). Each store module that derives such a name says so in one
function, `derived_files(cassette)`, built from the same function the module itself names the file
with, so the check of where a report may go (`proxy.store.outputs`) cannot drift from the modules."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal


@dataclass(frozen=True, slots=True)
class Derived:
    """`path` is the cassette's `what` ("recording journal"); `match` says which names it covers:
    that "file", everything in that "folder", or every name in its folder starting with its name
    ("prefix": temporary files, whose names end in a random part)."""

    path: Path
    what: str
    match: Literal["file", "folder", "prefix"] = "file"

    def covers(self, candidate: Path) -> bool:
        """Whether `candidate` names this file (however spelled: `..`, links, relative or absolute)."""
        real = Path(os.path.realpath(candidate))
        mine = Path(os.path.realpath(self.path))
        if self.match == "folder":
            return real == mine or mine in real.parents
        if self.match == "prefix":
            return real.parent == mine.parent and real.name.startswith(self.path.name)
        try:
            return os.path.samefile(candidate, self.path)
        except OSError:  # one of them does not exist (yet): compare where their names lead
            return real == mine
