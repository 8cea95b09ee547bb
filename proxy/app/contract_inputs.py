"""The published specs a command names, as what its checker judges each exchange against too: the one
way from `--spec` paths (and, later, the config's `specs:`) to a contract, for every command that
checks. Overlays go in through `proxy.store.contract_files.contract_of`'s `overlay`."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from proxy.core.contract.findings import ContractJudge
from proxy.store.contract_files import Overlaying, contract_of


def contract_judge(specs: Sequence[Path], overlay: Overlaying | None = None) -> ContractJudge | None:
    """The judge of these specs, or None when none is named; `ContractError` when one is unusable."""
    return ContractJudge(contract_of(specs, overlay)) if specs else None
