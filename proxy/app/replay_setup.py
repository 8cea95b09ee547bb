"""Replay set-up: the cassettes loaded and indexed, and the options a replay server runs with, checked
before anything is served. Used by `replay`, `record --mode none`, the pytest plugin's replay, and the
replay server's books of the cassettes requests name by header."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from proxy.app.command_inputs import ExtraRedaction, Reads, RuleChoice, named_cassettes
from proxy.core.redaction.book import KNOWN
from proxy.core.redaction.policy import RedactionPolicy
from proxy.core.replay.book import ReplayBook
from proxy.core.replay.faults import Fault, Latency
from proxy.core.replay.matching import MatchPolicy
from proxy.core.reports.usage_report import usage_report_text
from proxy.core.rules.engine import LiveChecker
from proxy.store.cassette_names import resolve_cassette_name
from proxy.store.cassette_reader.loading import Loaded, load_cassette, load_cassettes
from proxy.store.clock import now_stamp
from proxy.store.rule_files import RulesInForce
from proxy.store.saving import write_atomically

SLOW_BODY_MS = 3000.0  # how long a `slow` fault's body takes, unless told


def build_book(
    paths: list[Path], policy: MatchPolicy, redaction: RedactionPolicy, simulate: bool = False
) -> tuple[ReplayBook, list[Loaded]]:
    """Load the cassettes and index them for replay."""
    loaded = load_cassettes(paths)
    return _book([(str(one.path), one) for one in loaded], policy, redaction, simulate), loaded


def named_cassette(folder: Path, name: str) -> Path:
    """The file a request's X-Commerce-Cassette NAME means in `folder` (refused outside it)."""
    return resolve_cassette_name(folder, name)


def named_book(folder: Path, path: Path, name: str, like: ReplayBook) -> tuple[ReplayBook, Loaded]:
    """The book of the one cassette `path` (found by `named_cassette`), matched, redacted and
    simulated as the default book `like`, called by the name the request gave."""
    loaded = load_cassette(path)
    label = str(folder / path.relative_to(folder.resolve()))
    book = _book([(label, loaded)], like.policy, like.redaction, like.simulate)
    book.label = name
    return book, loaded


def _book(
    labelled: list[tuple[str, Loaded]], policy: MatchPolicy, redaction: RedactionPolicy, simulate: bool
) -> ReplayBook:
    return ReplayBook.build(
        [(label, one.cassette) for label, one in labelled], policy, redaction, simulate=simulate
    )


@dataclass(frozen=True, slots=True)
class ReplayOptions:
    """What replay is told besides its cassettes: the header's folder, timing, faults, usage file, and
    how token answers are dated; each default is written here once."""

    folder: Path | None = None  # where X-Commerce-Cassette looks (None: the first cassette folder)
    latency: Latency = field(default_factory=Latency)
    faults: tuple[Fault, ...] = ()
    fault_seed: int = 0
    slow_body_ms: float = SLOW_BODY_MS
    usage_report: Path | None = None
    time: str = "now"  # now: a token answer's expires and Date moved to now; recorded: kept


@dataclass(frozen=True, slots=True)
class ReplayRequest:
    """What `replay` (or `record --mode none`) was asked, built once by its parser."""

    cassettes: tuple[Path, ...] = ()
    examples: bool = False
    options: ReplayOptions = field(default_factory=ReplayOptions)
    simulate: bool = False
    check: bool = False
    match: MatchPolicy = field(default_factory=MatchPolicy)  # joined with the config's `match` table
    redact: ExtraRedaction = field(default_factory=ExtraRedaction)  # added to the config's `redact` table
    rules: RuleChoice = field(default_factory=RuleChoice)


@dataclass(frozen=True, slots=True)
class Replay:
    """A replay ready to serve: its book, the cassettes read, its options, its live checker, and the
    rules and config it was prepared with (its UI shows the same)."""

    book: ReplayBook
    loaded: list[Loaded]
    options: ReplayOptions
    live: LiveChecker | None
    in_force: RulesInForce


def prepare_replay(asked: ReplayRequest) -> Replay:
    """Everything checked and loaded before serving: the cassettes, where the usage report may go,
    the folder and options, the rules, the book."""
    paths = named_cassettes(asked.cassettes, asked.examples, "replay", asked.options.folder)
    options = asked.options
    if options.usage_report is not None:
        folder = options.folder
        reads = Reads((*paths, *([folder] if folder else [])), asked.rules)
        reads.refuse_bad_output(options.usage_report, "the usage report")
    options = replay_settings(options, paths)
    in_force = asked.rules.load()
    match = asked.match.joined(in_force.project.match)
    book, loaded = build_book(paths, match, asked.redact.over(in_force.project.redaction), asked.simulate)
    live = None
    if asked.check:
        from proxy.app.contract_inputs import project_contract
        from proxy.core.rules.engine import Checker

        contract = project_contract(in_force.project, asked.rules.specs, asked.rules.overlays)
        live = LiveChecker(Checker(in_force.ruleset, in_force.project.config, contract=contract))
    return Replay(book, loaded, options, live, in_force)


def replay_settings(asked: ReplayOptions, paths: list[Path]) -> ReplayOptions:
    """No cassette folder named: the first folder among the cassettes (the adapter checked the rest)."""
    if asked.folder is not None:
        return asked
    return replace(asked, folder=next((path for path in paths if path.is_dir()), None))


def write_usage_report(target: Path, report: dict[str, Any]) -> None:
    """The usage report's JSON, scrubbed (a missed request may echo a token), through the one file
    writer."""
    write_atomically(target, KNOWN.scrub(usage_report_text(report)), "the usage report")


def replay_clock() -> str:
    """Now, as a replay dates what it answers (the one clock: `COMMERCE_PROXY_NOW` sets it)."""
    return now_stamp()
