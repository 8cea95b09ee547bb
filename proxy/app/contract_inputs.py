"""The published specs a command names, as what its checker judges each exchange against too: the one
way from `--spec` paths (and, later, the config's `specs:`) to a contract, for every command that
checks. Overlays go in through `proxy.store.contract_files.contract_of`'s `overlay`."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from proxy.core.contract.findings import ContractJudge
from proxy.core.contract.overlays import overlaid
from proxy.errors import ContractError
from proxy.store.contract_files import contract_of, spec_files
from proxy.store.overlay_files import read_overlays


def contract_judge(specs: Sequence[Path], overlays: Sequence[Path] = ()) -> ContractJudge | None:
    """The judge of these specs with these overlays applied (`--overlay`: each paired with the spec it
    corrects, applied in the order given), or None when no spec is named; `ContractError` when a spec
    or an overlay is unusable, or overlays are named without a spec."""
    if not specs:
        if overlays:
            raise ContractError(f"{overlays[0]}: an overlay corrects a spec: name the specs with --spec")
        return None
    read = read_overlays(overlays, spec_files(specs)) if overlays else []
    if not read:
        return ContractJudge(contract_of(specs))
    return ContractJudge(contract_of(specs, lambda name, document: overlaid(name, document, read)))
