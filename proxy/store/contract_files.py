"""The published specs a command names (`--spec PATH`, repeatable: a file, or a folder of `*.yaml`,
`*.yml` and `*.json` files), read into a `Contract`: every file a `$ref` names loaded too, relative to
the file that names it. YAML is read by the project's safe reader. Any problem is one `ContractError`
line naming the file and the place (the line of a parse error, the JSON pointer of a broken `$ref`).
Every file is named by `source_name`, the one naming of specs and overlays in findings and errors.

Only the files named (and a named folder's) must be OpenAPI documents; a file only a `$ref` reaches is
a fragment (a schema, a `components:`-only file, a path item). A `$ref` stays relative and inside the
folder of the spec it was reached from (the named file's folder, or the named folder), links resolved:
a spec from a pull request cannot make a check read any other file of the machine. Every file is read
as a regular file (never a FIFO, a device or a folder) of at most `MAX_SPEC_BYTES`; a UTF-8 BOM is
allowed.

`contract_of` is the one way from paths to a contract, for every command and the plugin. Overlays go
in at one place, `overlay`, on each document as read, before any `$ref` is followed.
"""

from __future__ import annotations

import json
import os
import posixpath
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeAlias

import yaml

from proxy.core.cassette.safe_yaml import load_yaml, yaml_problem
from proxy.core.contract.documents import (
    Spec,
    check_references,
    file_references,
    openapi_version,
    overlay_blame,
    references,
)
from proxy.core.contract.judge import Contract
from proxy.core.contract.overlay_refs import check_beside_refs
from proxy.core.contract.structure import check_structure, kind_of
from proxy.errors import CassetteFormatError, CommerceProxyError, ContractError
from proxy.store.regular_files import opened

SUFFIXES = (".yaml", ".yml", ".json")
MAX_SPEC_BYTES = 64 * 2**20  # the largest published spec is under 1 MB
# What applies the overlays to one document: its name and value in, the value overlaid and the map of
# each JSON pointer an overlay set or removed to the overlay's file name out (the input is not changed).
Overlaying: TypeAlias = Callable[[str, dict[str, Any]], tuple[dict[str, Any], dict[str, str]]]


@dataclass(frozen=True, slots=True)
class _Reached:
    """How a file was reached: its folder of trust (`root`), and the `$ref` that named it (None for a
    file named by --spec), with the file and pointer that wrote that `$ref` and the writer's version."""

    root: str
    via: tuple[str, str, str, str] | None = None  # writer, pointer, $ref, writer's version
    blame: str = ""  # ` (written by overlay X)` when an overlay wrote that `$ref`

    def problem(self, name: str, reason: str) -> ContractError:
        if self.via is None:
            return ContractError(f"{name}: {reason}")
        writer, at, ref, _ = self.via
        return ContractError(f"{writer}: #{at}/$ref: {ref}: {reason}{self.blame}")


def contract_of(paths: Iterable[Path], overlay: Overlaying | None = None) -> Contract:
    """The contract of these spec files and folders, with `overlay` applied to each document."""
    waiting = [(name, _Reached(root)) for name, root in _named(paths)]
    specs: dict[str, Spec] = {}
    written: dict[str, list[tuple[str, Any]]] = {}  # each document's `$ref`s, found in one walk
    while waiting:
        name, reached = waiting.pop(0)
        if name in specs:
            continue
        document = _read(name, reached)
        if reached.via is None:
            version = openapi_version(name, document)
        elif isinstance(document, dict):
            version = reached.via[3]
        else:
            raise reached.problem(name, f"expected a mapping in the file, found {kind_of(document)}")
        changed: dict[str, str] = {}
        if overlay is not None:
            document, changed = overlay(name, document)
            check_beside_refs(name, version, document, changed)
        specs[name] = Spec(name, version, document, changed, entry=reached.via is None)
        written[name] = list(references(document))
        for at, ref, target in sorted(file_references(name, document, written[name])):
            if target not in specs:
                blame = overlay_blame(changed, f"{at}/$ref", None)
                waiting.append((target, _Reached(reached.root, (name, at, ref, version), blame)))
    check_references(
        {name: spec.document for name, spec in specs.items()},
        {name: spec.overlaid for name, spec in specs.items()},
        written,
    )
    check_structure(specs)
    return Contract(specs.values())


def spec_files(paths: Iterable[Path]) -> list[str]:
    """Each file named, and each spec file directly in each folder named (in name order), once each,
    as normalized POSIX names (a `$ref`'s file is joined to them)."""
    return list(dict.fromkeys(name for name, _ in _named(paths)))


def _named(paths: Iterable[Path]) -> list[tuple[str, str]]:
    """`spec_files`, each with the folder its `$ref`s must stay in."""
    found: list[tuple[str, str]] = []
    for path in paths:
        if path.is_dir():
            members = folder_files(path, "spec")
            root = _trusted(source_name(path))
            found.extend((source_name(member), root) for member in members)
        elif path.exists():
            name = source_name(path)
            found.append((name, _trusted(posixpath.dirname(name) or ".")))
        else:
            raise ContractError(f"{path}: no such spec file or folder")
    return found


def source_name(path: Path) -> str:
    """The one name of a spec or overlay file, in every finding's source and every error, whatever the
    command and however it was given (relative, absolute, from the config's or the plugin's folder):
    relative to the working folder when it is inside it, else absolute; POSIX, normalized."""
    absolute = os.path.abspath(path)
    here = os.getcwd()
    if os.path.commonpath([here, absolute]) == here:
        return Path(os.path.relpath(absolute, here)).as_posix()
    return Path(absolute).as_posix()


def folder_files(folder: Path, kind: str) -> list[Path]:
    """The YAML and JSON files directly in `folder` (not its sub-folders), by name: the `kind` files
    (specs, overlays) a folder given on the command line holds; none is an error. A hidden file
    (`.name`) and an editor's backup (`name~`) are no member: an editor or a tool left them there."""
    found = sorted(child for child in folder.iterdir() if _member(child.name) and child.is_file())
    if not found:
        raise ContractError(f"{folder}: no {kind} files (*.yaml, *.yml, *.json) in this folder")
    return found


def _member(name: str) -> bool:
    """Whether a file of a named folder is one of its spec or overlay files, by its name."""
    return not name.startswith(".") and not name.endswith("~") and name.endswith(SUFFIXES)


def _read(name: str, reached: _Reached) -> Any:
    """The parsed value of one spec file, read as `_Reached` allows."""
    path = Path(name)
    if reached.via is not None and not _inside(path, reached.root):
        raise reached.problem(
            name,
            f"outside {os.path.abspath(reached.root)}/, the folder a $ref of this spec stays in",
        )
    try:
        with opened(path, "spec file") as stream:
            raw = stream.read(MAX_SPEC_BYTES + 1)
    except CommerceProxyError as error:
        raise reached.problem(name, str(error).removeprefix(f"{path}: ")) from None
    except OSError as error:
        raise reached.problem(name, f"cannot read: {error.strerror}") from None
    if len(raw) > MAX_SPEC_BYTES:
        raise reached.problem(name, f"larger than {MAX_SPEC_BYTES // 2**20} MiB, the most a spec file may be")
    try:
        text = raw.decode("utf-8-sig")  # a BOM, which some editors write, is no part of the text
    except UnicodeDecodeError as error:
        raise ContractError(f"{path}:{raw[: error.start].count(10) + 1}: not UTF-8 text") from None
    if path.suffix == ".json":
        try:
            return json.loads(text)
        except json.JSONDecodeError as error:
            raise ContractError(f"{path}:{error.lineno}: not valid JSON: {error.msg}") from None
        except RecursionError:
            raise ContractError(f"{path}: not usable JSON: nested too deeply") from None
    try:
        return load_yaml(text)
    except yaml.YAMLError as error:
        line, problem = yaml_problem(error, text)
        raise ContractError(f"{path}{f':{line}' if line else ''}: not valid YAML: {problem}") from None
    except CassetteFormatError as error:  # the safe reader's own refusals (a key twice, too deep)
        raise ContractError(f"{path}: not valid YAML: {error}") from None


def _trusted(folder: str) -> str:
    """The folder a named spec's `$ref`s stay in: the working folder (the project `check` runs in) when
    the spec is inside it, so specs beside each other share files (`../common.yaml`); else the spec's
    own folder."""
    return "." if _inside(Path(folder), ".") else folder


def _inside(path: Path, root: str) -> bool:
    """Whether `path`, links resolved, is under the folder `root` (links resolved too)."""
    folder = os.path.realpath(root)
    return os.path.commonpath([folder, os.path.realpath(path)]) == folder
