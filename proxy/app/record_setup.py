"""The one way to build a recording's settings: `record`, `spy`, the pytest plugin's fixtures, the
mitmproxy addon and the demo all call `record_settings`, so the project's redaction, its `match`
table and its rules reach every recording alike (none of them can forget one)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from proxy.app.command_inputs import ExtraRedaction, RuleChoice
from proxy.app.committed import holds_nothing, leftover_journal
from proxy.app.contract_inputs import project_contract
from proxy.app.recording import (
    DEFAULT_MODE,
    MAX_BODY_BYTES,
    UPSTREAM_TIMEOUT,
    RecordMode,
    RecordSettings,
)
from proxy.app.session_report import SessionReportRequest
from proxy.core.contract.findings import ContractJudge
from proxy.core.model.links import without_credentials
from proxy.core.redaction.urls import url_without_secrets
from proxy.core.replay.matching import MatchPolicy
from proxy.core.rules.config import RuleConfig
from proxy.store.rule_files import ProjectConfig, RulesInForce, RuleSource, load_rules
from proxy.store.shipped import shipped_dir


def shipped_rules_in_force() -> RulesInForce:
    """The shipped rules with no project config: what the demo checks against, wherever it runs."""
    return RulesInForce(load_rules(shipped_dir("rules")), ProjectConfig(RuleConfig(), Path.cwd(), None))


def record_settings(
    upstream: str,
    cassette: Path | None,
    in_force: RulesInForce,
    *,
    mode: RecordMode = DEFAULT_MODE,
    fresh: bool = False,
    checking: bool = True,
    match: MatchPolicy | None = None,
    redact_headers: Sequence[str] = (),
    redact_query: Sequence[str] = (),
    redact_form: Sequence[str] = (),
    redact_json_paths: Sequence[str] = (),
    upstream_timeout: float = UPSTREAM_TIMEOUT,
    max_body_bytes: int = MAX_BODY_BYTES,
    ca_bundle: Path | None = None,
    rule_source: RuleSource | None = None,
    spellings: Mapping[str, str] | None = None,
    contract: ContractJudge | None = None,
    command_log: bool = False,
) -> RecordSettings:
    """A recording's settings from what its caller was told and the project's `in_force` (rules and
    config). `upstream` is the URL as given: credentials in it (`user:pw@`) are sent, never written,
    and secret query values are written as the placeholder. `cassette` None is `spy`. `match` and the
    `redact_*` names are the caller's own; the project's `match` and `redact` tables are added to them.
    `checking` off: no live checking. `rule_source`: where a checker process loads the same rules.
    `spellings`: how the caller's user writes the settings its messages name (`mode`: `--mode`).
    `contract`: the published specs judged against too; None: the config's `specs:` and `overlays:`
    (a bad one is a `ContractError` now, before any serving). `command_log`: the process logs in the
    commands' format (`command_log.py`), so the findings' lines may be written as lines, not records."""
    shown, _ = url_without_secrets(upstream)
    project = in_force.project
    return RecordSettings(
        upstream=shown.rstrip("/"),
        upstream_authorization=without_credentials(upstream)[1],
        cassette=cassette,
        mode=mode,
        fresh=fresh,
        redaction=project.redaction.extended(
            headers=redact_headers, query=redact_query, form_fields=redact_form, json_paths=redact_json_paths
        ),
        match=(match or MatchPolicy()).joined(project.match),
        upstream_timeout=upstream_timeout,
        max_body_bytes=max_body_bytes,
        ca_bundle=ca_bundle,
        rules=in_force.ruleset if checking else None,
        rule_config=project.config if checking else RuleConfig(),
        rule_source=rule_source if checking else None,
        contract=(contract or project_contract(project)) if checking else None,
        spellings=dict(spellings or {}),
        lines_direct=command_log,
    )


@dataclass(frozen=True, slots=True)
class ForwardRequest:
    """What `record` or `spy` was asked, built once by its parser. `spy` gives no cassette (it writes
    nothing) and no matching (it replays nothing)."""

    upstream: str  # as given: credentials in it are sent, never written
    cassette: Path | None = None  # None: `spy`
    mode: RecordMode = DEFAULT_MODE
    fresh: bool = False
    check: bool = True
    match: MatchPolicy | None = None  # joined with the config's `match` table
    redact: ExtraRedaction = field(default_factory=ExtraRedaction)  # added to the config's `redact` table
    upstream_timeout: float = UPSTREAM_TIMEOUT
    max_body_bytes: int = MAX_BODY_BYTES
    ca_bundle: Path | None = None
    rules: RuleChoice = field(default_factory=RuleChoice)
    report: SessionReportRequest = field(default_factory=SessionReportRequest)  # at stop
    spellings: Mapping[str, str] = field(default_factory=dict)  # the caller's names of the settings


def forwarding_settings(asked: ForwardRequest, in_force: RulesInForce | None = None) -> RecordSettings:
    """`record`'s or `spy`'s settings: the rules and config it names (`in_force` when the command has
    read them already, for its UI; else read now), and what it asked."""
    in_force = asked.rules.load() if in_force is None else in_force
    contract = (
        project_contract(in_force.project, asked.rules.specs, asked.rules.overlays) if asked.check else None
    )
    return record_settings(
        asked.upstream,
        asked.cassette,
        in_force,
        mode=asked.mode,
        fresh=asked.fresh,
        checking=asked.check,
        match=asked.match,
        redact_headers=asked.redact.headers,
        redact_query=asked.redact.query,
        redact_form=asked.redact.form_fields,
        redact_json_paths=asked.redact.json_paths,
        upstream_timeout=asked.upstream_timeout,
        max_body_bytes=asked.max_body_bytes,
        ca_bundle=asked.ca_bundle,
        rule_source=asked.rules.source(),
        spellings=asked.spellings,
        contract=contract,
        command_log=True,
    )


@dataclass(frozen=True, slots=True)
class ReplayOnly:
    """Replay the cassette as it is: mode `none`, or `once` with a cassette that exists."""


@dataclass(frozen=True, slots=True)
class RecordIt:
    """Record into the cassette, as its mode says."""


@dataclass(frozen=True, slots=True)
class LeftOver:
    """A recording that did not end (a killed run) left `journal`: the user chooses, fold it in or
    drop it; nothing is recorded over it."""

    journal: Path


Plan = ReplayOnly | RecordIt | LeftOver


def plan(mode: RecordMode, cassette: Path) -> Plan:
    """What a test session (the pytest plugin) does with a recording fixture's cassette in `mode`:
    `none` replays, `once` replays a cassette that exists, a leftover journal stops it, the rest is
    recorded. Made again under the cassette's lock (`held_for_recording`), since another process may
    have recorded it meanwhile. (`record` on the command line refuses `once` over an existing
    cassette instead: `recording.refuse_existing`.)"""
    if mode == "none" or (mode == "once" and cassette.exists()):
        return ReplayOnly()
    journal = leftover_journal(cassette)
    if journal is not None and not holds_nothing(journal):
        return LeftOver(journal)
    return RecordIt()
