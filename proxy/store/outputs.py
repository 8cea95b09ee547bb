"""Where a command may write: checked before it starts work, so no command writes over one of its own
inputs (whatever name it is given by), and none replaces another cassette unless told to (`--force`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from proxy.errors import UsageError
from proxy.store.files import CASSETTE_SUFFIXES, cassette_files
from proxy.store.journal import open_regular_file

CASSETTE_MARK = b"cassette_format"


def refuse_overwrite(
    output: Path, inputs: Iterable[Path], what: str, force: bool | None = None, any_file: bool = False
) -> None:
    """`UsageError` when writing `what` to `output` could destroy data: `output` is a folder, or one of
    `inputs` (files, or folders of cassettes), with or without `--force`; or it is an existing cassette
    (any existing file, with `any_file`) and `force` is not set (None: the command has no `--force`, so
    it is refused outright)."""
    if output.is_dir():
        raise UsageError(f"{output}: is a folder; {what} is written to a file")
    for given in inputs:
        for source in cassette_files(given) if given.is_dir() else [given]:
            if _same_file(output, source):
                raise UsageError(
                    f"{output}: is one of this command's inputs ({source}); {what} never replaces "
                    "an input: choose another file"
                )
    if output.exists() and not force and (any_file or is_cassette_file(output)):
        advice = "pass --force to replace it" if force is not None else "choose another file"
        kind = "cassette" if is_cassette_file(output) else "file"
        raise UsageError(f"{output}: is an existing {kind}; {what} would replace it: {advice}")


def is_cassette_file(path: Path) -> bool:
    """Whether an existing file is (or is named as) a cassette: a .yaml/.yml name, or a file whose
    first 4 KB name the cassette format."""
    if path.suffix in CASSETTE_SUFFIXES:
        return True
    try:
        with open_regular_file(path) as handle:  # a FIFO would block an open(); it is refused here
            return CASSETTE_MARK in handle.read(4096)
    except OSError:
        return False


def _same_file(one: Path, other: Path) -> bool:
    try:
        return os.path.samefile(one, other)
    except OSError:  # one of them does not exist (yet): compare where their names lead
        return os.path.realpath(one) == os.path.realpath(other)
