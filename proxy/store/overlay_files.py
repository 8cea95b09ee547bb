"""Reading overlay files (merge corrections and Overlay 1.0 documents, YAML or JSON) into `Overlay`s.

A path is a file or a folder of them (its `*.yaml`, `*.yml` and `*.json` files, by name, not below).
YAML is read with the project's safe loader; every problem is one `ContractError` line naming the file
(and the line, when the parser knows it).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable
from pathlib import Path
from typing import Any

import yaml

from proxy.core.cassette.safe_yaml import load_yaml, yaml_problem
from proxy.core.contract.overlays import Overlay, overlay_of
from proxy.errors import CommerceProxyError, ContractError
from proxy.store.contract_files import folder_files, source_name
from proxy.store.regular_files import file_bytes


def read_overlays(paths: Iterable[Path], specs: Collection[str]) -> list[Overlay]:
    """The overlays in `paths`, in the order given (a folder's files by name), each paired with one of
    `specs` (the spec documents' names, as the contract loader names them)."""
    return [
        overlay_of(source_name(path), read_overlay_document(path), specs) for path in overlay_paths(paths)
    ]


def overlay_paths(paths: Iterable[Path]) -> list[Path]:
    """Each file named, and each folder's overlay files by name; a folder with none is an error."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found.extend(folder_files(path, "overlay"))
        else:
            found.append(path)
    return found


def read_overlay_document(path: Path) -> Any:
    """The document in one overlay file, parsed: JSON for `*.json`, safe YAML otherwise."""
    try:
        raw = file_bytes(path, "overlay file")
    except CommerceProxyError as error:
        raise ContractError(str(error)) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ContractError(f"{path}:{raw[: error.start].count(10) + 1}: not UTF-8 text") from None
    if path.suffix == ".json":
        document = _json(path, text)
    else:
        try:
            document = load_yaml(text)
        except yaml.YAMLError as error:
            line, problem = yaml_problem(error, text)
            raise ContractError(f"{path}{f':{line}' if line else ''}: not valid YAML: {problem}") from None
    if document is None:
        raise ContractError(f"{path}: empty: expected a merge correction or an Overlay document")
    return document


def _json(path: Path, text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise ContractError(f"{path}:{error.lineno}: not valid JSON: {error.msg}") from None
    except RecursionError:
        raise ContractError(f"{path}: not usable JSON: nested too deeply") from None
