"""Where a command's report (or other written file) may go: every command that writes one asks here,
once, at start, before any traffic or work, with every file it reads, so each refusal names the same
reason whichever command it is (`proxy.store.outputs.refuse_overwrite` decides)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterable
from pathlib import Path

from proxy.store.outputs import Input, refuse_overwrite


def command_inputs(
    arguments: argparse.Namespace, cassettes: Iterable[Path], baseline: bool = True
) -> list[Input]:
    """What the command reads: its cassettes, its config file (named or found), every file of its
    rule folder, its baseline (named or the config's) and its CA bundle."""
    from proxy.store.rule_files import config_baseline, config_rule_folder, find_config
    from proxy.store.shipped import shipped_dir

    found = [Input(path) for path in cassettes]
    config = getattr(arguments, "config", None) or find_config(Path(os.getcwd()))
    if config is not None:
        found.append(Input(config, "its config file"))
    rules = getattr(arguments, "rules", None) or (config_rule_folder(config) if config else None)
    found.append(Input(rules or shipped_dir("rules"), "a file of its rule folder", "all"))
    accepted = getattr(arguments, "baseline", None) or (config_baseline(config) if config else None)
    if baseline and accepted is not None:
        found.append(Input(accepted, "its baseline"))
    bundle = getattr(arguments, "ca_bundle", None)
    if bundle is not None:
        found.append(Input(bundle, "its CA bundle"))
    return found


def refuse_bad_output(
    arguments: argparse.Namespace,
    output: Path,
    cassettes: Iterable[Path],
    what: str = "the report",
    force: bool | None = None,
    any_file: bool = False,
    create_folders: bool = False,
    baseline: bool = True,
) -> None:
    """`UsageError` when `output` cannot take `what`: see `refuse_overwrite` (`baseline`: whether the
    baseline counts as an input, not for `--write-baseline`)."""
    inputs = command_inputs(arguments, cassettes, baseline)
    refuse_overwrite(output, inputs, what, force, any_file=any_file, create_folders=create_folders)
