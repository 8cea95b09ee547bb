"""The reading `cassette` commands as use cases (`list`, `grep`, `show`, and the files `fmt` walks):
from the typed request their parser built, the cassettes read, checked against the rules in force and
the exchanges asked for picked. Nothing is written; the adapter lays the result out."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from proxy.app.check_run import check_cassette
from proxy.app.command_inputs import RuleChoice
from proxy.core.cassette.document import Cassette
from proxy.core.editing.edits import checked_indexes
from proxy.core.editing.selection import Selection, Subject
from proxy.core.model.exchange import Exchange
from proxy.core.rules.findings import Finding
from proxy.core.rules.freshness import Freshness, MaxAge
from proxy.errors import RuleFileError, UsageError
from proxy.store import clock
from proxy.store.cassette_folders import cassette_files
from proxy.store.cassette_reader.loading import load_cassette
from proxy.store.cassette_reader.stored_text import stored_exchange
from proxy.store.rule_files import RulesInForce


@dataclass(frozen=True, slots=True)
class ListRequest:
    """`cassette list` (no selection) or `cassette grep` (a selection) of a cassette file or folder."""

    path: Path
    selection: Selection | None = None
    stale: str | None = None  # `--stale`: "" for the config's max_age, else an age (90d); None: all
    rules: RuleChoice = field(default_factory=RuleChoice)


@dataclass(frozen=True, slots=True)
class Listed:
    """One cassette of a listing: its exchanges' findings by index, and the indexes picked."""

    path: Path
    cassette: Cassette
    found: dict[int, list[Finding]]
    picked: Sequence[int]


@dataclass(frozen=True, slots=True)
class Listing:
    """Every cassette listed, in order; `dated` when the listing is of stale exchanges."""

    cassettes: list[Listed]
    dated: bool


@dataclass(frozen=True, slots=True)
class ShowRequest:
    path: Path
    index: str  # as given: 0 the first, -1 the last
    file_text: bool = True  # also the exchange's own lines in the file
    rules: RuleChoice = field(default_factory=RuleChoice)


@dataclass(frozen=True, slots=True)
class OneExchange:
    """An exchange with its findings, and its lines as the file holds them (None: not in the file yet,
    its recording's journal holds it; or not asked for)."""

    index: int
    exchange: Exchange
    findings: list[Finding]
    stored: str | None


def list_exchanges(request: ListRequest) -> Listing:
    """Every exchange of the cassettes (or those the selection picks), with their findings; with
    `stale`, only those recorded longer ago than max_age."""
    in_force = request.rules.load()
    freshness = _staleness(request.stale, in_force)
    listed: list[Listed] = []
    for path in files_in(request.path):
        cassette = load_cassette(path).cassette
        found = per_exchange(check_cassette(in_force, cassette, str(path)))
        picked: Sequence[int] = (
            range(len(cassette.exchanges))
            if request.selection is None
            else selected(request.selection, cassette, found)
        )
        if freshness is not None:
            picked = [index for index in picked if _overdue(freshness, cassette.exchanges[index])]
        listed.append(Listed(path, cassette, found, picked))
    return Listing(listed, dated=freshness is not None)


def show_exchange(request: ShowRequest) -> OneExchange:
    """One exchange with its findings and, when asked, its own lines in the file."""
    in_force = request.rules.load()
    cassette = load_cassette(request.path).cassette
    [index] = checked_indexes(cassette, [request.index])
    mine = per_exchange(check_cassette(in_force, cassette, str(request.path))).get(index, [])
    stored = stored_exchange(request.path, index) if request.file_text else None
    return OneExchange(index, cassette.exchanges[index], mine, stored)


def files_in(path: Path) -> list[Path]:
    """The cassette files of a folder (or the file itself); a folder with none is a usage error."""
    files = cassette_files(path)
    if not files:
        raise UsageError(f"{path}: no cassettes (*.yaml) in this folder")
    return files


def per_exchange(findings: Sequence[Finding]) -> dict[int, list[Finding]]:
    grouped: dict[int, list[Finding]] = {}
    for finding in findings:
        grouped.setdefault(finding.exchange, []).append(finding)
    return grouped


def selected(selection: Selection, cassette: Cassette, found: dict[int, list[Finding]]) -> list[int]:
    return [
        index
        for index, exchange in enumerate(cassette.exchanges)
        if selection.matches(Subject(index, exchange, found.get(index, ())))
    ]


def _overdue(freshness: Freshness, exchange: Exchange) -> bool:
    """Whether the exchange is older than max_age, counting its cassette's last confirmation."""
    return freshness.overdue(exchange.recorded_at, exchange.confirmed_at) is not None


def _staleness(written: str | None, in_force: RulesInForce) -> Freshness | None:
    """`--stale AGE`, or `--stale` with the config's max_age: which exchanges to list; None without it."""
    if written is None:
        return None
    config = in_force.project.config
    if written:
        try:
            return Freshness(MaxAge.parse(written, "--stale"), config.now or clock.now())
        except RuleFileError as error:
            raise UsageError(str(error)) from None
    freshness = config.freshness()
    if freshness is None:
        raise UsageError(
            "--stale: no max_age in the project config (e.g. `max_age: 90d` in commerce-proxy.yaml); "
            "or give one: --stale 90d"
        )
    return freshness
