"""`cassette fmt` as a use case: each cassette rewritten in the normal layout (what a clean recording
writes), redacted by the project's policy, under the lock every writer takes; with `check`, only the
files off that layout named. A file that does not parse, or whose hand-written comment the rewrite
would drop (unless told to drop it), stops the run with one line and is left as it was."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from proxy.app import editing as session
from proxy.app.cassette_reading import files_in
from proxy.app.command_inputs import RuleChoice
from proxy.core.cassette.document import dump_cassette, with_current_header
from proxy.core.redaction.redact import RedactionPolicy
from proxy.errors import UsageError
from proxy.store.cassette_reader.for_edit import load_for_edit
from proxy.store.saving import save_cassette
from proxy.store.writing import folder_lock


@dataclass(frozen=True, slots=True)
class FormatRequest:
    paths: tuple[Path, ...]  # cassette files or folders
    check: bool = False  # only name the files off the normal layout; write nothing
    drop_comments: bool = False  # rewrite files with hand-written comments anyway (they are lost)
    rules: RuleChoice = field(default_factory=RuleChoice)


def format_cassettes(request: FormatRequest, tell: Callable[[str], None]) -> list[Path]:
    """The files that were off the normal layout (each rewritten unless `check`), in order; `tell`
    gets a line per such file as it is found or rewritten."""
    policy = request.rules.load().project.redaction
    unformatted: list[Path] = []
    for given in request.paths:
        for path in files_in(given):
            # read, reformatted and saved with no other write in between
            with contextlib.nullcontext() if request.check else folder_lock(path):
                if not _reformat(request, path, policy, tell):
                    continue
            unformatted.append(path)
    return unformatted


def _reformat(
    request: FormatRequest, path: Path, policy: RedactionPolicy, tell: Callable[[str], None]
) -> bool:
    """Whether the file was off the normal layout (rewritten unless `check`)."""
    editable = load_for_edit(path)
    cassette = session.redacted(editable.cassette, policy)
    if dump_cassette(cassette) == with_current_header(editable.text):
        return False
    if request.check:
        tell(f"{path}: not in the normal layout (run `commerce-proxy cassette fmt {path}`)")
        return True
    if editable.comment_line is not None and not request.drop_comments:
        raise UsageError(
            f"{path}:{editable.comment_line}: has a hand-written comment that fmt would drop; "
            "move it out or pass --drop-comments"
        )
    save_cassette(path, cassette)
    tell(f"{path}: reformatted")
    return True
