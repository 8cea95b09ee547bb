"""Every unseen exchange: unseen.py's first sources, the rest of the Ruby SDK's cassettes, and the
feature and custom API entry traffic (each module names its sources and commits)."""

from __future__ import annotations

from tests.integration.corpus.unseen import CORPUS as FIRST
from tests.integration.corpus.unseen_base import Unseen
from tests.integration.corpus.unseen_fe import FEATURES_ENTRIES
from tests.integration.corpus.unseen_rb2 import RB2

CORPUS: dict[str, Unseen] = {**FIRST, **RB2, **FEATURES_ENTRIES}
SOURCES = {"RB", "PH", "CLI", "JS", "EPC", "DEV"}
