"""The rules in force for a run found from a folder (a pytest session's rootdir, a command's working
folder), and the findings its baseline accepts: what `check` and a test session both load, so a baseline
counts the same in both. `RulesInForce` and `RuleSource` are the types the adapters name for them."""

from __future__ import annotations

from pathlib import Path

from proxy.core.rules.config import Baseline
from proxy.store.rule_files import RulesInForce as RulesInForce
from proxy.store.rule_files import RuleSource as RuleSource
from proxy.store.rule_files import load_baseline, load_project_rules


def project_rules(root: Path, config: Path | None = None) -> RulesInForce:
    """The rules and project config: the `config` named, else the one found from `root` up (its rule
    folder, else the shipped rules), as `check` finds them from its working folder."""
    return load_project_rules(config, None, root)


def shown_baseline(in_force: RulesInForce) -> Baseline:
    """The findings the UI leaves out, as `check` reports them (counted, not reported): the config's
    `baseline`; none when it names none or the file is not written yet (the UI's accept makes it)."""
    path = in_force.project.resolve(in_force.project.config.baseline)
    return load_baseline(path) if path is not None and path.exists() else Baseline()


def accepted_baseline(in_force: RulesInForce, named: Path | None = None) -> Baseline:
    """The findings accepted: those of the baseline file named, else of the config's `baseline`, else
    none. A missing or broken file is a one-line error naming it."""
    path = named or in_force.project.resolve(in_force.project.config.baseline)
    return load_baseline(path) if path is not None else Baseline()
