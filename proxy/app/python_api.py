"""What the public Python API (`import proxy`) does beyond re-exporting types: cassettes in and out, and
checking exchanges against the rules from your own code, with the same project config and rules the
command line finds."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from proxy.app.editing import redacted
from proxy.core.cassette.document import Cassette
from proxy.core.model.bodies import body_from_bytes
from proxy.core.model.exchange import Body, Exchange
from proxy.core.rules.engine import Checker
from proxy.core.rules.findings import Finding
from proxy.store import files, saving
from proxy.store.rule_files import RulesInForce, load_project_rules

StrPath = str | os.PathLike[str]


def load_rules(config: StrPath | None = None, rules: StrPath | None = None) -> RulesInForce:
    """The rules in force and the project config: as `--config` and `--rules` name them, else found
    from the working folder up (`commerce-proxy.yaml` or `[tool.commerce-proxy]`), else the shipped
    rules."""
    return load_project_rules(_path(config), _path(rules), Path.cwd())


def load_cassette(path: StrPath) -> Cassette:
    """A cassette from its YAML file (a journal left by an interrupted recording folded in first)."""
    return files.load_cassette(Path(path)).cassette


def save_cassette(path: StrPath, cassette: Cassette, engine: RulesInForce | None = None) -> None:
    """Write a cassette atomically, redacted first by the project's policy, as a recording is."""
    policy = (engine or load_rules()).project.redaction
    saving.save_cassette(Path(path), redacted(cassette, policy))


def check_exchanges(exchanges: Iterable[Exchange], engine: RulesInForce | None = None) -> list[Finding]:
    """Every finding the rules make of these exchanges, taken as one session in this order (the
    stateful rules, such as an ETag changing with its entry, see the ones before)."""
    engine = engine or load_rules()
    return Checker(engine.ruleset, engine.project.config).check_all(list(exchanges))


def body(raw: bytes, headers: Iterable[tuple[str, str]] = ()) -> Body:
    """A body as the recorder stores it: JSON as a document, other text as text, bytes as bytes,
    after undoing any Content-Encoding the headers name."""
    return body_from_bytes(raw, tuple(headers))


def _path(given: StrPath | None) -> Path | None:
    return None if given is None else Path(given)
