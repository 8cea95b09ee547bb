"""Reading rule folders, the project config and baseline files; every error names the file and line.

A rule folder holds `*.yaml` files (with `endpoints:` groups and `rules:`) and `shapes/*.json` JSON
Schemas. The project config is `commerce-proxy.yaml`, or `[tool.commerce-proxy]` in pyproject.toml, in
the working folder or the nearest parent that has one.
"""

from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import yaml

from proxy.core.cassette.safe_yaml import CassetteLoader, load_yaml, yaml_problem
from proxy.core.contract.findings import IDS as CONTRACT_RULE_IDS
from proxy.core.redaction.redact import RedactionPolicy, configured_policy
from proxy.core.replay.matching import MatchPolicy, configured_matching
from proxy.core.rules.config import Baseline, RuleConfig
from proxy.core.rules.ruleset import RuleSet, Sourced
from proxy.errors import RuleFileError
from proxy.store import clock
from proxy.store.saving import write_atomically

CONFIG_FILE = "commerce-proxy.yaml"
PYPROJECT = "pyproject.toml"
PYPROJECT_TABLE = "commerce-proxy"
RULE_FILE_KEYS = frozenset({"endpoints", "rules", "sections"})
MAX_AGE_CHECK = "recorded_within_max_age"


class _Lined(dict[str, Any]):
    """A YAML mapping that remembers the line it starts on."""

    line = 0


class _LineLoader(CassetteLoader):
    """The cassette loader's safety (duplicate keys refused, no timestamps) plus line numbers."""

    def new_mapping(self, line: int) -> _Lined:
        mapping = _Lined()
        mapping.line = line
        return mapping

    def construct_lined_mapping(self, node: yaml.MappingNode) -> _Lined:
        mapping = _Lined(self.construct_mapping(node, deep=True))
        mapping.line = node.start_mark.line + 1
        return mapping


_LineLoader.add_constructor("tag:yaml.org,2002:map", _LineLoader.construct_lined_mapping)


def _read_text(path: Path, what: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RuleFileError(f"{path}: no such {what}") from None
    except UnicodeDecodeError:
        raise RuleFileError(f"{path}: not UTF-8 text") from None
    except OSError as error:
        raise RuleFileError(f"{path}: cannot read: {error.strerror}") from None


def _parse_yaml(path: Path, text: str) -> Any:
    try:
        return load_yaml(text, _LineLoader)
    except yaml.YAMLError as error:
        line, problem = yaml_problem(error, text)
        where = f"{path}:{line}" if line else str(path)
        raise RuleFileError(f"{where}: not valid YAML: {problem}") from None


def _sourced(path: Path, items: Any, key: str) -> list[Sourced]:
    if items is None:
        return []
    if not isinstance(items, list):
        raise RuleFileError(f"{path}: {key}: expected a list")
    return [Sourced(f"{path}:{getattr(item, 'line', '?')}", item) for item in items]


def load_rules(folder: Path) -> RuleSet:
    """Read and validate every rule file and shape in a rule folder."""
    if not folder.is_dir():
        raise RuleFileError(f"{folder}: no such rule folder")
    endpoints: list[Sourced] = []
    rules: list[Sourced] = []
    sections: list[Sourced] = []
    files = sorted([*folder.glob("*.yaml"), *folder.glob("*.yml")])
    if not files:
        raise RuleFileError(f"{folder}: no rule files (*.yaml) in this folder")
    for path in files:
        document = _parse_yaml(path, _read_text(path, "rule file"))
        if document is None:
            continue
        if not isinstance(document, dict) or set(document) - RULE_FILE_KEYS:
            raise RuleFileError(
                f"{path}:1: a rule file is a mapping with 'endpoints', 'rules' and/or 'sections'"
            )
        endpoints.extend(_sourced(path, document.get("endpoints"), "endpoints"))
        rules.extend(_sourced(path, document.get("rules"), "rules"))
        sections.extend(_sourced(path, document.get("sections"), "sections"))
    shapes = {}
    for path in sorted((folder / "shapes").glob("*.json")):
        try:
            shapes[path.stem] = Sourced(str(path), json.loads(_read_text(path, "shape")))
        except json.JSONDecodeError as error:
            raise RuleFileError(f"{path}:{error.lineno}: not valid JSON: {error.msg}") from None
    return RuleSet.build(endpoints, rules, shapes, sections)


@dataclass(frozen=True, slots=True)
class ProjectConfig:
    """The project's rule config and the folder its relative paths are relative to."""

    config: RuleConfig
    folder: Path
    path: Path | None
    redaction: RedactionPolicy = field(default_factory=RedactionPolicy)
    match: MatchPolicy = field(default_factory=MatchPolicy)  # what the `match` table ignores

    def resolve(self, written: str | None) -> Path | None:
        """A path from the config, relative to the config file's folder."""
        return None if written is None else self.folder / written

    @property
    def specs(self) -> tuple[Path, ...]:
        """The config's `specs:`, relative to its folder."""
        return tuple(self.folder / written for written in self.config.specs)

    @property
    def overlays(self) -> tuple[Path, ...]:
        """The config's `overlays:`, relative to its folder."""
        return tuple(self.folder / written for written in self.config.overlays)


def _config_document(path: Path) -> Any:
    text = _read_text(path, "config file")
    if path.name == PYPROJECT or path.suffix == ".toml":
        try:
            document = tomllib.loads(text)
        except tomllib.TOMLDecodeError as error:
            raise RuleFileError(f"{path}: not valid TOML: {error}") from None
        return document.get("tool", {}).get(PYPROJECT_TABLE)
    return _parse_yaml(path, text)


def find_config(start: Path) -> Path | None:
    """commerce-proxy.yaml, or a pyproject.toml with [tool.commerce-proxy], here or in a parent."""
    for folder in [start, *start.parents]:
        candidate = folder / CONFIG_FILE
        if candidate.is_file():
            return candidate
        pyproject = folder / PYPROJECT
        if pyproject.is_file() and f"[tool.{PYPROJECT_TABLE}" in _read_text(pyproject, "file"):
            return pyproject
    return None


def load_config(explicit: Path | None, ruleset_ids: list[str], start: Path | None = None) -> ProjectConfig:
    """The config named on the command line, else the one found from `start` (the working folder)."""
    path = explicit if explicit is not None else find_config(start or Path(os.getcwd()))
    if path is None:
        return ProjectConfig(RuleConfig(), start or Path(os.getcwd()), None)
    document = _config_document(path)
    source = f"{path} [tool.{PYPROJECT_TABLE}]" if path.name == PYPROJECT else str(path)
    config = RuleConfig.parse(document, source, ruleset_ids).at(clock.now())
    table = document if isinstance(document, dict) else {}
    return ProjectConfig(
        config,
        path.parent,
        path,
        configured_policy(table.get("redact"), source),
        configured_matching(table.get("match"), source),
    )


def config_rule_folder(path: Path) -> Path | None:
    """The rule folder a config file names (relative to the file), read before the rules are known."""
    document = _config_document(path)
    written = document.get("rules") if isinstance(document, dict) else None
    return path.parent / written if isinstance(written, str) else None


def config_baseline(path: Path) -> Path | None:
    """The baseline file a config file names (relative to the file)."""
    document = _config_document(path)
    written = document.get("baseline") if isinstance(document, dict) else None
    return path.parent / written if isinstance(written, str) else None


def load_baseline(path: Path) -> Baseline:
    """Read a baseline file of accepted findings; a missing one says how to write it."""
    if not path.exists() and not path.is_symlink():
        raise RuleFileError(
            f"{path}: no such baseline file; write one with `commerce-proxy check CASSETTES "
            f"--write-baseline {path}` (it accepts every finding they have today)"
        )
    text = _read_text(path, "baseline file")
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise RuleFileError(f"{path}:{error.lineno}: not valid JSON: {error.msg}") from None
    return Baseline.parse(document, str(path))


def write_baseline(path: Path, accepted: Iterable[tuple[str, str, str, str]]) -> int:
    """Write the baseline accepting these findings' `baseline_key`s atomically; returns how many
    entries it holds."""
    document = Baseline.document(accepted)
    write_atomically(path, json.dumps(document, indent=2) + "\n", "the baseline")
    return len(document["accepted"])


@dataclass(frozen=True, slots=True)
class RulesInForce:
    """The rule set in force and the project config that adjusts it."""

    ruleset: RuleSet
    project: ProjectConfig


def load_project_rules(config: Path | None, rules: Path | None, start: Path) -> RulesInForce:
    """The rules and project config: the config named, else found from `start`; its rule folder, else
    the shipped one (an explicit `rules` folder beats both)."""
    from proxy.store.shipped import shipped_dir

    config_path = config or find_config(start)
    folder = rules or (config_rule_folder(config_path) if config_path else None)
    ruleset = load_rules(folder or shipped_dir("rules"))
    ids = [rule.id for rule in ruleset.rules] + list(CONTRACT_RULE_IDS)  # the specs' rules, always known
    project = load_config(config_path, ids, start)
    _refuse_unreachable_endpoints(project, ruleset)
    _refuse_unjudged_max_age(project, ruleset)
    return RulesInForce(ruleset, project)


def _refuse_unjudged_max_age(project: ProjectConfig, ruleset: RuleSet) -> None:
    """`max_age` with a rule folder that has no rule judging it would silently do nothing."""
    if project.config.max_age is not None and not any(rule.check == MAX_AGE_CHECK for rule in ruleset.rules):
        raise RuleFileError(
            f"{project.config.source}: max_age: no rule in force judges it (a rule with "
            f"`check: {MAX_AGE_CHECK}`, as the shipped rules' cassette.max-age)"
        )


def _refuse_unreachable_endpoints(project: ProjectConfig, ruleset: RuleSet) -> None:
    """An endpoint setting none of its rules can apply at (a typo in the path, say) is an error that
    lists the endpoints the rules know."""
    for override in project.config.overrides:
        if override.endpoint is None:
            continue
        covered = [rule.id for rule in ruleset.rules if override.covers(rule.id)]
        if not ruleset.reaches(covered, override.endpoint):
            known = ", ".join(str(endpoint) for endpoint in ruleset.endpoints())
            raise RuleFileError(
                f"{project.config.source}: endpoints {str(override.endpoint)!r}: {override.rule!r} "
                f"never applies there; the endpoints the rules know: {known}"
            )


@dataclass(frozen=True, slots=True)
class RuleSource:
    """Where the rules and project config come from, so that another process can load the same ones;
    with the specs and overlays the command line adds to the config's (`--spec`, `--overlay`)."""

    config: Path | None
    rules: Path | None
    start: Path
    specs: tuple[Path, ...] = ()
    overlays: tuple[Path, ...] = ()

    def load(self) -> RulesInForce:
        return load_project_rules(self.config, self.rules, self.start)

    def to_argument(self) -> str:
        """This source as one JSON command-line argument (for a child process: `of_argument`)."""
        document = {
            name: [str(path) for path in value] if isinstance(value, tuple) else str(value) if value else None
            for name, value in asdict(self).items()
        }
        return json.dumps(document, separators=(",", ":"))

    @classmethod
    def of_argument(cls, argument: str) -> RuleSource:
        """`to_argument`'s inverse: the rules, config, specs and overlays the parent loaded."""
        document = json.loads(argument)
        return cls(
            Path(document["config"]) if document["config"] else None,
            Path(document["rules"]) if document["rules"] else None,
            Path(document["start"]),
            tuple(Path(path) for path in document["specs"]),
            tuple(Path(path) for path in document["overlays"]),
        )
