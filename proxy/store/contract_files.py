"""The published specs a command names (`--spec PATH`, repeatable: a file, or a folder of `*.yaml`,
`*.yml` and `*.json` files), read into a `Contract`: every file a `$ref` names loaded too, relative to
the file that names it. YAML is read by the project's safe reader. Any problem is one `ContractError`
line naming the file and the place (the line of a parse error, the JSON pointer of a broken `$ref`).

`contract_of` is the one way from paths to a contract, for every command and the plugin. Overlays go
in at one place, `overlay`, on each document as read, before any `$ref` is followed.
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeAlias

import yaml

from proxy.core.cassette.safe_yaml import load_yaml, yaml_problem
from proxy.core.contract.documents import Spec, check_references, openapi_version, other_files
from proxy.core.contract.judge import Contract
from proxy.errors import CassetteFormatError, ContractError

SUFFIXES = (".yaml", ".yml", ".json")
# What applies the overlays to one document: its name and value in, the value overlaid and the map of
# each JSON pointer an overlay set or removed to the overlay's file name out (the input is not changed).
Overlaying: TypeAlias = Callable[[str, dict[str, Any]], tuple[dict[str, Any], dict[str, str]]]


def contract_of(paths: Iterable[Path], overlay: Overlaying | None = None) -> Contract:
    """The contract of these spec files and folders, with `overlay` applied to each document."""
    named = spec_files(paths)
    documents: dict[str, Any] = {}
    overlaid: dict[str, dict[str, str]] = {}
    waiting = list(named)
    while waiting:
        name = waiting.pop(0)
        if name in documents or (name not in named and not Path(name).is_file()):
            continue  # a `$ref` to a file that is not there: `check_references` names the `$ref`
        document = _read(Path(name))
        changed: dict[str, str] = {}
        if overlay is not None and isinstance(document, dict):
            document, changed = overlay(name, document)
        documents[name], overlaid[name] = document, changed
        waiting.extend(sorted(other_files(name, document) - documents.keys()))
    versions = {name: openapi_version(name, document) for name, document in documents.items()}
    check_references(documents, overlaid)
    return Contract(Spec(name, versions[name], documents[name], overlaid[name]) for name in documents)


def spec_files(paths: Iterable[Path]) -> list[str]:
    """Each file named, and each spec file directly in each folder named (in name order), once each,
    as normalized POSIX names (a `$ref`'s file is joined to them)."""
    found: list[str] = []
    for path in paths:
        if path.is_dir():
            members = sorted(
                child for child in path.iterdir() if child.suffix in SUFFIXES and child.is_file()
            )
            if not members:
                raise ContractError(f"{path}: no spec files (*.yaml, *.yml, *.json) in this folder")
            found.extend(posixpath.normpath(member.as_posix()) for member in members)
        elif path.is_file():
            found.append(posixpath.normpath(path.as_posix()))
        else:
            raise ContractError(f"{path}: no such spec file or folder")
    return list(dict.fromkeys(found))


def _read(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ContractError(f"{path}: no such file") from None
    except UnicodeDecodeError:
        raise ContractError(f"{path}: not UTF-8 text") from None
    except OSError as error:
        raise ContractError(f"{path}: cannot read: {error.strerror}") from None
    if path.suffix == ".json":
        try:
            return json.loads(text)
        except json.JSONDecodeError as error:
            raise ContractError(f"{path}:{error.lineno}: not valid JSON: {error.msg}") from None
    try:
        return load_yaml(text)
    except yaml.YAMLError as error:
        line, problem = yaml_problem(error, text)
        raise ContractError(f"{path}{f':{line}' if line else ''}: not valid YAML: {problem}") from None
    except CassetteFormatError as error:  # the safe reader's own refusals (a key twice, too deep)
        raise ContractError(f"{path}: not valid YAML: {error}") from None
