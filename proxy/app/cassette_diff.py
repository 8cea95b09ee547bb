"""`cassette diff`: two versions of a cassette read and compared by meaning, and rendered in the format
asked (the renderers are in `proxy.core.reports.cassette_diff`). A missing side (git's /dev/null for a
cassette added or deleted) is an empty cassette."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from proxy.app.command_inputs import RuleChoice
from proxy.app.contract_inputs import drift_tiers, project_contract
from proxy.core.cassette.document import Cassette
from proxy.core.drift.compare import Tiering
from proxy.core.drift.origins import Origins
from proxy.core.drift.pairing import CassetteDiff, pair_cassettes
from proxy.core.replay.matching import MatchPolicy
from proxy.core.reports.cassette_diff import diff_json, diff_markdown, diff_text
from proxy.store.cassette_reader.loading import load_cassette

DiffFormat = Literal["text", "markdown", "json"]
DIFF_FORMATS: tuple[DiffFormat, ...] = ("text", "markdown", "json")


@dataclass(frozen=True, slots=True)
class DiffRequest:
    """What `cassette diff` was asked: two versions, how to name them, and the format."""

    a: Path
    b: Path
    label_a: str
    label_b: str
    format: DiffFormat = "text"  # text for people (and git), markdown for a PR, json for tools
    verbose: bool = False  # also list the volatile differences
    # whose config's `match` table pairs them, and the specs (`--spec`, `specs:`) that tier them
    rules: RuleChoice = field(default_factory=RuleChoice)


@dataclass(frozen=True, slots=True)
class RenderedDiff:
    """The diff as the document asked for; `drifted` when more than volatile values differ."""

    document: str
    drifted: bool


def rendered_diff(asked: DiffRequest) -> RenderedDiff:
    """The two versions compared with the project's `match` table, their differences tiered by the
    specs where they decide (B judged by them), and rendered in the asked format."""
    in_force = asked.rules.load()
    contract = project_contract(in_force.project, asked.rules.specs, asked.rules.overlays)
    diff = diff_cassettes(asked.a, asked.b, in_force.project.match, drift_tiers(contract, in_force))
    if asked.format == "markdown":
        document = diff_markdown(diff, asked.label_a, asked.label_b, asked.verbose)
    elif asked.format == "json":
        document = diff_json(diff, asked.verbose)
    else:
        document = diff_text(diff, asked.label_a, asked.label_b, asked.verbose)
    return RenderedDiff(document, diff.drifted)


def read_version(path: Path) -> Cassette:
    if str(path) == os.devnull:
        return Cassette()
    return load_cassette(path).cassette


def diff_cassettes(
    a: Path, b: Path, policy: MatchPolicy | None = None, tiering: Tiering | None = None
) -> CassetteDiff:
    """Exchanges paired by request as replay matches them (`policy`: the project's `match` table, so
    a request id the client generates anew does not make a changed exchange look removed and added).
    Links that differ only in the origin each version was recorded from are no change; `tiering`:
    the published specs, which tier the differences they decide."""
    before, after = read_version(a), read_version(b)
    origins = Origins(before.upstream, after.upstream)
    return pair_cassettes(before.exchanges, after.exchanges, policy, origins, tiering)
