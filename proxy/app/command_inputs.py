"""What a command reads and where it may write, resolved by the use cases from the typed request its
adapter built: the cassettes named, the rules in force, and the refusal of an output that would replace
one of the command's inputs (`proxy.store.outputs.refuse_overwrite` decides, so every command gives the
same reason), checked once, at start, before any traffic or work."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from proxy.core.redaction.policy import RedactionPolicy
from proxy.errors import UsageError
from proxy.store.outputs import Input, refuse_overwrite
from proxy.store.rule_files import RulesInForce, RuleSource, config_baseline, config_rule_folder, find_config
from proxy.store.shipped import shipped_dir


@dataclass(frozen=True, slots=True)
class RuleChoice:
    """The config file and rule folder a command was told to use; None: the config found from the
    working folder up, its rule folder, else the shipped rules."""

    config: Path | None = None
    rules: Path | None = None
    specs: tuple[Path, ...] = ()  # `--spec`: added to the config's `specs:`
    overlays: tuple[Path, ...] = ()  # `--overlay`: added to the config's `overlays:`

    def source(self) -> RuleSource:
        """As absolute paths another process can load too."""

        def absolute(path: Path | None) -> Path | None:
            return path.absolute() if path is not None else None

        return RuleSource(
            absolute(self.config),
            absolute(self.rules),
            Path.cwd(),
            tuple(path.absolute() for path in self.specs),
            tuple(path.absolute() for path in self.overlays),
        )

    def load(self) -> RulesInForce:
        """The rules and the project config."""
        return self.source().load()


def named_cassettes(
    given: Iterable[Path], examples: bool, command: str, cassette_dir: Path | None = None
) -> list[Path]:
    """The cassettes a command was told to use: never the shipped examples unless `--examples` says so,
    so a suite cannot pass against example data. `replay --cassette-dir DIR` alone serves only what
    requests name with X-Commerce-Cassette."""
    paths = list(given)
    if examples:
        paths.append(shipped_dir("cassettes"))
    if not paths and cassette_dir is None:
        how = "--cassette PATH (repeatable) or --cassette-dir DIR" if command == "replay" else "PATH..."
        raise UsageError(f"{command}: no cassettes named: give {how}, or --examples for the shipped examples")
    return paths


@dataclass(frozen=True, slots=True)
class Reads:
    """Every file a command reads: its cassettes, its rules and config, its baseline and CA bundle."""

    cassettes: tuple[Path, ...]
    rules: RuleChoice = field(default_factory=RuleChoice)
    baseline: Path | None = None  # the one named; else the config's (when `with_baseline`)
    with_baseline: bool = True  # False for `--write-baseline`, which replaces the config's baseline
    ca_bundle: Path | None = None

    def inputs(self) -> list[Input]:
        """Its cassettes, its config file (named or found), every file of its rule folder, its
        baseline (named or the config's) and its CA bundle."""
        found = [Input(path) for path in (*self.cassettes, *self.rules.specs, *self.rules.overlays)]
        config = self.rules.config or find_config(Path(os.getcwd()))
        if config is not None:
            found.append(Input(config, "its config file"))
        rules = self.rules.rules or (config_rule_folder(config) if config else None)
        found.append(Input(rules or shipped_dir("rules"), "a file of its rule folder", "all"))
        accepted = self.baseline or (config_baseline(config) if config else None)
        if self.with_baseline and accepted is not None:
            found.append(Input(accepted, "its baseline"))
        if self.ca_bundle is not None:
            found.append(Input(self.ca_bundle, "its CA bundle"))
        return found

    def refuse_bad_output(
        self,
        output: Path,
        what: str = "the report",
        force: bool | None = None,
        any_file: bool = False,
        create_folders: bool = False,
    ) -> None:
        """`UsageError` when `output` cannot take `what`: see `refuse_overwrite`."""
        refuse_overwrite(output, self.inputs(), what, force, any_file=any_file, create_folders=create_folders)


def refuse_bad_new_file(output: Path, what: str, force: bool) -> None:
    """`UsageError` when `output` cannot take `what` for a command that reads no file of the project
    (the demo): an existing file is replaced only with `force`, missing folders are made."""
    refuse_overwrite(output, [], what, force, any_file=True, create_folders=True)


@dataclass(frozen=True, slots=True)
class ExtraRedaction:
    """The names a command line adds to redaction (`--redact-header` and the like)."""

    headers: tuple[str, ...] = ()
    query: tuple[str, ...] = ()
    form_fields: tuple[str, ...] = ()
    json_paths: tuple[str, ...] = ()  # dotted: data.attributes.email

    def over(self, configured: RedactionPolicy | None = None) -> RedactionPolicy:
        """The default policy, plus the project config's `redact` table, plus these names."""
        return (configured or RedactionPolicy()).extended(
            self.headers, self.query, self.form_fields, self.json_paths
        )
