"""The published specs a command names, as what its checker judges each exchange against too: the one
way from paths (the config's `specs:` and `overlays:`, then `--spec` and `--overlay`) to a contract, for
every command that checks and the checker process of `record` and `spy`. Overlays go in through
`proxy.store.contract_files.contract_of`'s `overlay`."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from proxy.core.contract.drift_tiers import SpecTiers
from proxy.core.contract.findings import ContractJudge
from proxy.core.contract.overlays import check_fragments, overlaid
from proxy.errors import ContractError
from proxy.store.contract_files import contract_of, spec_files
from proxy.store.overlay_files import read_overlays
from proxy.store.rule_files import ProjectConfig, RulesInForce, RuleSource


def contract_judge(specs: Sequence[Path], overlays: Sequence[Path] = ()) -> ContractJudge | None:
    """The judge of these specs with these overlays applied (`--overlay`: each paired with the spec it
    corrects, applied in the order given), or None when no spec is named; `ContractError` when a spec
    or an overlay is unusable, or overlays are named without a spec."""
    if not specs:
        if overlays:
            raise ContractError(
                f"{overlays[0]}: an overlay corrects a spec: name the specs with --spec "
                "(or the config's specs:)"
            )
        return None
    named = spec_files(specs)
    read = read_overlays(overlays, named) if overlays else []
    if not read:
        return ContractJudge(contract_of(specs))
    contract = contract_of(specs, lambda name, document: overlaid(name, document, read))
    fragments = [name for name, spec in contract.specs.items() if not spec.entry]
    check_fragments(read, named, fragments)  # an overlay naming a file only a $ref reaches found it
    return ContractJudge(contract)


def project_contract(
    project: ProjectConfig, specs: Sequence[Path] = (), overlays: Sequence[Path] = ()
) -> ContractJudge | None:
    """The judge of the config's `specs:` and `overlays:` (relative to its folder) with the command
    line's added after them (a path named twice counts once: an overlay is never applied twice)."""
    return contract_judge(project_specs(project, specs), _joined(project.overlays, overlays))


def project_specs(project: ProjectConfig, specs: Sequence[Path] = ()) -> list[Path]:
    """The spec paths `project_contract` reads: the config's, then the command line's."""
    return _joined(project.specs, specs)


def source_contract(source: RuleSource, project: ProjectConfig) -> ContractJudge | None:
    """`project_contract` of what a `RuleSource` carries: the same contract in a checker process."""
    return project_contract(project, source.specs, source.overlays)


def _joined(configured: Sequence[Path], given: Sequence[Path]) -> list[Path]:
    seen: dict[str, Path] = {}
    for path in (*configured, *given):
        seen.setdefault(os.path.abspath(path), path)
    return list(seen.values())


def drift_tiers(judge: ContractJudge | None, in_force: RulesInForce) -> SpecTiers | None:
    """What tiers `verify`'s and `cassette diff`'s differences by the specs of `judge` (None without
    specs: the comparison alone tiers them); an operation the documented rules describe is theirs."""
    if judge is None:
        return None
    index = in_force.ruleset.index
    return SpecTiers(judge.contract, lambda method, path: index.lookup(method, path).documented)
