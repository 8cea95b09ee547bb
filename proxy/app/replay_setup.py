"""Replay set-up: the cassettes loaded and indexed, and the options a replay server runs with, checked
before anything is served. Used by `replay`, `record --mode none` and the pytest plugin's replay."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from proxy.core.redaction.policy import RedactionPolicy
from proxy.core.replay.book import ReplayBook
from proxy.core.replay.faults import Fault, Latency
from proxy.core.replay.matching import MatchPolicy
from proxy.errors import UsageError
from proxy.store.cassette_reader.loading import Loaded, load_cassettes


def build_book(
    paths: list[Path], policy: MatchPolicy, redaction: RedactionPolicy, simulate: bool = False
) -> tuple[ReplayBook, list[Loaded]]:
    """Load the cassettes and index them for replay."""
    loaded = load_cassettes(paths)
    book = ReplayBook.build(
        [(str(one.path), one.cassette) for one in loaded], policy, redaction, simulate=simulate
    )
    return book, loaded


@dataclass(frozen=True, slots=True)
class ReplayOptions:
    """What `replay` is told besides its cassettes: the header's folder, timing, faults, usage file."""

    folder: Path | None = None
    latency: Latency = field(default_factory=Latency)
    faults: tuple[Fault, ...] = ()
    fault_seed: int = 0
    slow_body_ms: float = 3000.0
    usage_report: Path | None = None
    time: str = "now"  # now: a token answer's expires and Date moved to now; recorded: kept


@dataclass(frozen=True, slots=True)
class ReplayRequest:
    """What a user asked of replay's timing, faults and reports, as given."""

    cassette_dir: Path | None = None
    latency: str = "none"
    faults: tuple[str, ...] = ()
    fault_seed: int = 0
    slow_body_ms: float = 3000.0
    usage_report: Path | None = None
    time: str = "now"


def replay_settings(asked: ReplayRequest, paths: list[Path]) -> ReplayOptions:
    """Cassette folder, timing, faults and usage report, checked before serving."""
    folder = asked.cassette_dir
    if folder is not None and not folder.is_dir():
        raise UsageError(f"--cassette-dir {folder}: not a folder")
    if folder is None:
        folder = next((path for path in paths if path.is_dir()), None)
    if not 0 <= asked.slow_body_ms <= 600_000:
        raise UsageError(f"--slow-body-ms {asked.slow_body_ms:g}: must be 0 to 600000")
    return ReplayOptions(
        folder=folder,
        latency=Latency.parse(asked.latency),
        faults=tuple(Fault.parse(text) for text in asked.faults),
        fault_seed=asked.fault_seed,
        slow_body_ms=asked.slow_body_ms,
        usage_report=asked.usage_report,
        time=asked.time,
    )
